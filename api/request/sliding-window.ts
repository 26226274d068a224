import crypto from 'crypto';
import type { RedisClient as Redis } from '../../services/redis/client';

/**
 * A sliding-window request counter in Redis: one sorted set per bucket whose members are the
 * requests admitted in the last window, scored by the Redis clock in microseconds. One Lua script
 * prunes, counts, decides and records atomically, so any number of API processes share one exact
 * count (a fixed window lets up to twice the limit through across a boundary) and their own clocks
 * never matter. Refused requests are not recorded: a client that keeps knocking is served again as
 * soon as its oldest admitted request ages out.
 */

export interface WindowRule {
  /** Requests admitted per window. */
  limit: number;
  windowMs: number;
  /** Requests admitted per burst window on top of the window's limit; 0 turns the burst rule off. */
  burst: number;
  burstWindowMs: number;
}

export interface WindowDecision {
  /** Null when admitted; else the rule that refused it. */
  refusedBy: null | 'window' | 'burst';
  /** Requests counted in the window after this one (admitted requests only). */
  used: number;
  /** Microseconds until a refused request would be admitted (0 when admitted). */
  retryUs: number;
  /** Microseconds until the window holds no request at all (the bucket is full again). */
  resetUs: number;
}

/**
 * Numbers go to redis.call as numbers, which Redis formats exactly; concatenating them into strings
 * would use Lua's 14-digit format and lose the microseconds.
 */
export const SLIDING_WINDOW_LUA = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local windowUs = tonumber(ARGV[2]) * 1000
local burst = tonumber(ARGV[3])
local burstUs = tonumber(ARGV[4]) * 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowUs)
local count = redis.call('ZCARD', key)
local refused = 0
local retryUs = 0
if count >= limit then
  refused = 1
  local e = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  retryUs = tonumber(e[2]) + windowUs - now
elseif burst > 0 then
  local recent = redis.call('ZCOUNT', key, now - burstUs + 1, '+inf')
  if recent >= burst then
    refused = 2
    local e = redis.call('ZRANGE', key, count - recent, count - recent, 'WITHSCORES')
    retryUs = tonumber(e[2]) + burstUs - now
  end
end
if refused == 0 then
  redis.call('ZADD', key, now, ARGV[5])
  count = count + 1
end
local resetUs = 0
if count > 0 then
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  resetUs = tonumber(newest[2]) + windowUs - now
  redis.call('PEXPIRE', key, math.floor(resetUs / 1000) + 1)
end
return {refused, count, retryUs, resetUs}
`;

interface WithWindow {
  mdqSlidingWindow(key: string, ...args: (string | number)[]): Promise<[number, number, number, number]>;
}

/** Parses the script's reply; separate so the mapping is unit-tested without Redis. */
export function windowDecision(reply: readonly number[]): WindowDecision {
  const [refused, used, retryUs, resetUs] = reply.map(Number);
  return { refusedBy: refused === 1 ? 'window' : refused === 2 ? 'burst' : null, used, retryUs: Math.max(0, retryUs), resetUs: Math.max(0, resetUs) };
}

/** Whole seconds a client should wait, never 0 for a refusal (Retry-After: 0 invites a busy loop). */
export function ceilSeconds(us: number, min = 0): number {
  return Math.max(min, Math.ceil(us / 1e6));
}

export class SlidingWindow {
  /** Members must be unique within a bucket: this process's random tag and a counter. */
  private readonly tag = crypto.randomBytes(6).toString('base64url');
  private seq = 0;

  constructor(private readonly redis: Redis) {
    // ioredis runs it with EVALSHA and falls back to EVAL on NOSCRIPT (first use, or a Redis that
    // restarted with an empty script cache), so the script survives Redis restarts.
    if (!(redis as unknown as Partial<WithWindow>).mdqSlidingWindow) redis.defineCommand('mdqSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  }

  async take(key: string, rule: WindowRule): Promise<WindowDecision> {
    const member = `${this.tag}:${(this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER)}`;
    const reply = await (this.redis as unknown as WithWindow).mdqSlidingWindow(key, rule.limit, rule.windowMs, rule.burst, rule.burstWindowMs, member);
    return windowDecision(reply);
  }
}
