import type { RedisClient as Redis } from '../../services/redis/client';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { createRedis, redisReady } from '../../services/redis/client';
import { testConfig } from '../support/env';
import { TEST_KEY_SECRET } from '../support/http';
import { SpawnedApi, spawnApi } from '../support/raw-http';
import { recordFaultResults } from '../support/fault-results';

/**
 * The quota holds across API processes: two `api/main.ts` processes (as `npm run api` starts
 * them, with the default 240 per 60 s; one of them with two worker processes) on different ports,
 * against one Redis. Requests spread
 * over both, even all at once, draw on one exact budget: 240 pass in total and every other is
 * refused by either process. The burst rule is off here (MDQ_BURST_LIMIT_PER_SECOND=0) so the
 * 240 need not be paced at 20 a second; quota.test.ts tests it.
 */

const PATH = '/v1/news/tool/news-articles';
const config = testConfig('quota-shared');
let redis: Redis;
let a: SpawnedApi;
let b: SpawnedApi;
let key: string;

beforeAll(async () => {
  redis = createRedis(config.redisUrl);
  await redisReady(redis);
  ({ key } = await new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET).create({ workspace: 'w', user: 'shared-user', label: 'two processes' }));
  const env = { MDQ_BURST_LIMIT_PER_SECOND: '0' };
  // a runs two worker processes (as npm run api does on two cores), b one: three processes in all.
  [a, b] = await Promise.all([spawnApi(config, { ...env, MDQ_API_WORKERS: '2' }), spawnApi(config, env)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  redis.disconnect();
});

const post = (api: SpawnedApi) =>
  fetch(`${api.url}${PATH}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{"size":1}' });

it('two API processes on one Redis share one 240-per-60-s budget per user, exactly, under concurrent load', async () => {
  expect(a.port).not.toBe(b.port);
  // 300 requests at once, alternating between the processes, 30 in flight at a time per process.
  const statuses: number[] = [];
  const remaining: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 60 }, async (_, lane) => {
      while (next < 300) {
        next++;
        const res = await post(lane % 2 ? a : b);
        statuses.push(res.status);
        expect(res.headers.get('x-ratelimit-limit')).toBe('240');
        if (res.status === 200) remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
        await res.arrayBuffer();
      }
    }),
  );
  expect(statuses.filter((s) => s === 200)).toHaveLength(240);
  expect(statuses.filter((s) => s === 429)).toHaveLength(60);
  // Each admitted request saw its own place in the one shared count: 239 down to 0, once each.
  expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 240 }, (_, i) => i));
  for (const api of [a, b]) {
    const over = await post(api);
    expect(over.status).toBe(429);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await over.json()).toMatchObject({ status: 429, code: 'QuotaExceeded', type: '/docs/problems/rate-limit-exceeded', limit: 240, windowSeconds: 60 });
  }
  expect(await redis.zcard(`${config.keyPrefix}:quota:sliding:user:shared-user`)).toBe(240);
  expect(a.alive() && b.alive()).toBe(true);
  recordFaultResults({
    sharedQuota: {
      apiProcesses: 3,
      requests: statuses.length,
      passed: statuses.filter((s) => s === 200).length,
      refused429: statuses.filter((s) => s === 429).length,
      limit: 240,
    },
  });
});
