import type { RedisClient as Redis } from '../../services/redis/client';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { PartitionKeys } from '../../services/views/keys';
import { TableKeys } from '../../services/views/table';

/**
 * The state of a view version: every partition's applied offsets (written by the same atomic
 * transaction as the rows, so a changed row changes them). Two requests that read the same stamp
 * read the same data: the response cache keys answers by it. The `seen:` marker hints are left
 * out: they move past transaction markers without any row changing.
 */
export function viewStamp(redis: Redis, keyPrefix: string, view: string, version: number, partitions = MARKET_PARTITIONS): Promise<string> {
  let running = inFlight.get(redis);
  if (!running) inFlight.set(redis, (running = new Map()));
  const key = `${keyPrefix}\n${view}\n${version}\n${partitions}`;
  const shared = running.get(key);
  if (shared) return shared;
  const read = readViewStamp(redis, keyPrefix, view, version, partitions).finally(() => running.delete(key));
  running.set(key, read);
  return read;
}

/**
 * Stamp reads in flight, per connection: a request arriving while one is on its way shares it (a
 * stamp as of at most one Redis round trip before the request, where the views' pointers are up to
 * a second old anyway). Under load the stamp of the response cache's hits was most of their Redis
 * work: a read of every partition's offsets per request.
 */
const inFlight = new WeakMap<Redis, Map<string, Promise<string>>>();

async function readViewStamp(redis: Redis, keyPrefix: string, view: string, version: number, partitions: number): Promise<string> {
  const pipe = redis.pipeline();
  for (let p = 0; p < partitions; p++) pipe.hgetall(new PartitionKeys(keyPrefix, view, version, p).offsets);
  let stamp = String(version);
  for (const [err, offsets] of (await pipe.exec())!) {
    if (err) throw err;
    // `last:<session>` fields (warm-tier.ts) move with the applied offsets: they add nothing.
    const applied = Object.entries(offsets as Record<string, string>).filter(([topic]) => !topic.startsWith('seen:') && !topic.startsWith('last:'));
    stamp += `|${applied
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([t, o]) => `${t}=${o}`)
      .join(',')}`;
  }
  return stamp;
}

/** The segments (session dates) that have rows in a table view, in any partition, ascending. */
export async function viewSegments(redis: Redis, keyPrefix: string, view: string, version: number, partitions = MARKET_PARTITIONS): Promise<string[]> {
  const pipe = redis.pipeline();
  for (let p = 0; p < partitions; p++) pipe.zrange(new TableKeys(new PartitionKeys(keyPrefix, view, version, p)).segments, 0, -1);
  const all = new Set<string>();
  for (const [err, ds] of (await pipe.exec())!) {
    if (err) throw err;
    for (const d of ds as string[]) all.add(d);
  }
  return [...all].sort();
}
