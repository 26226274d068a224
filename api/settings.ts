import { DEFAULT_QUOTA, QuotaSettings } from './request/quota';

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
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return n;
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
      perUser: positiveInt(env, 'MDQ_RATE_LIMIT_PER_MINUTE', DEFAULT_QUOTA.perUser),
      perAddress: positiveInt(env, 'MDQ_ANON_RATE_LIMIT_PER_MINUTE', DEFAULT_QUOTA.perAddress),
      windowMs: DEFAULT_QUOTA.windowMs,
    },
    trustProxy: trustProxy(env.TRUST_PROXY),
    redisAutoPipeline: env.MDQ_REDIS_AUTOPIPELINE !== '0' && env.MDQ_REDIS_AUTOPIPELINE !== 'false',
  };
}
