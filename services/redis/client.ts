import Redis from 'ioredis';
import type { Logger } from '../log';

/**
 * A Redis connection that survives Redis going away: commands fail fast while it is down (so an
 * API answers 503 instead of hanging) and the client reconnects by itself when it returns.
 */
export function createRedis(url: string, log?: Logger, opts: { failFast?: boolean; autoPipeline?: boolean } = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: opts.failFast ? 1 : 20,
    enableOfflineQueue: !opts.failFast,
    retryStrategy: (times) => Math.min(100 * times, 2_000),
    lazyConnect: false,
    // Commands issued in one event-loop tick (by every request in flight) leave in one socket
    // write: on this machine a write system call costs more than the command itself.
    enableAutoPipelining: opts.autoPipeline ?? false,
  });
  let down = false;
  redis.on('error', (err) => {
    if (!down) log?.warn({ err: err.message }, 'redis unavailable');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log?.info('redis available again');
    down = false;
  });
  return redis;
}

/** Resolves once the connection is ready (fail-fast clients reject commands until then). */
export function redisReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`redis not ready after ${timeoutMs} ms`)), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
