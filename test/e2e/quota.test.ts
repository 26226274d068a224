import type Redis from 'ioredis';
import { DEFAULT_QUOTA } from '../../api/request/quota';
import { createRedis, redisReady } from '../../services/redis/client';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { RawResponse, rawRequest } from '../support/raw-http';

/**
 * The quota over HTTP against the test Redis: 240 requests per minute per user (the real
 * default), shared by every key of a user, counted for every outcome; requests without a valid
 * key limited per client address; IETF draft-08 RateLimit headers; 429 problems with Retry-After.
 * (Sharing across API processes: quota-shared.test.ts.)
 */

const PATH = '/v1/news/tool/news-articles';
const config = testConfig('quota');
let redis: Redis;
const apis: TestApi[] = [];

async function api(opts: Parameters<typeof startApi>[1]): Promise<TestApi> {
  const a = await startApi(config, opts);
  apis.push(a);
  return a;
}

beforeAll(async () => {
  redis = createRedis(config.redisUrl);
  await redisReady(redis);
});

afterAll(async () => {
  for (const a of apis) await a.close();
  redis.disconnect();
});

/** Parses `"name"; r=12; t=60` (draft-08 RateLimit) or `"name"; q=240; w=60; pk=:..:` (RateLimit-Policy). */
function params(header: string | null | undefined): { name: string; [k: string]: string } {
  expect(header).toBeTruthy();
  const [name, ...rest] = String(header)
    .split(';')
    .map((s) => s.trim());
  return { name: JSON.parse(name), ...Object.fromEntries(rest.map((p) => p.split('=') as [string, string])) };
}

function expectQuotaProblem(status: number, headers: Headers | RawResponse['headers'], json: any): number {
  const get = (h: string) => (headers instanceof Headers ? headers.get(h) : (headers[h] as string | undefined));
  expect(status).toBe(429);
  expect(get('content-type')).toMatch(/^application\/problem\+json/);
  expect(json).toMatchObject({ type: '/docs/problems/quota-exceeded', title: 'Quota exceeded', status: 429, category: 'quota', code: 'QuotaExceeded' });
  expect(json.instance).toBe(get('x-request-id'));
  const retryAfter = Number(get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(json.detail).toContain(`retry after ${retryAfter} s`);
  return retryAfter;
}

it('the real default: 240 requests a minute per user pass, the 241st is a 429 problem with Retry-After', async () => {
  const a = await api({ quota: DEFAULT_QUOTA, owner: { workspace: 'w1', user: 'default-quota-user' } });
  for (let i = 1; i <= 240; i++) {
    const res = await a.post(PATH, { size: 1 });
    expect(res.status).toBe(200);
    // Every counted response says how many requests remain and the policy behind it.
    expect(params(res.headers.get('ratelimit'))).toMatchObject({ name: 'per-user', r: String(240 - i) });
    if (i === 1) {
      expect(params(res.headers.get('ratelimit-policy'))).toMatchObject({ name: 'per-user', q: '240', w: '60' });
      expect(Number(params(res.headers.get('ratelimit')).t)).toBeGreaterThan(55);
    }
  }
  const over = await a.post(PATH, { size: 1 });
  expectQuotaProblem(over.status, over.headers, over.json);
  expect(over.json.detail).toMatch(/quota of 240 requests per 60 s for user default-quota-user/);
  expect(params(over.headers.get('ratelimit'))).toMatchObject({ name: 'per-user', r: '0' });
  // The counter lives in Redis (shared by every API process), expiring with the window.
  const ttl = await redis.pttl(`${config.keyPrefix}:quota:user:default-quota-user`);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(60_000);
});

it('every key of one user draws on one quota; another user has their own', async () => {
  const a = await api({ quota: { perUser: 5, perAddress: 100, windowMs: 60_000 }, owner: { workspace: 'acme', user: 'alice' } });
  const second = await a.store.create({ workspace: 'globex', user: 'alice', label: 'second key, other workspace' });
  const bob = await a.store.create({ workspace: 'acme', user: 'bob', label: 'bob' });
  const as = (key: string) => ({ Authorization: `Bearer ${key}` });
  for (let i = 0; i < 3; i++) expect((await a.post(PATH, {})).status).toBe(200);
  for (let i = 0; i < 2; i++) expect((await a.post(PATH, {}, as(second.key))).status).toBe(200);
  const over1 = await a.post(PATH, {});
  const over2 = await a.post(PATH, {}, as(second.key));
  expectQuotaProblem(over1.status, over1.headers, over1.json);
  expectQuotaProblem(over2.status, over2.headers, over2.json);
  const other = await a.post(PATH, {}, as(bob.key));
  expect(other.status).toBe(200);
  expect(params(other.headers.get('ratelimit')).r).toBe('4');
});

it('every request counts, whatever its outcome or endpoint: 400, 404 and 405 use the quota too', async () => {
  const a = await api({ quota: { perUser: 4, perAddress: 100, windowMs: 60_000 }, owner: { workspace: 'w', user: 'counts-everything' } });
  expect((await a.post(PATH, { size: 1 })).status).toBe(200);
  expect((await a.post(PATH, { size: 0 })).status).toBe(400);
  expect((await a.post('/v1/news/tool/no-such-endpoint', {})).status).toBe(404);
  const wrongMethod = await fetch(`${a.url}${PATH}`, { headers: { Authorization: `Bearer ${a.key}` } });
  expect(wrongMethod.status).toBe(405);
  expect(params(wrongMethod.headers.get('ratelimit')).r).toBe('0');
  const over = await a.post(PATH, { size: 1 });
  expectQuotaProblem(over.status, over.headers, over.json);
});

it('the window is fixed: after Retry-After seconds the user is served again', async () => {
  // A 4 s window: long enough that a busy machine cannot let it lapse between the three requests.
  const a = await api({ quota: { perUser: 2, perAddress: 100, windowMs: 4_000 }, owner: { workspace: 'w', user: 'window-user' } });
  expect((await a.post(PATH, {})).status).toBe(200);
  expect((await a.post(PATH, {})).status).toBe(200);
  const over = await a.post(PATH, {});
  const retryAfter = expectQuotaProblem(over.status, over.headers, over.json);
  expect(retryAfter).toBeLessThanOrEqual(4);
  await new Promise((r) => setTimeout(r, retryAfter * 1000 + 100));
  const again = await a.post(PATH, {});
  expect(again.status).toBe(200);
  expect(params(again.headers.get('ratelimit')).r).toBe('1');
});

describe('requests without a valid key', () => {
  it('are limited per client address (default 60 a minute): the 61st is a 429, other addresses and valid keys are unaffected', async () => {
    const a = await api({ quota: DEFAULT_QUOTA, owner: { workspace: 'w', user: 'anon-test-user' } });
    const badKey = { Authorization: `Bearer mdq_${'x'.repeat(31)}`, 'Content-Type': 'application/json' };
    for (let i = 1; i <= 60; i++) {
      const res = await rawRequest(`${a.url}${PATH}`, { method: 'POST', headers: badKey, body: '{}', localAddress: '127.0.0.2' });
      expect(res.status).toBe(401);
      expect(params(res.headers.ratelimit as string)).toMatchObject({ name: 'per-address', r: String(60 - i) });
    }
    const over = await rawRequest(`${a.url}${PATH}`, { method: 'POST', headers: badKey, body: '{}', localAddress: '127.0.0.2' });
    expectQuotaProblem(over.status, over.headers, over.json);
    expect(over.json.detail).toMatch(/without a valid API key are limited to 60 per 60 s per client address \(127\.0\.0\.2\)/);
    expect(params(over.headers['ratelimit-policy'] as string)).toMatchObject({ name: 'per-address', q: '60', w: '60' });
    // Unknown routes and the public reference count against the same address budget.
    expect((await rawRequest(`${a.url}/no/such/path`, { localAddress: '127.0.0.2' })).status).toBe(429);
    expect((await rawRequest(`${a.url}/v1/openapi.json`, { localAddress: '127.0.0.2' })).status).toBe(429);
    // Another address has its own budget.
    expect((await rawRequest(`${a.url}${PATH}`, { method: 'POST', headers: badKey, body: '{}', localAddress: '127.0.0.3' })).status).toBe(401);
    // A valid key from the throttled address is counted against its user, not the address.
    const ok = await rawRequest(`${a.url}${PATH}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.key}`, 'Content-Type': 'application/json' },
      body: '{}',
      localAddress: '127.0.0.2',
    });
    expect(ok.status).toBe(200);
    expect(params(ok.headers.ratelimit as string).name).toBe('per-user');
  });

  it('operations endpoints are never limited and carry no quota headers', async () => {
    const a = await api({ quota: { perUser: 2, perAddress: 2, windowMs: 60_000 } });
    for (let i = 0; i < 6; i++) {
      for (const path of ['/healthz', '/metrics']) {
        const res = await rawRequest(`${a.url}${path}`, { localAddress: '127.0.0.4' });
        expect(res.status).toBe(200);
        expect(res.headers.ratelimit).toBeUndefined();
      }
    }
  });
});
