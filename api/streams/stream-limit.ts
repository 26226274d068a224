import type { RedisClient as Redis } from '../../services/redis/client';

/**
 * Concurrent streams per user, counted across every API process: a hash per user, one field per
 * open stream whose value is when it expires. A stream renews its field while it runs and removes
 * it when it ends; a process that dies without removing its fields frees them when they expire.
 */

// KEYS[1] the user's hash; ARGV: stream id, now (ms), expiry (ms), limit. Returns 1 if admitted.
const ACQUIRE = `local now = tonumber(ARGV[2])
local all = redis.call('HGETALL', KEYS[1])
local open = 0
for i = 1, #all, 2 do
  if tonumber(all[i + 1]) <= now then redis.call('HDEL', KEYS[1], all[i]) else open = open + 1 end
end
if open >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1`;

// Renews a stream's field only if it is still there (a stream dropped by expiry stays dropped).
const RENEW = `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return 1`;

export class StreamLimit {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    readonly perUser: number,
    private readonly leaseMs: number = 60_000,
  ) {}

  private key(user: string): string {
    return `${this.keyPrefix}:streams:${user}`;
  }

  /** Takes a slot for a stream; false when the user already has `perUser` streams open. */
  async acquire(user: string, streamId: string): Promise<boolean> {
    const now = Date.now();
    return (await this.redis.eval(ACQUIRE, 1, this.key(user), streamId, String(now), String(now + this.leaseMs), String(this.perUser))) === 1;
  }

  /** Extends a stream's lease; call well within leaseMs. */
  async renew(user: string, streamId: string): Promise<void> {
    const until = Date.now() + this.leaseMs;
    await this.redis.eval(RENEW, 1, this.key(user), streamId, String(until), String(this.leaseMs));
  }

  async release(user: string, streamId: string): Promise<void> {
    await this.redis.hdel(this.key(user), streamId);
  }

  get renewEveryMs(): number {
    return Math.floor(this.leaseMs / 3);
  }
}
