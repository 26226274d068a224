import type { Server } from 'http';
import type { AddressInfo } from 'net';
import { createApp } from '../../api/app';
import { ApiKeyStore } from '../../services/auth/api-keys';
import type { Config } from '../../services/config';
import { createLogger } from '../../services/log';
import { createRedis, redisReady } from '../../services/redis/client';

export interface TestApi {
  url: string;
  key: string;
  store: ApiKeyStore;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; json: any }>;
  close(): Promise<void>;
}

/** The real Express app on an ephemeral port, reading the test namespace's views. */
export async function startApi(config: Config): Promise<TestApi> {
  const redis = createRedis(config.redisUrl, undefined, { failFast: true });
  await redisReady(redis);
  const store = new ApiKeyStore(redis, config.keyPrefix, 'test-secret-0123456789abcdef');
  const { key } = await store.create({ workspace: 'w1', user: 'u1', label: 'test' });
  const app = createApp({ redis, keyPrefix: config.keyPrefix, keyStore: store, log: createLogger('api-test', 'silent') });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
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
      const text = await res.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: res.status, headers: res.headers, json };
    },
    async close() {
      await new Promise((r) => server.close(r));
      redis.disconnect();
    },
  };
}
