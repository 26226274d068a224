import type Redis from 'ioredis';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { createRedis, redisReady } from '../../services/redis/client';
import { testConfig } from '../support/env';
import { TEST_KEY_SECRET } from '../support/http';
import { SpawnedApi, spawnApi } from '../support/raw-http';

/**
 * The quota holds across API processes: two `api/main.ts` processes (as `npm run api` starts
 * them, with the default 240 per minute) on different ports, against one Redis. Requests spread
 * over both draw on one budget: 240 pass in total and the 241st is refused by either process.
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
  [a, b] = await Promise.all([spawnApi(config), spawnApi(config)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  redis.disconnect();
});

const post = (api: SpawnedApi) =>
  fetch(`${api.url}${PATH}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{"size":1}' });

it('two API processes on one Redis share one 240-a-minute quota per user', async () => {
  expect(a.port).not.toBe(b.port);
  for (let i = 1; i <= 240; i++) {
    const res = await post(i % 2 ? a : b);
    expect(res.status).toBe(200);
    // The remaining count is the shared one, whichever process answered.
    expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"per-user"; r=${240 - i}; t=\\d+$`));
    await res.arrayBuffer();
  }
  for (const api of [a, b]) {
    const over = await post(api);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await over.json()).toMatchObject({ status: 429, category: 'quota', code: 'QuotaExceeded', type: '/docs/problems/quota-exceeded' });
  }
  expect(Number(await redis.get(`${config.keyPrefix}:quota:user:shared-user`))).toBe(242);
  expect(a.alive() && b.alive()).toBe(true);
});
