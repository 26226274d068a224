import fs from 'fs';
import os from 'os';
import path from 'path';
import { redisComponent } from '../../services/stack/components';
import { freePort, waitUntil } from '../../services/stack/process';

/**
 * A private redis-server on a free port in a temporary folder, started and stopped by the test
 * (so the shared test stack is not disturbed), configured as the stack configures its `redis`
 * (append-only file) or its `views-redis` (snapshots only; `maxmemory` gives it a ceiling, as the
 * stack does). `up` starts it and waits until it answers; `remove` stops it and deletes its folder.
 */
export async function privateRedis(kind: 'redis' | 'views-redis' = 'redis', maxmemory: string | null = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-private-redis-'));
  const port = await freePort();
  const redis = redisComponent(dir, { kafka: 0, kafkaController: 0, registry: 0, redis: port, viewsRedis: port }, kind, maxmemory);
  redis.prepare(() => {});
  const up = async () => {
    await redis.start();
    await waitUntil('redis', () => redis.ready(), { timeoutMs: 15_000 });
  };
  const remove = async () => {
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { redis, up, remove, dir };
}
