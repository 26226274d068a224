import { Queue, QueueEvents, type ConnectionOptions } from 'bullmq';
import { Cluster } from 'ioredis';
import { parseRedisClusterUrl } from '../../services/redis/cluster-url';
import type { Config } from '../../services/config';
import type { ProfileName } from '../simulator/profiles';
import type { Level } from '../produce/session-producer';

/**
 * The ingest job queues on Redis (BullMQ). Backfills, file imports and reference publishing share
 * the `ingest` queue; live sessions, which run for hours, have their own so they never wait behind
 * a backfill (and a backfill never waits for a session to end).
 */
export const INGEST_QUEUE = 'ingest';
export const LIVE_QUEUE = 'ingest-live';

export type IngestJob =
  | { name: 'reference'; data: Record<string, never> }
  | { name: 'backfill-session'; data: { seed: number; profile: ProfileName; date: string; level: Level; ticksLater?: boolean } }
  | { name: 'import-file'; data: { path: string } }
  | { name: 'live-session'; data: { seed: number; profile: ProfileName; date: string; speed: number } };

/** Retries with exponential back-off (2 s, 4 s, 8 s, ...); completed jobs kept for inspection. */
export const JOB_OPTIONS = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 7 * 86_400, count: 5_000 },
  removeOnFail: { age: 30 * 86_400 },
} as const;

export function bullConnection(config: Config): ConnectionOptions {
  // BullMQ's blocking commands must wait through Redis outages rather than fail.
  const seeds = parseRedisClusterUrl(config.redisUrl);
  if (seeds) return new Cluster(seeds, { redisOptions: { maxRetriesPerRequest: null } });
  const u = new URL(config.redisUrl);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    password: u.password || undefined,
    db: u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0,
    maxRetriesPerRequest: null,
  };
}

/**
 * BullMQ keys live under the deployment's key prefix, like every other key of the service. The
 * prefix is a hash tag: a queue's scripts touch several of its keys at once, which a Redis Cluster
 * allows only within one slot.
 */
export function bullPrefix(config: Config): string {
  return `{${config.keyPrefix}:bull}`;
}

export function openQueue(config: Config, name: string): Queue {
  const connection = bullConnection(config);
  return closingConnection(new Queue(name, { connection, prefix: bullPrefix(config), defaultJobOptions: JOB_OPTIONS }), connection);
}

export function openQueueEvents(config: Config, name: string): QueueEvents {
  const connection = bullConnection(config);
  return closingConnection(new QueueEvents(name, { connection, prefix: bullPrefix(config) }), connection);
}

/** BullMQ leaves a connection it was given as an instance (a cluster's) open: close it with its owner. */
function closingConnection<T extends { close(): Promise<void> }>(owner: T, connection: ConnectionOptions): T {
  if (!(connection instanceof Cluster)) return owner;
  const close = owner.close.bind(owner);
  owner.close = async () => {
    await close();
    connection.disconnect();
  };
  return owner;
}
