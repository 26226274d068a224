import fs from 'fs';
import os from 'os';
import path from 'path';
import { redisComponent } from '../../services/stack/components';
import { freePort, waitUntil } from '../../services/stack/process';
import { testConfig } from '../support/env';
import { startApi } from '../support/http';

/**
 * Redis briefly gone: the API answers 503 problems with Retry-After instead of crashing or
 * hanging, and serves again by itself once Redis is back. Uses a private redis-server so the
 * shared test stack is not disturbed.
 */
it('answers 503 while Redis is down and recovers when it returns', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-redis-outage-'));
  const port = await freePort();
  const redis = redisComponent(dir, { kafka: 0, kafkaController: 0, registry: 0, redis: port });
  redis.prepare(() => {});
  const up = async () => {
    await redis.start();
    await waitUntil('redis', () => redis.ready(), { timeoutMs: 15_000 });
  };
  await up();
  const api = await startApi({ ...testConfig('outage'), redisUrl: redis.url });
  try {
    const path_ = '/v1/news/tool/news-articles';
    expect((await api.post(path_, {})).status).toBe(200);

    await redis.stop();
    const down = await api.post(path_, {});
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    expect(down.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(down.json).toMatchObject({ status: 503, category: 'unavailable', code: 'ServiceUnavailable' });

    await up(); // appendonly: the key store survives the restart
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await api.post(path_, {})).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
  } finally {
    await api.close();
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
