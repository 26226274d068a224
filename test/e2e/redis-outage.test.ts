import { ENDPOINTS } from '../../api/endpoints';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { createRedis, redisReady } from '../../services/redis/client';
import { pointerKey } from '../../services/views/keys';
import { testConfig, waitFor } from '../support/env';
import { TEST_KEY_SECRET, startApi } from '../support/http';
import { privateRedis } from '../support/private-redis';
import { spawnApi } from '../support/raw-http';

/** Waits until the API's /readyz answers 503 with `redis: unreachable`, and returns its body. */
function readyzUnreachable(apiUrl: string, what: string) {
  return waitFor(
    what,
    async () => {
      const r = await fetch(`${apiUrl}/readyz`);
      const body = (await r.json()) as { checks?: { redis?: string } };
      return r.status === 503 && body.checks?.redis === 'unreachable' ? body : null;
    },
    10_000,
    200,
  );
}

/**
 * Redis briefly gone: the API answers 503 problems with Retry-After instead of crashing or
 * hanging, and serves again by itself once Redis is back. Uses a private redis-server so the
 * shared test stack is not disturbed.
 */
it('answers 503 while Redis is down and recovers when it returns', async () => {
  const { redis, up, remove } = await privateRedis();
  await up();
  const api = await startApi({ ...testConfig('outage'), redisUrl: redis.url, viewsRedisUrl: redis.url });
  try {
    const path_ = '/v1/news/tool/news-articles';
    expect((await api.post(path_, {})).status).toBe(200);

    await redis.stop();
    const down = await api.post(path_, {});
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    expect(down.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(down.json).toMatchObject({ type: '/docs/problems/internal', status: 503, category: 'internal', code: 'ServiceUnavailable' });

    await up(); // appendonly: the key store survives the restart
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await api.post(path_, {})).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
  } finally {
    await api.close();
    await remove();
  }
});

/**
 * The same for a real `api/main.ts` process, which even starts while Redis is down: it stays up
 * (liveness 200, readiness 503), answers 503 problems, and serves by itself once Redis is there;
 * then survives a second outage. The quota's Redis store recovers with it.
 */
it('an API process started while Redis is down stays up, answers 503, and recovers by itself, twice', async () => {
  const { redis, up, remove } = await privateRedis();
  const config = { ...testConfig('outage-proc'), redisUrl: redis.url, viewsRedisUrl: redis.url };
  // A key and a built view, persisted by Redis' append-only file across its restarts.
  await up();
  const client = createRedis(redis.url);
  await redisReady(client);
  const { key } = await new ApiKeyStore(client, config.keyPrefix, TEST_KEY_SECRET).create({ workspace: 'w', user: 'outage-user', label: 'l' });
  // Every view the endpoints read has a served version (readiness asks for each).
  for (const view of new Set(ENDPOINTS.flatMap((e) => e.views))) await client.set(pointerKey(config.keyPrefix, view), '1');
  client.disconnect();
  await redis.stop();

  const api = await spawnApi(config, {}, { awaitRedis: false });
  const data = () =>
    fetch(`${api.url}/v1/news/tool/news-articles`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: '{"size":1}',
    });
  const expectDown = async () => {
    const res = await data();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toMatchObject({ type: '/docs/problems/internal', status: 503, category: 'internal', code: 'ServiceUnavailable' });
    const ready = await readyzUnreachable(api.url, 'readyz to see Redis gone');
    expect(ready).toMatchObject({ code: 'NotReady', detail: 'Not ready: Redis is unreachable' });
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200); // alive: no restart wanted
    expect(api.alive()).toBe(true);
  };
  const expectRecovered = async () => {
    const res = await waitFor(
      'the API to serve again',
      async () => {
        const r = await data();
        return r.status === 200 ? r : null;
      },
      20_000,
      200,
    );
    expect(res.headers.get('ratelimit')).toMatch(/^"per-user"; r=\d+; t=\d+$/);
    await waitFor('readyz 200', async () => (await fetch(`${api.url}/readyz`)).status === 200, 10_000, 200);
  };
  try {
    await expectDown();
    await up();
    await expectRecovered();
    await redis.stop();
    await expectDown();
    await up();
    await expectRecovered();
    expect(api.alive()).toBe(true);
  } finally {
    await api.stop();
    await remove();
  }
});

/**
 * The views on a Redis of their own (VIEWS_REDIS_URL) that goes away while the keys' Redis stays:
 * an API process answers 503 problems (not 500s) and readiness says Redis is unreachable; once
 * the views' Redis is back, with what its snapshot kept (it persists without an append-only file
 * and saves when it is stopped), the API serves again by itself. The key and the quota, on the
 * other Redis, are never touched.
 */
it('the views Redis alone going away gives 503s, and the API recovers when it returns', async () => {
  const views = await privateRedis('views-redis');
  const config = { ...testConfig('outage-views'), viewsRedisUrl: views.redis.url };
  expect(config.redisUrl).not.toBe(views.redis.url);
  await views.up();
  const keys = createRedis(config.redisUrl);
  const viewsClient = createRedis(views.redis.url);
  await redisReady(keys);
  await redisReady(viewsClient);
  const { key } = await new ApiKeyStore(keys, config.keyPrefix, TEST_KEY_SECRET).create({ workspace: 'w', user: 'outage-views-user', label: 'l' });
  for (const view of new Set(ENDPOINTS.flatMap((e) => e.views))) await viewsClient.set(pointerKey(config.keyPrefix, view), '1');
  viewsClient.disconnect();
  // No response cache: an answer cached before the outage would be served during it (for its 1 s).
  const api = await spawnApi(config, { MDQ_API_CACHE_MB: '0' });
  const data = () =>
    fetch(`${api.url}/v1/news/tool/news-articles`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: '{"size":1}',
    });
  try {
    await waitFor('the API to serve', async () => (await data()).status === 200, 20_000, 200);
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);

    await views.redis.stop();
    const down = await waitFor(
      'a 503',
      async () => {
        const r = await data();
        return r.status === 200 ? null : r;
      },
      5_000,
      200,
    );
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    expect(await down.json()).toMatchObject({ type: '/docs/problems/internal', status: 503, category: 'internal', code: 'ServiceUnavailable' });
    const ready = await readyzUnreachable(api.url, 'readyz to see the views Redis gone');
    expect(ready).toMatchObject({ code: 'NotReady', detail: 'Not ready: Redis is unreachable' });
    // The keys' Redis was never down: the key is still there.
    expect(await keys.keys(`${config.keyPrefix}:*`)).not.toHaveLength(0);

    await views.up(); // the snapshot written at shutdown brings the view pointers back
    await waitFor('the API to serve again', async () => (await data()).status === 200, 20_000, 200);
    await waitFor('readyz 200', async () => (await fetch(`${api.url}/readyz`)).status === 200, 10_000, 200);
    expect(api.alive()).toBe(true);
  } finally {
    keys.disconnect();
    await api.stop();
    await views.remove();
  }
});
