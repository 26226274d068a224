/**
 * Redis CPU per quota check, which the API-side A/B (api-request-cost.ts) cannot see: a private
 * redis-server (nothing else runs on it) answers the sliding-window script (api/request/sliding-window.ts)
 * and, for comparison, the fixed-window script of rate-limit-redis that it replaced; the server's
 * own CPU time (INFO cpu) divided by the calls is the cost of one check.
 *
 *   npx tsx test/bench/quota-redis-cost.ts [--calls 20000]
 *
 * Cases: admitted checks while each of 100 users' windows fills from 0 to 200 requests (the
 * common case, a sorted set of up to 200 members); refused checks against full 240-request
 * windows (ZRANGE on the set, no write); the fixed window's INCR. Results to quota-redis-cost.json.
 */
import fs from 'fs';
import path from 'path';
import Redis from 'ioredis';
import { SlidingWindow } from '../../api/request/sliding-window';
import { repoRoot } from '../../services/stack/paths';
import { privateRedis } from '../support/private-redis';

const args = process.argv.slice(2);
const CALLS = Number(args[args.indexOf('--calls') + 1] || 20_000);
const IN_FLIGHT = 50;

/** The fixed-window script of rate-limit-redis 4 (the store the quota used before). */
const FIXED_WINDOW = `local windowMs = tonumber(ARGV[1])
local timeToExpire = redis.call("PTTL", KEYS[1])
if timeToExpire <= 0 then
redis.call("SET", KEYS[1], 1, "PX", windowMs)
return { 1, windowMs }
end
local totalHits = redis.call("INCR", KEYS[1])
return { totalHits, timeToExpire }`;

async function serverCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const v = (k: string) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)![1]);
  return v('used_cpu_user') + v('used_cpu_sys');
}

/** Runs `calls` checks, IN_FLIGHT at a time; Redis CPU microseconds per call. */
async function measure(redis: Redis, calls: number, one: (i: number) => Promise<unknown>): Promise<number> {
  const cpu0 = await serverCpuSeconds(redis);
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < calls) await one(next++);
    }),
  );
  return Math.round((((await serverCpuSeconds(redis)) - cpu0) / calls) * 1e7) / 10;
}

async function main(): Promise<void> {
  const server = await privateRedis('redis');
  await server.up();
  const redis = new Redis(server.redis.url);
  try {
    const window = new SlidingWindow(redis);
    const users = 100;
    const admitted = { limit: 240, windowMs: 60_000, burst: 1_000_000, burstWindowMs: 1_000 };
    const perUser = Math.min(200, Math.floor(CALLS / users));
    const sliding = await measure(redis, users * perUser, (i) => window.take(`q:u${i % users}`, admitted));
    // Fill 100 other users to the limit, then knock: every check is refused.
    for (let u = 0; u < users; u++) for (let k = 0; k < 240; k++) await window.take(`q:full${u}`, admitted);
    const refused = await measure(redis, CALLS, (i) => window.take(`q:full${i % users}`, admitted));
    redis.defineCommand('fixedWindow', { numberOfKeys: 1, lua: FIXED_WINDOW });
    const fixed = await measure(redis, CALLS, (i) =>
      (redis as unknown as { fixedWindow: (k: string, w: number) => Promise<unknown> }).fixedWindow(`f:u${i % users}`, 60_000),
    );
    const results = {
      measuredAt: new Date().toISOString(),
      machine: '2 cores shared; a private redis-server, 50 checks in flight',
      redisCpuMicrosecondsPerCheck: { slidingAdmitted: sliding, slidingRefusedFullWindow: refused, fixedWindowBefore: fixed },
    };
    console.log(JSON.stringify(results));
    const file = path.join(repoRoot, 'test/bench/results/quota-redis-cost.json');
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results written to ${path.relative(process.cwd(), file)}`);
  } finally {
    redis.disconnect();
    await server.remove();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
