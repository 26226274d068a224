import fs from 'fs';
import os from 'os';
import path from 'path';
import { loadConfig } from '../../services/config';
import { connectionFilePath, readConnectionFile, withConnectionFile, writeConnectionFile } from '../../services/stack/connection-file';
import { maxmemoryArgs, viewsRedisMaxmemory } from '../../services/stack/redis-memory';
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

describe('the connection file beside npm start', () => {
  const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-conn-'));
  const stack = { KAFKA_BROKERS: 'k:1', SCHEMA_REGISTRY_URL: 'http://r:2', REDIS_URL: 'redis://a:3', VIEWS_REDIS_URL: 'redis://b:4', MDQ_KEY_PREFIX: 'p' };

  it('gives a command with no connection variable the running stack and its namespace', () => {
    const d = dir();
    writeConnectionFile(d, { ...stack, PATH: '/bin', API_KEY_SECRET: 'never written' }, 'npm start');
    expect(fs.readFileSync(connectionFilePath(d), 'utf8')).not.toContain('never written');
    const c = loadConfig({ LOG_LEVEL: 'warn' }, d);
    expect(c).toMatchObject({
      kafkaBrokers: ['k:1'],
      schemaRegistryUrl: 'http://r:2',
      redisUrl: 'redis://a:3',
      viewsRedisUrl: 'redis://b:4',
      keyPrefix: 'p',
      logLevel: 'warn',
    });
  });

  it('is ignored whole when the environment names a stack of its own', () => {
    const d = dir();
    writeConnectionFile(d, stack, 'npm start');
    const c = loadConfig({ ...base, REDIS_URL: 'redis://mine:1' }, d);
    expect(c).toMatchObject({ kafkaBrokers: ['k:9092'], redisUrl: 'redis://mine:1', viewsRedisUrl: 'redis://mine:1', keyPrefix: 'mdq' });
    expect(withConnectionFile({ REDIS_URL: 'redis://mine:1' }, d)).toEqual({ REDIS_URL: 'redis://mine:1' });
  });

  it('without one, says which variable is missing and how to get a stack', () => {
    const d = dir();
    expect(() => loadConfig({}, d)).toThrow(`KAFKA_BROKERS is not set and no running stack was found (${connectionFilePath(d)})`);
    fs.writeFileSync(connectionFilePath(d), 'not json');
    expect(readConnectionFile(d)).toBeNull();
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
    const s = await stackStatus({ dataDir: dir, profile: 'single', env: base });
    expect(names(s)).toEqual(['redis', 'views-redis']);
    expect(s.env.REDIS_URL).toBe(`redis://127.0.0.1:${DEV_PORTS.redis}`);
    expect(s.env.VIEWS_REDIS_URL).toBe(`redis://127.0.0.1:${DEV_PORTS.viewsRedis}`);
    expect(DEV_PORTS.viewsRedis).not.toBe(DEV_PORTS.redis);
    expect(s.components.every((c) => c.pid === null && !c.ready)).toBe(true);
  });

  it('free ports (the test stack): two different ports', async () => {
    const s = await stackStatus({ dataDir: dir, profile: 'single', env: base, freePorts: true });
    expect(s.env.REDIS_URL).not.toBe(s.env.VIEWS_REDIS_URL);
  });

  it('REDIS_URL given: no Redis provisioned, and the views go to that one Redis', async () => {
    const s = await stackStatus({ dataDir: dir, profile: 'single', env: { ...base, REDIS_URL: 'redis://given:1' } });
    expect(names(s)).toEqual([]);
    expect(s.env).toMatchObject({ REDIS_URL: 'redis://given:1', VIEWS_REDIS_URL: 'redis://given:1' });
  });

  it('VIEWS_REDIS_URL given alone: only the keys Redis is provisioned', async () => {
    const s = await stackStatus({ dataDir: dir, profile: 'single', env: { ...base, VIEWS_REDIS_URL: 'redis://views:2' } });
    expect(names(s)).toEqual(['redis']);
    expect(s.env).toMatchObject({ REDIS_URL: `redis://127.0.0.1:${DEV_PORTS.redis}`, VIEWS_REDIS_URL: 'redis://views:2' });
  });

  it('a data folder from before the views Redis keeps its ports and gains one for it', async () => {
    const old = { kafka: 29092, kafkaController: 29093, registry: 28081, redis: 26379 };
    fs.writeFileSync(path.join(dir, 'stack.json'), JSON.stringify({ ports: old }));
    const s = await stackStatus({ dataDir: dir, profile: 'single', env: base });
    expect(s.env.REDIS_URL).toBe('redis://127.0.0.1:26379');
    expect(s.env.VIEWS_REDIS_URL).toBe(`redis://127.0.0.1:${DEV_PORTS.viewsRedis}`);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'stack.json'), 'utf8')).ports).toEqual({ ...old, viewsRedis: DEV_PORTS.viewsRedis });
  });
});

describe('the views Redis memory ceiling (MDQ_VIEWS_REDIS_MAXMEMORY)', () => {
  const GiB = 2 ** 30;
  it('defaults to 75 % of the machine, in MB', () => {
    expect(viewsRedisMaxmemory({}, 24 * GiB)).toBe('18432mb');
    expect(viewsRedisMaxmemory({ MDQ_VIEWS_REDIS_MAXMEMORY: '' }, 8 * GiB)).toBe('6144mb');
    expect(viewsRedisMaxmemory({ MDQ_VIEWS_REDIS_MAXMEMORY: '  ' }, 8 * GiB)).toBe('6144mb');
  });
  it('takes bytes or Redis units, and 0 for no ceiling', () => {
    expect(viewsRedisMaxmemory({ MDQ_VIEWS_REDIS_MAXMEMORY: '18GB' }, GiB)).toBe('18gb');
    expect(viewsRedisMaxmemory({ MDQ_VIEWS_REDIS_MAXMEMORY: '512mb' }, GiB)).toBe('512mb');
    expect(viewsRedisMaxmemory({ MDQ_VIEWS_REDIS_MAXMEMORY: '100000' }, GiB)).toBe('100000');
    expect(viewsRedisMaxmemory({ MDQ_VIEWS_REDIS_MAXMEMORY: '0' }, GiB)).toBeNull();
  });
  it.each(['18G', '-1', '1.5gb', 'lots', '18 tb'])('refuses %p with a message naming the variable', (v) => {
    expect(() => viewsRedisMaxmemory({ MDQ_VIEWS_REDIS_MAXMEMORY: v }, GiB)).toThrow(/^MDQ_VIEWS_REDIS_MAXMEMORY must be 0, a number of bytes/);
  });
  it('becomes maxmemory with noeviction (an evicted index member would be a wrong answer), or nothing', () => {
    expect(maxmemoryArgs('18gb')).toEqual(['--maxmemory', '18gb', '--maxmemory-policy', 'noeviction']);
    expect(maxmemoryArgs(null)).toEqual([]);
  });
});
