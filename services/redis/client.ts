import Redis, { Cluster } from 'ioredis';
import type { Logger } from '../log';
import { parseRedisClusterUrl } from './cluster-url';
import { slotPipeline, type ScriptKeys } from './slot-pipeline';

/**
 * A connection to one Redis or to a Redis Cluster (`redis+cluster://host:port,…`, see
 * cluster-url.ts). The code is written against both: every key of a view partition carries the
 * partition's hash tag, so a transaction or script touches one slot, and pipelines that read
 * across partitions are split per slot (slot-pipeline.ts).
 */
export type RedisClient = Redis | Cluster;

export interface RedisOptions {
  failFast?: boolean;
  autoPipeline?: boolean;
}

/**
 * A connection that survives Redis going away: commands fail fast while it is down (so an API
 * answers 503 instead of hanging) and the client reconnects by itself when it returns.
 */
export function createRedis(url: string, log?: Logger, opts: RedisOptions = {}): RedisClient {
  const seeds = parseRedisClusterUrl(url);
  const perNode = {
    maxRetriesPerRequest: opts.failFast ? 1 : 20,
    enableOfflineQueue: !opts.failFast,
    retryStrategy: (times: number) => Math.min(100 * times, 2_000),
    lazyConnect: false,
  };
  // Commands issued in one event-loop tick (by every request in flight) leave in one socket
  // write: on this machine a write system call costs more than the command itself.
  const enableAutoPipelining = opts.autoPipeline ?? false;
  const redis: RedisClient = seeds
    ? clusterClient(seeds, {
        redisOptions: perNode,
        enableOfflineQueue: !opts.failFast,
        maxRedirections: 16,
        clusterRetryStrategy: (times: number) => Math.min(100 * times, 2_000),
        enableAutoPipelining,
      })
    : new Redis(url, { ...perNode, enableAutoPipelining });
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) log?.warn({ err: err.message }, 'redis unavailable');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log?.info('redis available again');
    down = false;
  });
  return redis;
}

/** A cluster client whose pipelines may span slots, and which knows its scripts' key counts. */
function clusterClient(nodes: { host: string; port: number }[], options: ConstructorParameters<typeof Cluster>[1]): Cluster {
  const cluster = new Cluster(nodes, options);
  const scripts: ScriptKeys = new Map();
  const define = cluster.defineCommand.bind(cluster);
  cluster.defineCommand = (name, definition) => {
    scripts.set(name.toLowerCase(), definition.numberOfKeys ?? null);
    define(name, definition);
  };
  const native = cluster.pipeline.bind(cluster);
  cluster.pipeline = () => slotPipeline(cluster, () => native(), scripts);
  return cluster;
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}

/** The masters that hold the data: the one server, or every master of a cluster (for SCAN, INFO). */
export function dataNodes(redis: RedisClient): Redis[] {
  return isCluster(redis) ? redis.nodes('master') : [redis];
}

/** Resolves once the connection is ready (fail-fast clients reject commands until then). */
export function redisReady(redis: RedisClient, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`redis not ready after ${timeoutMs} ms`)), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** For tools that work on one server only (benchmarks, probes): refuses a cluster URL. */
export function createSingleRedis(url: string, log?: Logger, opts: RedisOptions = {}): Redis {
  const redis = createRedis(url, log, opts);
  if (isCluster(redis)) {
    redis.disconnect();
    throw new Error('this tool needs a single Redis, not a cluster URL');
  }
  return redis;
}

/**
 * Every key matching `pattern`, in batches, on every data node (SCAN on a cluster client would
 * visit one random node). Each batch comes from one node and may span slots.
 */
export async function scanKeys(redis: RedisClient, pattern: string, onBatch: (keys: string[]) => Promise<void>, count = 1000): Promise<void> {
  for (const node of dataNodes(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length) await onBatch(keys);
    } while (cursor !== '0');
  }
}

/** UNLINKs keys that may lie in different slots (one command per key on a cluster, pipelined). */
export async function unlinkKeys(redis: RedisClient, keys: readonly string[]): Promise<number> {
  if (!keys.length) return 0;
  if (!isCluster(redis)) return redis.unlink(...keys);
  const pipe = redis.pipeline();
  for (const k of keys) pipe.unlink(k);
  const res = (await pipe.exec()) ?? [];
  let n = 0;
  for (const [err, v] of res) {
    if (err) throw err;
    n += Number(v);
  }
  return n;
}
