import type { PartitionKeys } from './keys';
import type { RedisClient } from '../redis/client';
import { TableKeys, type TableWrite } from './table';

/**
 * The feed of a tape view: per partition, a Redis stream of the rows the projector wrote, in the
 * order of the Kafka offsets of the rows topic, written in the same compare-and-apply transaction
 * as the rows. The API's push streams (api/streams/) read it, so a stream position is a Kafka
 * offset per partition: the same after an API restart, and the same in a rebuilt view version
 * (a replay writes every entry again under the same offsets).
 *
 *   <prefix>:<view>:v<N>:{pNN}:feed   stream  entry id `<offset>-1`, fields s (segment), k (rowKey), r (stored row)
 *
 * One entry per event that is a row of the view (an event left out of the view has none) and is
 * live (FeedGate: history arriving after a newer session is left to the REST endpoints), so a
 * feed entry is exactly a live row write. A feed keeps the newest `feedRetention()` offsets of its
 * partition; a position older than that resumes from the oldest entry kept (the stream says so).
 */

export const FEED_SUFFIX = 'feed';

/** Offsets of the rows topic kept per partition (MDQ_STREAM_RETENTION). */
export const DEFAULT_FEED_RETENTION = 50_000;

export function feedRetention(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MDQ_STREAM_RETENTION;
  const n = raw === undefined || raw === '' ? DEFAULT_FEED_RETENTION : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`MDQ_STREAM_RETENTION must be an integer >= 1, got ${raw}`);
  return n;
}

export function feedKey(k: PartitionKeys): string {
  return k.key(FEED_SUFFIX);
}

/** The stream entry id of a Kafka offset (an id's first part must be positive for offset 0's entry: the sequence is 1). */
export function feedEntryId(offset: number): string {
  return `${offset}-1`;
}

/** The Kafka offset of a stream entry id. */
export function offsetOfEntry(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

/**
 * Which rows a partition's feed takes. A push stream carries the live tape: a row of a segment
 * (session) older than the newest one the partition already holds is history arriving late (the
 * older sessions of a backfill, a late print) and is not appended; the REST endpoints serve it.
 * Without this a backfill of 30 sessions filled every feed to its retention with history (at the
 * `dev` scale, 50,000 offsets are weeks of a partition's rows, ~460 B each). The rule follows the
 * offsets from what the partition held before the chunk (its `s` zset), so a replay, however
 * chunked, appends the same entries. A view not split by session (segment '') takes every row.
 */
export class FeedGate {
  constructor(private newest: string) {}

  /** Whether a row of `segment`, next in offset order, goes to the feed (a newer segment becomes the newest). */
  admits(segment: string): boolean {
    if (segment < this.newest) return false;
    this.newest = segment;
    return true;
  }
}

/** The newest segment of a partition before a chunk: the last member of its segments zset ('' when it has none). */
export async function feedGate(redis: RedisClient, k: PartitionKeys): Promise<FeedGate> {
  const [newest] = await redis.zrange(new TableKeys(k).segments, -1, -1);
  return new FeedGate(newest ?? '');
}

/** The write that appends a row to its partition's feed. */
export function feedAppend(k: PartitionKeys, offset: number, segment: string, rowKey: string, stored: string | Buffer): TableWrite {
  return ['XADD', feedKey(k), feedEntryId(offset), 's', segment, 'k', rowKey, 'r', stored];
}

/** The write that drops entries older than the retention, given the chunk's last offset (exact: a replay ends with the same entries). */
export function feedTrim(k: PartitionKeys, lastOffset: number, retention: number): TableWrite | null {
  const oldest = lastOffset - retention + 1;
  return oldest > 0 ? ['XTRIM', feedKey(k), 'MINID', '=', feedEntryId(oldest)] : null;
}

/** A feed entry as read back: its offset, segment, rowKey and stored row. */
export interface FeedEntry {
  offset: number;
  segment: string;
  rowKey: string;
  stored: Buffer;
}

/** Parses XRANGE replies read as buffers ([id, [field, value, …]][]). */
export function parseFeedEntries(reply: [Buffer, Buffer[]][]): FeedEntry[] {
  const out: FeedEntry[] = [];
  for (const [id, fields] of reply) {
    const e: FeedEntry = { offset: offsetOfEntry(id.toString()), segment: '', rowKey: '', stored: Buffer.alloc(0) };
    for (let i = 0; i < fields.length; i += 2) {
      const f = fields[i].toString();
      if (f === 's') e.segment = fields[i + 1].toString();
      else if (f === 'k') e.rowKey = fields[i + 1].toString();
      else if (f === 'r') e.stored = fields[i + 1];
    }
    out.push(e);
  }
  return out;
}
