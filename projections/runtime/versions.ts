import type { Admin } from 'kafkajs';
import { scanKeys, unlinkKeys, type RedisClient as Redis } from '../../services/redis/client';
import { PartitionKeys, pointerKey, versionPattern } from '../../services/views/keys';
import { readConsumedOffset } from './atomic-apply';

/** The served version of a view; the first projector to start a view makes it version 1. */
export async function servedVersion(redis: Redis, prefix: string, view: string): Promise<number> {
  await redis.set(pointerKey(prefix, view), '1', 'NX');
  return Number(await redis.get(pointerKey(prefix, view)));
}

const FLIP = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end
return 0`;

/** Atomically points the API at `to`, only if it still serves `from`. */
export async function flipVersion(redis: Redis, prefix: string, view: string, from: number, to: number): Promise<boolean> {
  return (await redis.eval(FLIP, 1, pointerKey(prefix, view), String(from), String(to))) === 1;
}

/** Deletes every key of one version (SCAN + UNLINK, so Redis never blocks on a large view). */
export async function dropVersion(redis: Redis, prefix: string, view: string, version: number): Promise<number> {
  let dropped = 0;
  await scanKeys(redis, versionPattern(prefix, view, version), async (keys) => {
    dropped += await unlinkKeys(redis, keys);
  });
  return dropped;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** Last applied offset in the view (-1 = none). */
  applied: number;
  /** Offset of the newest record in Kafka as the admin reports it (-1 = empty partition). */
  latest: number;
}

/**
 * Per-partition lag of a view version against the topics' current ends. With a default admin the
 * end is the last stable offset (what a read_committed consumer can reach now); with one created
 * `readUncommitted` it is the high watermark, which also counts a committed transaction whose
 * markers are still being written: a caller waiting for what it has just committed needs that.
 */
export async function viewLag(admin: Admin, redis: Redis, topics: readonly string[], prefix: string, view: string, version: number): Promise<PartitionLag[]> {
  const out: PartitionLag[] = [];
  for (const topic of topics) {
    for (const p of await admin.fetchTopicOffsets(topic)) {
      const partition = p.partition;
      const applied = await readConsumedOffset(redis, new PartitionKeys(prefix, view, version, partition).offsets, topic);
      out.push({ topic, partition, applied, latest: Number(p.high) - 1 });
    }
  }
  return out;
}

export function caughtUp(lag: PartitionLag[]): boolean {
  return lag.every((l) => l.applied >= l.latest);
}
