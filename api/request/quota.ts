import crypto from 'crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RateLimitInfo, ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type Redis from 'ioredis';
import { RedisReply, RedisStore } from 'rate-limit-redis';
import type { Logger } from '../../services/log';
import { Problem } from './problem';

/**
 * The quota (spec "Limits": 240 requests per minute, a per-user quota, all endpoints).
 *
 * express-rate-limit with a Redis store: the counter lives in Redis, so every API process behind
 * the load balancer counts against the same number. Authenticated requests count against the
 * key's user (every key of one user shares one budget); requests without a valid key count
 * against the client address, with a smaller budget, so bad-key floods and guessing are slowed.
 *
 * Window: fixed, 60 s, starting at the user's first request (rate-limit-redis sets the counter
 * with a PX expiry on the first hit). Every counted request uses one unit, whatever its outcome.
 * Headers: RateLimit and RateLimit-Policy of IETF draft-ietf-httpapi-ratelimit-headers-08 on every
 * counted response; on excess a 429 QuotaExceeded problem with Retry-After (seconds to the reset).
 */

export interface QuotaSettings {
  /** Requests per window per user (the spec's 240). */
  perUser: number;
  /** Requests per window per client address, for requests without a valid key. */
  perAddress: number;
  /** Window length; 60 000 in production, shorter only in tests that wait for a reset. */
  windowMs: number;
}

export const DEFAULT_QUOTA: QuotaSettings = { perUser: 240, perAddress: 60, windowMs: 60_000 };

declare module 'express-serve-static-core' {
  interface Request {
    /** Set once the request has been counted, so no later middleware counts it again. */
    quotaCounted?: boolean;
    /** Set by express-rate-limit: limit, used, remaining, resetTime of the bucket counted. */
    rateLimit?: RateLimitInfo;
  }
}

/**
 * A rate-limit-redis store whose scripts never depend on Redis being up when the process starts.
 * The store loads its Lua scripts once, in init(), and keeps that promise: if Redis is away at
 * that moment, the rejected promise is kept and the limiter fails for the life of the process.
 * So SCRIPT LOAD is answered here (a script's SHA1 is a pure function of its text) and an EVALSHA
 * that meets NOSCRIPT (first use, or Redis restarted with an empty script cache) falls back to
 * EVAL with the remembered text, which also caches it in Redis again.
 */
function resilientRedisStore(redis: Redis, prefix: string): RedisStore {
  const scripts = new Map<string, string>();
  const sendCommand = async (command: string, ...args: string[]): Promise<RedisReply> => {
    const cmd = command.toUpperCase();
    if (cmd === 'SCRIPT' && args[0]?.toUpperCase() === 'LOAD') {
      const sha = crypto.createHash('sha1').update(args[1]).digest('hex');
      scripts.set(sha, args[1]);
      return sha;
    }
    if (cmd === 'EVALSHA' && scripts.has(args[0])) {
      try {
        return (await redis.call('EVALSHA', ...args)) as RedisReply;
      } catch (err) {
        if (!/^NOSCRIPT/.test((err as Error).message ?? '')) throw err;
        return (await redis.call('EVAL', scripts.get(args[0])!, ...args.slice(1))) as RedisReply;
      }
    }
    return (await redis.call(command, ...args)) as RedisReply;
  };
  return new RedisStore({ prefix, sendCommand });
}

function retryAfterSeconds(req: Request, windowMs: number): number {
  const reset = req.rateLimit?.resetTime;
  const ms = reset instanceof Date ? reset.getTime() - Date.now() : windowMs;
  return Math.max(1, Math.ceil(ms / 1000));
}

export function createQuota(o: { redis: Redis; keyPrefix: string; settings: QuotaSettings; log: Logger }): RequestHandler {
  const { redis, keyPrefix, settings, log } = o;
  const logger = {
    error: (err: unknown, msg?: string) => log.error({ err }, msg ?? 'rate limiter error'),
    warn: (err: unknown, msg?: string) => log.warn({ err }, msg ?? 'rate limiter warning'),
  };
  const common = {
    windowMs: settings.windowMs,
    standardHeaders: 'draft-8' as const,
    legacyHeaders: false,
    // A store error (Redis unreachable) goes to the error handler as a 503; it is not waved through.
    passOnStoreError: false,
    logger,
  };
  const perUser = rateLimit({
    ...common,
    limit: settings.perUser,
    identifier: 'per-user',
    store: resilientRedisStore(redis, `${keyPrefix}:quota:user:`),
    keyGenerator: (req) => req.apiKey!.user,
    handler: (req, _res, next) => {
      const s = retryAfterSeconds(req, settings.windowMs);
      next(
        new Problem(
          'QuotaExceeded',
          `The quota of ${settings.perUser} requests per ${settings.windowMs / 1000} s for user ${req.apiKey!.user} is used up; retry after ${s} s`,
          {
            headers: { 'Retry-After': String(s) },
          },
        ),
      );
    },
  });
  const perAddress = rateLimit({
    ...common,
    limit: settings.perAddress,
    identifier: 'per-address',
    store: resilientRedisStore(redis, `${keyPrefix}:quota:addr:`),
    // IPv6 clients are grouped by /56 (ipKeyGenerator), so one host cannot rotate addresses.
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    handler: (req, _res, next) => {
      const s = retryAfterSeconds(req, settings.windowMs);
      next(
        new Problem(
          'QuotaExceeded',
          `Requests without a valid API key are limited to ${settings.perAddress} per ${settings.windowMs / 1000} s per client address (${req.ip}); retry after ${s} s`,
          {
            headers: { 'Retry-After': String(s) },
          },
        ),
      );
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.quotaCounted) return next();
    req.quotaCounted = true;
    return (req.apiKey ? perUser : perAddress)(req, res, next);
  };
}
