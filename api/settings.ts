import os from 'os';
import { numberVar, positiveIntVar } from '../services/config';
import { DEFAULT_QUOTA, QuotaSettings } from './request/quota';
import { DEFAULT_RESPONSE_CACHE_MB } from './views/response-cache';

/**
 * Settings of the API process beyond the shared connection config (services/config.ts), from the
 * environment only. Kept here because no other process needs them.
 */
export interface ApiSettings {
  quota: QuotaSettings;
  /** Express 'trust proxy': which X-Forwarded-For hops to believe when finding the client address. */
  trustProxy: boolean | number | string;
  /** Auto-pipelining of the Redis client (MDQ_REDIS_AUTOPIPELINE, default on; `0` turns it off). */
  redisAutoPipeline: boolean;
  /** Response cache size in bytes (MDQ_API_CACHE_MB, default 64; `0` turns it off), per worker. */
  responseCacheBytes: number;
  /** API worker processes (MDQ_API_WORKERS, default one per core; `1`: a single process, no primary). */
  workers: number;
}

/** TRUST_PROXY: unset/false (direct clients), true, a hop count, or addresses/subnets ('loopback, 10.0.0.0/8'). */
function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

export function loadApiSettings(env: NodeJS.ProcessEnv = process.env): ApiSettings {
  return {
    quota: {
      perUser: positiveIntVar('MDQ_RATE_LIMIT_PER_MINUTE', DEFAULT_QUOTA.perUser, env),
      perAddress: positiveIntVar('MDQ_ANON_RATE_LIMIT_PER_MINUTE', DEFAULT_QUOTA.perAddress, env),
      // Shorter windows only for tests that spawn API processes and wait for requests to age out.
      windowMs: positiveIntVar('MDQ_RATE_LIMIT_WINDOW_MS', DEFAULT_QUOTA.windowMs, env),
      burstPerUser: numberVar(
        'MDQ_BURST_LIMIT_PER_SECOND',
        DEFAULT_QUOTA.burstPerUser,
        'an integer, 0 (off) or more',
        (v) => Number.isSafeInteger(v) && v >= 0,
        env,
      ),
      burstWindowMs: DEFAULT_QUOTA.burstWindowMs,
    },
    trustProxy: trustProxy(env.TRUST_PROXY),
    redisAutoPipeline: env.MDQ_REDIS_AUTOPIPELINE !== '0' && env.MDQ_REDIS_AUTOPIPELINE !== 'false',
    responseCacheBytes:
      numberVar('MDQ_API_CACHE_MB', DEFAULT_RESPONSE_CACHE_MB, 'a number of MiB, 0 or more', (v) => Number.isFinite(v) && v >= 0 && v <= 1_000_000, env) *
      2 ** 20,
    workers: positiveIntVar('MDQ_API_WORKERS', os.availableParallelism(), env, 64),
  };
}
