import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { RedisClient as Redis } from '../../services/redis/client';
import { Problem } from './problem';
import { rateLimitHeaders } from './rate-limit-headers';
import { SlidingWindow, WindowDecision, WindowRule, ceilSeconds } from './sliding-window';

/**
 * The quota, as the vendor runs it (spec "Limits": 240 requests per minute per user; vendor
 * notes 1.2): a sliding 60 s window per user shared by all of the user's keys and every endpoint,
 * plus a burst rule of 20 requests per second per user. The count lives in Redis (sliding-window.ts)
 * so every API process draws on one exact budget. Requests without a valid key count against the
 * client address, with a smaller budget, so bad-key floods and key guessing are slowed.
 *
 * Every counted response, whatever its status, carries X-RateLimit-Limit/Remaining/Reset and the
 * IETF RateLimit headers; a refusal is a 429 problem with Retry-After and the vendor's extension
 * members (limit, windowSeconds, retryAfterSeconds; burstLimit, burstWindowSeconds for the burst).
 */

export interface QuotaSettings {
  /** Requests per window per user (the spec's 240). */
  perUser: number;
  /** Requests per window per client address, for requests without a valid key. */
  perAddress: number;
  /** Window length; 60 000 in production, shorter only in tests that wait for requests to age out. */
  windowMs: number;
  /** Requests per burst window per user (20); 0 turns the burst rule off. */
  burstPerUser: number;
  burstWindowMs: number;
}

export const DEFAULT_QUOTA: QuotaSettings = { perUser: 240, perAddress: 60, windowMs: 60_000, burstPerUser: 20, burstWindowMs: 1_000 };

declare module 'express-serve-static-core' {
  interface Request {
    /** Set once the request has been counted, so no later middleware counts it again. */
    quotaCounted?: boolean;
  }
}

const seconds = (ms: number) => ms / 1000;

function refusal(d: WindowDecision, rule: WindowRule, who: string): Problem {
  const burst = d.refusedBy === 'burst';
  const retryAfterSeconds = ceilSeconds(d.retryUs, 1);
  const detail = burst
    ? `Burst limit of ${rule.burst} requests per ${seconds(rule.burstWindowMs)} seconds exceeded${who}. Retry in ${retryAfterSeconds} seconds.`
    : `Rate limit of ${rule.limit} requests per ${seconds(rule.windowMs)} seconds exceeded${who}. Retry in ${retryAfterSeconds} seconds.`;
  return new Problem('QuotaExceeded', detail, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
    extensions: {
      limit: rule.limit,
      windowSeconds: seconds(rule.windowMs),
      retryAfterSeconds,
      ...(burst ? { burstLimit: rule.burst, burstWindowSeconds: seconds(rule.burstWindowMs) } : {}),
    },
  });
}

/**
 * The quota middleware, and `take`, which counts one request of `req`'s caller whenever called
 * (the middleware counts an HTTP request once): the MCP endpoint counts each tool call with it.
 * Either sets the quota headers on `res`; `take` resolves to the refusal, or null.
 */
export type Quota = RequestHandler & { take(req: Request, res: Response): Promise<Problem | null> };

export function createQuota(o: { redis: Redis; keyPrefix: string; settings: QuotaSettings }): Quota {
  const { keyPrefix, settings } = o;
  const window = new SlidingWindow(o.redis);
  const userRule: WindowRule = { limit: settings.perUser, windowMs: settings.windowMs, burst: settings.burstPerUser, burstWindowMs: settings.burstWindowMs };
  const addressRule: WindowRule = { limit: settings.perAddress, windowMs: settings.windowMs, burst: 0, burstWindowMs: settings.burstWindowMs };

  const count = async (req: Request, res: Response): Promise<Problem | null> => {
    const user = req.apiKey?.user;
    // IPv6 clients are grouped by /56 (ipKeyGenerator), so one host cannot rotate addresses.
    const partition = user ?? ipKeyGenerator(req.ip ?? 'unknown');
    const rule = user ? userRule : addressRule;
    // Keys of their own (sorted sets): the fixed window's counters (strings) may still be in Redis.
    const d = await window.take(`${keyPrefix}:quota:sliding:${user ? 'user' : 'addr'}:${partition}`, rule);
    const headers = rateLimitHeaders({
      policy: user ? 'per-user' : 'per-address',
      partition,
      limit: rule.limit,
      windowSeconds: seconds(rule.windowMs),
      // A refused request leaves nothing to spend now, whichever rule refused it (the vendor's 429s say 0).
      remaining: d.refusedBy ? 0 : Math.max(0, rule.limit - d.used),
      resetSeconds: ceilSeconds(d.resetUs),
    });
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    if (!d.refusedBy) return null;
    return refusal(d, rule, user ? '' : ` for requests without a valid API key from ${req.ip}`);
  };

  const middleware = (req: Request, res: Response, next: NextFunction) => {
    if (req.quotaCounted) return next();
    req.quotaCounted = true;
    // A store error (Redis unreachable) goes to the error handler as a 503; it is not waved through.
    count(req, res).then((p) => next(p ?? undefined), next);
  };
  return Object.assign(middleware, { take: count });
}
