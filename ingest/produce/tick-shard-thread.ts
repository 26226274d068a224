import { parentPort, workerData } from 'worker_threads';
import type { Config } from '../../services/config';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { ChunkWriter, type ProgressRecord } from './chunk-writer';
import { commitChunks, type StreamPosition } from './commit-chunks';
import { backfillWriterId, marketFor, type SessionRequest } from './session-producer';
import { shardSymbols } from './shards';

/**
 * A worker thread producing one shard of a session's tick tier (see shards.ts): it generates only
 * its shard's symbols and commits chunk groups in transactions of its own writer, reporting each
 * commit to the parent, which keeps the overall progress.
 */
export interface ShardTask extends StreamPosition {
  config: Config;
  req: SessionRequest;
  shard: number;
}

export type ShardMessage = { kind: 'commit'; chunks: number; events: number; record: ProgressRecord } | { kind: 'done' } | { kind: 'error'; message: string };

async function run(task: ShardTask): Promise<void> {
  const post = (m: ShardMessage) => parentPort!.postMessage(m);
  const kafka = createKafka(task.config, `mdq-ingest-shard-${task.shard}`);
  const market = marketFor(task.req.seed, task.req.profile);
  const gen = market.session(task.req.date, 'tick', shardSymbols(market, task.shard));
  const writer = new ChunkWriter(kafka, createRegistry(task.config), task.config.topicPrefix, backfillWriterId(task.req, task.shard));
  await writer.connect();
  try {
    await commitChunks(writer, gen, task, (record, chunks, events) => post({ kind: 'commit', chunks, events, record }));
  } finally {
    await writer.disconnect();
  }
  post({ kind: 'done' });
}

run(workerData as ShardTask).catch((err: unknown) =>
  parentPort!.postMessage({ kind: 'error', message: err instanceof Error ? err.message : String(err) } satisfies ShardMessage),
);
