import type { RedisClient as Redis } from '../../services/redis/client';
import { DEFAULT_QUOTA, QuotaSettings } from '../../api/request/quota';
import { createRedis, redisReady } from '../../services/redis/client';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { RawResponse, rawRequest } from '../support/raw-http';

/**
 * The quota over HTTP against the test Redis, as the vendor runs it: a sliding window of 240
 * requests per user (shared by every key of the user, counted for every outcome) and a burst rule
 * of 20 a second; requests without a valid key limited per client address; X-RateLimit-* and IETF
 * RateLimit headers on every counted response; 429 problems with Retry-After and the vendor's
 * extension members. Windows are shortened where a test waits for requests to age out.
 * (Sharing across API processes: quota-shared.test.ts.)
 */

const PATH = '/v1/news/tool/news-articles';
const config = testConfig('quota');
let redis: Redis;
const apis: TestApi[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api(opts: Parameters<typeof startApi>[1]): Promise<TestApi> {
  const a = await startApi(config, opts);
  apis.push(a);
  return a;
}

const quota = (q: Partial<QuotaSettings>): QuotaSettings => ({ ...DEFAULT_QUOTA, burstPerUser: 0, ...q });

beforeAll(async () => {
  redis = createRedis(config.redisUrl);
  await redisReady(redis);
});

afterAll(async () => {
  for (const a of apis) await a.close();
  redis.disconnect();
});

type AnyHeaders = Headers | RawResponse['headers'];
const header = (headers: AnyHeaders, h: string) => (headers instanceof Headers ? headers.get(h) : ((headers[h] as string | undefined) ?? null));

/** The vendor's three headers and the IETF pair, consistent with each other; returns the numbers. */
function expectQuotaHeaders(headers: AnyHeaders, limit: number, windowSeconds: number, policy = 'per-user'): { remaining: number; reset: number } {
  expect(header(headers, 'x-ratelimit-limit')).toBe(String(limit));
  const remaining = Number(header(headers, 'x-ratelimit-remaining'));
  const reset = Number(header(headers, 'x-ratelimit-reset'));
  expect(Number.isInteger(remaining) && remaining >= 0 && remaining <= limit).toBe(true);
  expect(Number.isInteger(reset) && reset >= 0 && reset <= windowSeconds).toBe(true);
  expect(header(headers, 'ratelimit')).toBe(`"${policy}"; r=${remaining}; t=${reset}`);
  expect(header(headers, 'ratelimit-policy')).toMatch(new RegExp(`^"${policy}"; q=${limit}; w=${windowSeconds}; pk=:[A-Za-z0-9+/=]+:$`));
  return { remaining, reset };
}

/** A 429 rate-limit problem; returns its Retry-After. */
function expectRateLimited(status: number, headers: AnyHeaders, json: any, limit: number, windowSeconds: number): number {
  expect(status).toBe(429);
  expect(header(headers, 'content-type')).toMatch(/^application\/problem\+json/);
  expect(json).toMatchObject({
    type: '/docs/problems/rate-limit-exceeded',
    title: 'Rate Limit Exceeded',
    status: 429,
    category: 'rate-limit-exceeded',
    code: 'QuotaExceeded',
    limit,
    windowSeconds,
  });
  expect(json.instance).toMatch(/^\//);
  expect(json.requestId).toBe(header(headers, 'x-request-id'));
  const retryAfter = Number(header(headers, 'retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expect(json.retryAfterSeconds).toBe(retryAfter);
  expect(json.detail).toContain(`Retry in ${retryAfter} seconds.`);
  expect(expectQuotaHeaders(headers, limit, windowSeconds, header(headers, 'ratelimit')!.split(';')[0].slice(1, -1)).remaining).toBe(0);
  return retryAfter;
}

/** Milliseconds until the oldest request in a user's window leaves it, by the Redis clock. */
async function untilOldestLeaves(user: string, windowMs: number): Promise<number> {
  const [, score] = await redis.zrange(`${config.keyPrefix}:quota:sliding:user:${user}`, 0, 0, 'WITHSCORES');
  const [s, us] = await redis.time();
  return Number(score) / 1000 + windowMs - (Number(s) * 1000 + Number(us) / 1000);
}

it('240 in a sliding window pass, the 241st is refused, and the first request after the oldest ages out is served', async () => {
  // The real 240, an 8 s window so the test need not wait a minute, no burst rule (tested below).
  const a = await api({ quota: quota({ windowMs: 8_000 }), owner: { workspace: 'w1', user: 'sliding-240' } });
  const t0 = Date.now();
  for (let i = 1; i <= 240; i++) {
    const res = await a.post(PATH, { size: 1 });
    expect(res.status).toBe(200);
    expect(expectQuotaHeaders(res.headers, 240, 8).remaining).toBe(240 - i);
  }
  // Otherwise the first requests would already have left the window (a machine far too slow).
  expect(Date.now() - t0).toBeLessThan(7_000);
  const over = await a.post(PATH, { size: 1 });
  const retryAfter = expectRateLimited(over.status, over.headers, over.json, 240, 8);
  expect(over.json.detail).toBe(`Rate limit of 240 requests per 8 seconds exceeded. Retry in ${retryAfter} seconds.`);
  expect(over.json).not.toHaveProperty('burstLimit');
  // Refusals are not recorded: the window holds the 240 admitted requests.
  expect(await redis.zcard(`${config.keyPrefix}:quota:sliding:user:sliding-240`)).toBe(240);
  // Retry-After is the wait until the oldest leaves, rounded up (measured a moment later here).
  const wait = await untilOldestLeaves('sliding-240', 8_000);
  expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil(wait / 1000));
  expect(retryAfter).toBeLessThanOrEqual(Math.ceil(wait / 1000) + 1);
  await sleep(wait + 50);
  const again = await a.post(PATH, { size: 1 });
  expect(again.status).toBe(200);
});

it('the window slides: requests age out one by one, not all at once as in a fixed window', async () => {
  const a = await api({ quota: quota({ perUser: 3, windowMs: 3_000 }), owner: { workspace: 'w', user: 'slides' } });
  expect((await a.post(PATH, {})).status).toBe(200); // the oldest
  await sleep(1_500);
  expect((await a.post(PATH, {})).status).toBe(200);
  expect((await a.post(PATH, {})).status).toBe(200);
  const over = await a.post(PATH, {});
  expectRateLimited(over.status, over.headers, over.json, 3, 3);
  // Once only the oldest has left: one request passes, the next is refused again, which a window
  // reset at the oldest's expiry would have let through.
  await sleep((await untilOldestLeaves('slides', 3_000)) + 50);
  const one = await a.post(PATH, {});
  expect(one.status).toBe(200);
  expect(expectQuotaHeaders(one.headers, 3, 3).remaining).toBe(0);
  const refused = await a.post(PATH, {});
  const retryAfter = expectRateLimited(refused.status, refused.headers, refused.json, 3, 3);
  expect(retryAfter).toBeLessThanOrEqual(2);
});

it('the burst rule: of 21 requests within one second the 21st is refused, with burstLimit and burstWindowSeconds', async () => {
  const a = await api({ quota: DEFAULT_QUOTA, owner: { workspace: 'w', user: 'burst-user' } });
  // 21 at once. Should a loaded machine spread them over more than a second, all pass, rightly:
  // the Redis times of the admitted requests show it, and the round is repeated.
  let results: Awaited<ReturnType<TestApi['post']>>[] = [];
  for (let round = 0; round < 3; round++) {
    if (round > 0) await sleep(1_100);
    results = await Promise.all(Array.from({ length: 21 }, () => a.post(PATH, { size: 1 })));
    if (results.some((r) => r.status === 429)) break;
    const scores = (await redis.zrange(`${config.keyPrefix}:quota:sliding:user:burst-user`, -21, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    expect(scores[20] - scores[0]).toBeGreaterThan(1_000_000);
  }
  const refused = results.filter((r) => r.status === 429);
  expect(results.filter((r) => r.status === 200)).toHaveLength(20);
  expect(refused).toHaveLength(1);
  const [r] = refused;
  const retryAfter = expectRateLimited(r.status, r.headers, r.json, 240, 60);
  expect(retryAfter).toBe(1);
  expect(r.json).toMatchObject({ burstLimit: 20, burstWindowSeconds: 1, retryAfterSeconds: 1 });
  expect(r.json.detail).toBe('Burst limit of 20 requests per 1 seconds exceeded. Retry in 1 seconds.');
  // A second later the burst has passed; the minute's budget still counts every admitted request.
  await sleep(1_100);
  const used = await redis.zcard(`${config.keyPrefix}:quota:sliding:user:burst-user`);
  const next = await a.post(PATH, { size: 1 });
  expect(next.status).toBe(200);
  expect(expectQuotaHeaders(next.headers, 240, 60).remaining).toBe(240 - used - 1);
});

it('every response of a user carries the quota headers: 200, 400, 401 of another caller, 404, 405 and 429', async () => {
  const a = await api({ quota: quota({ perUser: 6 }), owner: { workspace: 'w', user: 'headers-user' } });
  const ok = await a.post(PATH, { size: 1 });
  expect(ok.status).toBe(200);
  const first = expectQuotaHeaders(ok.headers, 6, 60);
  expect(first.remaining).toBe(5);
  expect(first.reset).toBeGreaterThanOrEqual(59);
  const bad = await a.post(PATH, { size: 0 });
  expect(bad.status).toBe(400);
  expect(expectQuotaHeaders(bad.headers, 6, 60).remaining).toBe(4);
  const nf = await a.post('/v1/news/tool/no-such-endpoint', {});
  expect(nf.status).toBe(404);
  expect(expectQuotaHeaders(nf.headers, 6, 60).remaining).toBe(3);
  const wrongMethod = await fetch(`${a.url}${PATH}`, { headers: { Authorization: `Bearer ${a.key}` } });
  expect(wrongMethod.status).toBe(405);
  expect(expectQuotaHeaders(wrongMethod.headers, 6, 60).remaining).toBe(2);
  // Without a valid key the request counts against the client address, with its own limit.
  const unauth = await a.post(PATH, {}, { Authorization: `Bearer mdq_${'q'.repeat(31)}` });
  expect(unauth.status).toBe(401);
  expectQuotaHeaders(unauth.headers, 60, 60, 'per-address');
  for (let i = 0; i < 2; i++) expect((await a.post(PATH, {})).status).toBe(200);
  const over = await a.post(PATH, {});
  expectRateLimited(over.status, over.headers, over.json, 6, 60);
});

it('every key of one user draws on one quota; another user has their own', async () => {
  const a = await api({ quota: quota({ perUser: 5 }), owner: { workspace: 'acme', user: 'alice' } });
  const second = await a.store.create({ workspace: 'globex', user: 'alice', label: 'second key, other workspace' });
  const bob = await a.store.create({ workspace: 'acme', user: 'bob', label: 'bob' });
  const as = (key: string) => ({ Authorization: `Bearer ${key}` });
  for (let i = 0; i < 3; i++) expect((await a.post(PATH, {})).status).toBe(200);
  for (let i = 0; i < 2; i++) expect((await a.post(PATH, {}, as(second.key))).status).toBe(200);
  const over1 = await a.post(PATH, {});
  const over2 = await a.post(PATH, {}, as(second.key));
  expectRateLimited(over1.status, over1.headers, over1.json, 5, 60);
  expectRateLimited(over2.status, over2.headers, over2.json, 5, 60);
  const other = await a.post(PATH, {}, as(bob.key));
  expect(other.status).toBe(200);
  expect(other.headers.get('x-ratelimit-remaining')).toBe('4');
});

describe('requests without a valid key', () => {
  it('are limited per client address (default 60 a minute): the 61st is a 429, other addresses and valid keys are unaffected', async () => {
    const a = await api({ quota: DEFAULT_QUOTA, owner: { workspace: 'w', user: 'anon-test-user' } });
    const badKey = { Authorization: `Bearer mdq_${'x'.repeat(31)}`, 'Content-Type': 'application/json' };
    for (let i = 1; i <= 60; i++) {
      const res = await rawRequest(`${a.url}${PATH}`, { method: 'POST', headers: badKey, body: '{}', localAddress: '127.0.0.2' });
      expect(res.status).toBe(401);
      expect(expectQuotaHeaders(res.headers, 60, 60, 'per-address').remaining).toBe(60 - i);
    }
    const over = await rawRequest(`${a.url}${PATH}`, { method: 'POST', headers: badKey, body: '{}', localAddress: '127.0.0.2' });
    expectRateLimited(over.status, over.headers, over.json, 60, 60);
    expect(over.json.detail).toMatch(/^Rate limit of 60 requests per 60 seconds exceeded for requests without a valid API key from 127\.0\.0\.2\./);
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
    expectQuotaHeaders(ok.headers, 240, 60, 'per-user');
  });

  it('operations endpoints are never limited and carry no quota headers', async () => {
    const a = await api({ quota: quota({ perUser: 2, perAddress: 2 }) });
    for (let i = 0; i < 6; i++) {
      for (const path of ['/healthz', '/metrics']) {
        const res = await rawRequest(`${a.url}${path}`, { localAddress: '127.0.0.4' });
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
        expect(res.headers.ratelimit).toBeUndefined();
      }
    }
  });
});
