import { parentPort, workerData } from 'worker_threads';
import type { Config } from '../../services/config';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import type { SimEvent } from '../simulator/events';
import { ChunkWriter, type ProgressRecord } from './chunk-writer';
import { marketFor, sessionKey, type SessionRequest, TX_EVENTS } from './session-producer';
import { shardSymbols } from './shards';

/**
 * A worker thread producing one shard of a session's tick tier (see shards.ts): it generates only
 * its shard's symbols and commits chunk groups in transactions of its own writer, reporting each
 * commit to the parent, which keeps the overall progress.
 */
export interface ShardTask {
  config: Config;
  req: SessionRequest;
  shard: number;
  stream: string;
  /** first chunk to produce and events already committed before it */
  start: number;
  events: number;
  chunks: number;
}

export type ShardMessage = { kind: 'commit'; chunks: number; events: number; record: ProgressRecord } | { kind: 'done' } | { kind: 'error'; message: string };

async function run(task: ShardTask): Promise<void> {
  const post = (m: ShardMessage) => parentPort!.postMessage(m);
  const kafka = createKafka(task.config, `mdq-ingest-shard-${task.shard}`);
  const market = marketFor(task.req.seed, task.req.profile);
  const gen = market.session(task.req.date, 'tick', shardSymbols(market, task.shard));
  const writer = new ChunkWriter(kafka, createRegistry(task.config), task.config.topicPrefix, `ingest-${sessionKey(task.req)}-tick-${task.shard}`);
  await writer.connect();
  try {
    let k = task.start;
    let total = task.events;
    while (k < task.chunks) {
      const events: SimEvent[] = [];
      const first = k;
      while (k < task.chunks && events.length < TX_EVENTS) {
        for (const e of gen.chunk(k)) events.push(e);
        k++;
      }
      total += events.length;
      const record: ProgressRecord = { stream: task.stream, chunk: k - 1, chunks: task.chunks, events: total };
      await writer.commit(events, [record]);
      post({ kind: 'commit', chunks: k - first, events: events.length, record });
    }
  } finally {
    await writer.disconnect();
  }
  post({ kind: 'done' });
}

run(workerData as ShardTask).catch((err: unknown) => parentPort!.postMessage({ kind: 'error', message: err instanceof Error ? err.message : String(err) } satisfies ShardMessage));
