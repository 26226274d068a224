import { Partitioners } from 'kafkajs';

const partitioner = Partitioners.DefaultPartitioner();
const metadataCache = new Map<number, { partitionId: number; leader: number }[]>();

/**
 * The partition a key lands on with the producer's partitioner (murmur2, as Java clients): lets a
 * writer know ahead of producing which partitions — and so which shard — a key belongs to.
 */
export function partitionOf(key: string, partitions: number): number {
  let meta = metadataCache.get(partitions);
  if (!meta) {
    meta = Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 0 }));
    metadataCache.set(partitions, meta);
  }
  return partitioner({ topic: '', partitionMetadata: meta as never, message: { key, value: null } });
}
