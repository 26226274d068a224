import { Partitioners } from 'kafkajs';

const partitioner = Partitioners.DefaultPartitioner();
const metadataCache = new Map<number, { partitionId: number; leader: number }[]>();
/**
 * Partitions of recent keys: readers ask for the same tickers on every request (a market map asks
 * for hundreds), and the partitioner's murmur2 runs on 64-bit Long objects. Bounded, since a
 * producer may ask once for each of millions of keys.
 */
const memo = new Map<string, number>();
const MEMO_MAX = 100_000;

/**
 * The partition a key lands on with the producer's partitioner (murmur2, as Java clients): lets a
 * writer know ahead of producing which partitions — and so which shard — a key belongs to.
 */
export function partitionOf(key: string, partitions: number): number {
  const memoKey = `${partitions}/${key}`;
  const known = memo.get(memoKey);
  if (known !== undefined) return known;
  let meta = metadataCache.get(partitions);
  if (!meta) {
    meta = Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 0 }));
    metadataCache.set(partitions, meta);
  }
  const p = partitioner({ topic: '', partitionMetadata: meta as never, message: { key, value: null } });
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(memoKey, p);
  return p;
}
