import fs from 'fs';
import os from 'os';
import path from 'path';
import { loadConfig } from '../../services/config';
import { DEV_PORTS, stackStatus } from '../../services/stack/stack';

/**
 * Which Redis holds what: REDIS_URL (keys, quotas, jobs; append-only file) and VIEWS_REDIS_URL
 * (views and processor state; snapshots only). Nothing here starts a process: stackStatus only
 * reads pid files, and there are none in a fresh folder.
 */
const base = { KAFKA_BROKERS: 'k:9092', SCHEMA_REGISTRY_URL: 'http://r/apis/ccompat/v7' };

describe('loadConfig', () => {
  it('puts the views on REDIS_URL when VIEWS_REDIS_URL is unset or empty', () => {
    expect(loadConfig({ ...base, REDIS_URL: 'redis://a:1' }).viewsRedisUrl).toBe('redis://a:1');
    expect(loadConfig({ ...base, REDIS_URL: 'redis://a:1', VIEWS_REDIS_URL: '' }).viewsRedisUrl).toBe('redis://a:1');
  });
  it('uses VIEWS_REDIS_URL for the views and REDIS_URL for the rest when both are set', () => {
    const c = loadConfig({ ...base, REDIS_URL: 'redis://a:1', VIEWS_REDIS_URL: 'redis://b:2' });
    expect(c.redisUrl).toBe('redis://a:1');
    expect(c.viewsRedisUrl).toBe('redis://b:2');
  });
  it('still requires REDIS_URL', () => {
    expect(() => loadConfig({ ...base, VIEWS_REDIS_URL: 'redis://b:2' })).toThrow(/REDIS_URL is not set/);
  });
});

describe('the stack provisions a Redis only for what is not given', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-stack-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const names = (s: Awaited<ReturnType<typeof stackStatus>>) => s.components.map((c) => c.name).sort();

  it('nothing given: two Redis servers on the development ports, in their own folders', async () => {
    const s = await stackStatus({ dataDir: dir, env: base });
    expect(names(s)).toEqual(['redis', 'views-redis']);
    expect(s.env.REDIS_URL).toBe(`redis://127.0.0.1:${DEV_PORTS.redis}`);
    expect(s.env.VIEWS_REDIS_URL).toBe(`redis://127.0.0.1:${DEV_PORTS.viewsRedis}`);
    expect(DEV_PORTS.viewsRedis).not.toBe(DEV_PORTS.redis);
    expect(s.components.every((c) => c.pid === null && !c.ready)).toBe(true);
  });

  it('free ports (the test stack): two different ports', async () => {
    const s = await stackStatus({ dataDir: dir, env: base, freePorts: true });
    expect(s.env.REDIS_URL).not.toBe(s.env.VIEWS_REDIS_URL);
  });

  it('REDIS_URL given: no Redis provisioned, and the views go to that one Redis', async () => {
    const s = await stackStatus({ dataDir: dir, env: { ...base, REDIS_URL: 'redis://given:1' } });
    expect(names(s)).toEqual([]);
    expect(s.env).toMatchObject({ REDIS_URL: 'redis://given:1', VIEWS_REDIS_URL: 'redis://given:1' });
  });

  it('VIEWS_REDIS_URL given alone: only the keys Redis is provisioned', async () => {
    const s = await stackStatus({ dataDir: dir, env: { ...base, VIEWS_REDIS_URL: 'redis://views:2' } });
    expect(names(s)).toEqual(['redis']);
    expect(s.env).toMatchObject({ REDIS_URL: `redis://127.0.0.1:${DEV_PORTS.redis}`, VIEWS_REDIS_URL: 'redis://views:2' });
  });

  it('a data folder from before the views Redis keeps its ports and gains one for it', async () => {
    const old = { kafka: 29092, kafkaController: 29093, registry: 28081, redis: 26379 };
    fs.writeFileSync(path.join(dir, 'stack.json'), JSON.stringify({ ports: old }));
    const s = await stackStatus({ dataDir: dir, env: base });
    expect(s.env.REDIS_URL).toBe('redis://127.0.0.1:26379');
    expect(s.env.VIEWS_REDIS_URL).toBe(`redis://127.0.0.1:${DEV_PORTS.viewsRedis}`);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'stack.json'), 'utf8')).ports).toEqual({ ...old, viewsRedis: DEV_PORTS.viewsRedis });
  });
});
