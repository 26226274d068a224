import type { SimEvent } from '../simulator/events';
import type { SessionGenerator } from '../simulator/session';
import type { ChunkWriter, ProgressRecord } from './chunk-writer';

/** Events per transaction in a backfill: large enough to amortise the commit. */
export const TX_EVENTS = 50_000;

export interface StreamPosition {
  stream: string;
  /** first chunk to produce */
  start: number;
  /** events of the stream committed before it */
  events: number;
  chunks: number;
}

/**
 * Commits a stream's chunks from `start` to the end in transactions of about TX_EVENTS events,
 * each with the stream's progress record, reporting every commit. The one backfill loop, used by
 * the daily tier and by each tick-shard thread.
 */
export async function commitChunks(
  writer: ChunkWriter,
  gen: SessionGenerator,
  pos: StreamPosition,
  onCommit: (record: ProgressRecord, chunks: number, events: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  let k = pos.start;
  let total = pos.events;
  while (k < pos.chunks) {
    if (signal?.aborted) throw new Error('backfill aborted');
    const events: SimEvent[] = [];
    const first = k;
    while (k < pos.chunks && events.length < TX_EVENTS) {
      for (const e of gen.chunk(k)) events.push(e);
      k++;
    }
    total += events.length;
    const record: ProgressRecord = { stream: pos.stream, chunk: k - 1, chunks: pos.chunks, events: total };
    await writer.commit(events, [record]);
    onCommit(record, k - first, events.length);
  }
}
