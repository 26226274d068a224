import type { Server } from 'http';
import type { AddressInfo } from 'net';
import { AppDeps, configureServer, createApp } from '../../api/app';
import type { QuotaSettings } from '../../api/request/quota';
import { ApiKeyStore } from '../../services/auth/api-keys';
import type { Config } from '../../services/config';
import { createLogger } from '../../services/log';
import { createRedis, redisReady } from '../../services/redis/client';
import { phase } from './phase-profile';

export interface TestApi {
  url: string;
  key: string;
  store: ApiKeyStore;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; json: any }>;
  close(): Promise<void>;
}

export const TEST_KEY_SECRET = 'test-secret-0123456789abcdef';

/**
 * A quota no ordinary test reaches: tests that walk cursors make hundreds of requests with one
 * key. The quota's own tests pass `quota` (or run api/main.ts, which has the real default).
 */
export const UNLIMITED: QuotaSettings = { perUser: 1_000_000, perAddress: 1_000_000, windowMs: 60_000, burstPerUser: 0, burstWindowMs: 1_000 };

export interface StartApiOptions extends Partial<
  Pick<AppDeps, 'quota' | 'log' | 'endpoints' | 'metricsRegistry' | 'trustProxy' | 'responseCacheBytes' | 'viewCacheTtlMs' | 'streams'>
> {
  /** The owner of the key created for the test (default w1/u1). */
  owner?: { workspace: string; user: string };
}

/** The real Express app on an ephemeral port, reading the test namespace's views. */
export function startApi(config: Config, opts: StartApiOptions = {}): Promise<TestApi> {
  return phase('api start', () => openApi(config, opts));
}

async function openApi(config: Config, opts: StartApiOptions): Promise<TestApi> {
  const redis = createRedis(config.redisUrl, undefined, { failFast: true });
  await redisReady(redis);
  const viewsRedis = config.viewsRedisUrl === config.redisUrl ? redis : createRedis(config.viewsRedisUrl, undefined, { failFast: true });
  await redisReady(viewsRedis);
  const store = new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET);
  // As api/main.ts does: keys verified once are served from memory until revoked.
  const subscriber = createRedis(config.redisUrl);
  const revocations = store.watchRevocations(subscriber);
  await revocations.live;
  const { key } = await store.create({ ...(opts.owner ?? { workspace: 'w1', user: 'u1' }), label: 'test' });
  const app = createApp({
    redis,
    viewsRedis,
    keyPrefix: config.keyPrefix,
    keyStore: store,
    log: opts.log ?? createLogger('api-test', 'silent'),
    quota: opts.quota ?? UNLIMITED,
    endpoints: opts.endpoints,
    metricsRegistry: opts.metricsRegistry,
    trustProxy: opts.trustProxy,
    responseCacheBytes: opts.responseCacheBytes,
    viewCacheTtlMs: opts.viewCacheTtlMs,
    streams: opts.streams,
  });
  const server: Server = await new Promise((resolve) => {
    const s = configureServer(app.listen(0, '127.0.0.1', () => resolve(s)));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    key,
    store,
    async post(path, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return readResponse(res);
    },
    async close() {
      const closed = new Promise((r) => server.close(r));
      // Push streams never end by themselves: closing the server ends them.
      server.closeAllConnections();
      await closed;
      revocations.stop();
      subscriber.disconnect();
      redis.disconnect();
      viewsRedis.disconnect();
    },
  };
}

/** Status, headers and body of a response; the body parsed as JSON when it is JSON, else text. */
export async function readResponse(res: Response): Promise<{ status: number; headers: Headers; json: unknown }> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}
