import type Redis from 'ioredis';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { PartitionKeys } from '../../services/views/keys';
import { TableKeys } from '../../services/views/table';

/**
 * The state of a view version: every partition's applied offsets (written by the same atomic
 * transaction as the rows, so a changed row changes them). Two requests that read the same stamp
 * read the same data: the response cache keys answers by it. The `seen:` marker hints are left
 * out: they move past transaction markers without any row changing.
 */
export async function viewStamp(redis: Redis, keyPrefix: string, view: string, version: number, partitions = MARKET_PARTITIONS): Promise<string> {
  const pipe = redis.pipeline();
  for (let p = 0; p < partitions; p++) pipe.hgetall(new PartitionKeys(keyPrefix, view, version, p).offsets);
  let stamp = String(version);
  for (const [err, offsets] of (await pipe.exec())!) {
    if (err) throw err;
    const applied = Object.entries(offsets as Record<string, string>).filter(([topic]) => !topic.startsWith('seen:'));
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
