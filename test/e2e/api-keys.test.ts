import crypto from 'crypto';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { ApiKeyStore, LAST_USED_RESOLUTION_MS } from '../../services/auth/api-keys';
import { ensureDevKey } from '../../services/auth/dev-key';
import { createRedis, redisReady, type RedisClient as Redis } from '../../services/redis/client';
import { testConfig } from '../support/env';
import { TEST_KEY_SECRET, TestApi, startApi } from '../support/http';
import { spawnTs } from '../support/pipeline';
import { keysMatching } from '../support/redis-keys';

/**
 * API keys end to end: the `npm run keys` CLI against the test Redis, the keys it makes used over
 * HTTP, what Redis holds (only an HMAC of each key), and every way a credential is refused.
 */

const PATH = '/v1/news/tool/news-articles';
const config = testConfig('keys');
let redis: Redis;
let api: TestApi;

beforeAll(async () => {
  redis = createRedis(config.redisUrl);
  await redisReady(redis);
  api = await startApi(config);
});

afterAll(async () => {
  await api.close();
  redis.disconnect();
});

/** `npm run keys -- <args>` as its own process, with this file's Redis namespace and the test secret. */
function keysCli(...args: string[]): Promise<{ code: number; out: string }> {
  const child = spawnTs('services/cli/keys.ts', args, { REDIS_URL: config.redisUrl, MDQ_KEY_PREFIX: config.keyPrefix, API_KEY_SECRET: TEST_KEY_SECRET });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code: code ?? -1, out: child.output() })));
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Every value stored under this file's key prefix, as one string. */
async function everythingInRedis(): Promise<string> {
  const keys = await keysMatching(redis, `${config.keyPrefix}:*`);
  const parts: string[] = [];
  for (const k of keys) {
    const type = await redis.type(k);
    if (type === 'hash') parts.push(k, JSON.stringify(await redis.hgetall(k)));
    else if (type === 'string') parts.push(k, String(await redis.get(k)));
    else parts.push(k);
  }
  return parts.join('\n');
}

describe('the keys CLI', () => {
  it('create prints a 35-character mdq_ key once, with its record; the key then works over HTTP and its last use is recorded', async () => {
    const before = Date.now();
    const { code, out } = await keysCli('create', '--workspace', 'acme', '--user', 'alice', '--label', 'ci runner', '--json');
    expect(code).toBe(0);
    const created = JSON.parse(out.trim().split('\n').pop()!);
    expect(created.key).toMatch(/^mdq_[A-Za-z0-9]{31}$/);
    expect(created.key).toHaveLength(35);
    expect(created).toMatchObject({ workspace: 'acme', user: 'alice', label: 'ci runner', lastUsedTime: null, revoked: false });
    expect(created.id).toMatch(/^key_[A-Za-z0-9]{12}$/);
    expect(created.createdTime).toBeGreaterThanOrEqual(before);

    const res = await api.post(PATH, { size: 1 }, bearer(created.key));
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100)); // last-used is written after the answer
    const listed = JSON.parse((await keysCli('list', '--json')).out.trim().split('\n').pop()!);
    const rec = listed.find((r: { id: string }) => r.id === created.id);
    expect(rec.lastUsedTime).toBeGreaterThanOrEqual(created.createdTime);
  });

  it('without a watched channel, verify reads the record on every call: a key is refused once revoked or once its record is gone', async () => {
    const store = new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET);
    const a = await store.create({ workspace: 'acme', user: 'erin', label: 'revoked later' });
    const b = await store.create({ workspace: 'acme', user: 'erin', label: 'deleted later' });
    expect(await store.verify(a.key)).toMatchObject({ id: a.record.id, user: 'erin' });
    expect(await store.verify(b.key)).toMatchObject({ id: b.record.id, user: 'erin' });
    await store.revoke(a.record.id);
    await redis.del(`${config.keyPrefix}:apikey:${b.record.id}`);
    expect(await store.verify(a.key)).toBeNull();
    expect(await store.verify(b.key)).toBeNull();
  });

  it('watching the channel, a verified key costs no Redis command; a revocation in another process reaches it within a second', async () => {
    const other = new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET); // e.g. the keys CLI
    const keysRedis = createRedis(config.redisUrl);
    const subscriber = createRedis(config.redisUrl);
    const store = new ApiKeyStore(keysRedis, config.keyPrefix, TEST_KEY_SECRET);
    const watch = store.watchRevocations(subscriber);
    try {
      await watch.live;
      const a = await other.create({ workspace: 'acme', user: 'fay', label: 'cached' });
      const b = await other.create({ workspace: 'acme', user: 'fay', label: 'stays' });
      expect(await store.verify(a.key)).toMatchObject({ id: a.record.id, user: 'fay' });
      expect(await store.verify(b.key)).toMatchObject({ id: b.record.id });
      const sent: string[] = [];
      const send = keysRedis.sendCommand.bind(keysRedis);
      const spy = jest.spyOn(keysRedis, 'sendCommand').mockImplementation((cmd, ...rest) => {
        sent.push(cmd.name);
        return send(cmd, ...rest);
      });
      try {
        for (let i = 0; i < 5; i++) expect(await store.verify(a.key)).toMatchObject({ id: a.record.id });
      } finally {
        spy.mockRestore();
      }
      expect(sent).toEqual([]);
      const revokedAt = Date.now();
      await other.revoke(a.record.id);
      while ((await store.verify(a.key)) !== null) {
        expect(Date.now() - revokedAt).toBeLessThan(1_000);
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(await store.verify(b.key)).toMatchObject({ id: b.record.id }); // only the revoked key is dropped
    } finally {
      watch.stop();
      subscriber.disconnect();
      keysRedis.disconnect();
    }
  });

  it('while the channel connection is down nothing is served from memory; the cache starts empty when it is back', async () => {
    const subscriber = createRedis(config.redisUrl);
    const store = new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET);
    const watch = store.watchRevocations(subscriber);
    try {
      await watch.live;
      const a = await store.create({ workspace: 'acme', user: 'gus', label: 'revoked while away' });
      expect(await store.verify(a.key)).not.toBeNull(); // cached now
      // The subscription drops (a Redis restart, a network cut): a revocation sent meanwhile is
      // never heard, so the cached record must not be trusted any more.
      const closed = new Promise((r) => subscriber.once('close', r));
      const reconnected = new Promise((r) => subscriber.once('ready', r));
      subscriber.disconnect(true); // and reconnect, as after a network cut
      await closed;
      await redis.hset(`${config.keyPrefix}:apikey:${a.record.id}`, 'revoked', '1'); // no announcement
      expect(await store.verify(a.key)).toBeNull();
      await reconnected;
      expect(await store.verify(a.key)).toBeNull();
    } finally {
      watch.stop();
      subscriber.disconnect();
    }
  });

  it('lastUsedTime is kept to the minute: a key used again within a minute is not rewritten, after it is', async () => {
    const store = new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET);
    const { key, record } = await store.create({ workspace: 'acme', user: 'dora', label: 'busy' });
    const recordKey = `${config.keyPrefix}:apikey:${record.id}`;
    const lastUsed = async () => {
      await new Promise((r) => setTimeout(r, 50)); // the write is not awaited by verify
      return redis.hget(recordKey, 'lastUsedTime');
    };
    expect(await store.verify(key)).toMatchObject({ id: record.id, user: 'dora' });
    const first = await lastUsed();
    expect(Number(first)).toBeGreaterThanOrEqual(record.createdTime);
    await new Promise((r) => setTimeout(r, 20));
    expect(await store.verify(key)).not.toBeNull();
    expect(await lastUsed()).toBe(first);
    // A stored value older than LAST_USED_RESOLUTION_MS is refreshed by the next use.
    const old = Date.now() - LAST_USED_RESOLUTION_MS - 1_000;
    await redis.hset(recordKey, 'lastUsedTime', String(old));
    expect(await store.verify(key)).not.toBeNull();
    expect(Number(await lastUsed())).toBeGreaterThan(old + LAST_USED_RESOLUTION_MS);
  });

  it('the human form shows the key once, with a warning that it cannot be shown again', async () => {
    const { code, out } = await keysCli('create', '--workspace', 'acme', '--user', 'bob', '--label', 'laptop');
    expect(code).toBe(0);
    expect(out).toMatch(/shown this once/);
    expect(out.match(/mdq_[A-Za-z0-9]{31}/g)).toHaveLength(1);
  });

  it('list never shows a key or its hash, only the records', async () => {
    const { key, record } = await new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET).create({ workspace: 'initech', user: 'peter', label: 'listed' });
    const hash = crypto.createHmac('sha256', TEST_KEY_SECRET).update(key).digest('hex');
    for (const args of [['list'], ['list', '--json'], ['list', '--workspace', 'initech']]) {
      const { code, out } = await keysCli(...args);
      expect(code).toBe(0);
      expect(out).toContain(record.id);
      expect(out).toContain('peter');
      expect(out).not.toContain(key);
      expect(out).not.toContain(hash);
      expect(out).not.toMatch(/mdq_[A-Za-z0-9]{31}/);
    }
    const onlyAcme = await keysCli('list', '--workspace', 'acme');
    expect(onlyAcme.out).not.toContain(record.id);
  });

  it('revoke <id> refuses the key within a second in every API process: 401 with WWW-Authenticate', async () => {
    const created = JSON.parse(
      (await keysCli('create', '--workspace', 'acme', '--user', 'carol', '--label', 'to revoke', '--json')).out.trim().split('\n').pop()!,
    );
    expect((await api.post(PATH, {}, bearer(created.key))).status).toBe(200);
    const revoked = await keysCli('revoke', created.id);
    const revokedAt = Date.now();
    expect(revoked.code).toBe(0);
    expect(revoked.out).toContain(`revoked ${created.id}`);
    // The API caches keys it verified: the revocation reaches it over a Redis channel, within a second.
    let res = await api.post(PATH, {}, bearer(created.key));
    while (res.status === 200 && Date.now() - revokedAt < 1_000) res = await api.post(PATH, {}, bearer(created.key));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.json).toMatchObject({
      type: '/docs/problems/authentication',
      title: 'Authentication Failed',
      status: 401,
      category: 'authentication',
      code: 'Unauthorized',
      detail: 'The API key is malformed, unknown or revoked',
    });
    const listed = JSON.parse((await keysCli('list', '--json')).out.trim().split('\n').pop()!);
    expect(listed.find((r: { id: string }) => r.id === created.id).revoked).toBe(true);
    expect((await keysCli('revoke', created.id)).out).toMatch(/already revoked/);
    const unknown = await keysCli('revoke', 'key_doesnotexist');
    expect(unknown.code).toBe(1);
    expect(unknown.out).toMatch(/no key with id key_doesnotexist/);
  });

  it.each([
    [['create', '--workspace', 'w', '--user', 'u'], /create needs --workspace, --user and --label/],
    [['create', '--workspace', 'w w', '--user', 'u', '--label', 'l'], /--workspace must be/],
    [['revoke'], /exactly one key id/],
    [['rotate'], /unknown command 'rotate'/],
    [[], /no command given/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const { code, out } = await keysCli(...args);
    expect(code).toBe(2);
    expect(out).toMatch(message);
    expect(out).toMatch(/usage:/);
  });
});

describe('the local key of npm start', () => {
  it('is made through the same store, saved with mode 0600, printed once and reused while valid', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-dev-key-'));
    try {
      const env = { ...process.env, MDQ_KEY_PREFIX: config.keyPrefix, API_KEY_SECRET: TEST_KEY_SECRET };
      const said: string[] = [];
      await ensureDevKey(dir, env, (m) => said.push(m));
      const file = path.join(dir, 'dev-api-key');
      const key = fs.readFileSync(file, 'utf8').trim();
      expect(key).toMatch(/^mdq_[A-Za-z0-9]{31}$/);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(said.join('\n')).toContain(key);
      expect((await api.post(PATH, {}, bearer(key))).status).toBe(200);
      said.length = 0;
      await ensureDevKey(dir, env, (m) => said.push(m));
      expect(fs.readFileSync(file, 'utf8').trim()).toBe(key);
      expect(said.join('\n')).not.toContain(key);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('storage', () => {
  it('Redis holds only an HMAC-SHA-256 of each key under the server secret, never the key', async () => {
    const store = new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET);
    const { key, record } = await store.create({ workspace: 'w', user: 'u', label: 'stored' });
    const dump = await everythingInRedis();
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(key.slice(4)); // not even the random part
    const stored = await redis.hgetall(`${config.keyPrefix}:apikey:${record.id}`);
    expect(stored).toMatchObject({ workspace: 'w', user: 'u', label: 'stored', revoked: '0' });
    expect(stored.hash).toBe(crypto.createHmac('sha256', TEST_KEY_SECRET).update(key).digest('hex'));
    expect(Number(stored.createdTime)).toBe(record.createdTime);
    // The same key under another server secret is unknown: a copy of Redis alone opens nothing.
    expect(await new ApiKeyStore(redis, config.keyPrefix, 'another-secret-0123456789').verify(key)).toBeNull();
    expect(await store.verify(key)).toMatchObject({ id: record.id, workspace: 'w', user: 'u' });
  });

  it('keys are 31 random base62 characters after the prefix: 500 keys, all distinct, using the whole alphabet', async () => {
    const store = new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET);
    const keys = await Promise.all(Array.from({ length: 500 }, (_, i) => store.create({ workspace: 'w', user: `bulk${i}`, label: 'bulk' }).then((c) => c.key)));
    expect(new Set(keys).size).toBe(500);
    for (const k of keys) expect(k).toMatch(/^mdq_[A-Za-z0-9]{31}$/);
    const alphabet = new Set(keys.flatMap((k) => [...k.slice(4)]));
    expect(alphabet.size).toBe(62); // 15,500 draws: every base62 character turns up
  });
});

describe('refused credentials', () => {
  const raw = (headers: Record<string, string>) =>
    fetch(`${api.url}${PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{}' });

  it.each([
    ['missing', {}, /^Missing Authorization header/],
    ['another scheme', { Authorization: 'Basic YWxpY2U6c2VjcmV0' }, /Bearer scheme/],
    ['a bare key without the scheme', { Authorization: `mdq_${'a'.repeat(31)}` }, /Bearer scheme/],
    ['an empty bearer', { Authorization: 'Bearer ' }, /Bearer scheme/],
    ['too short', { Authorization: `Bearer mdq_${'a'.repeat(30)}` }, /malformed, unknown or revoked/],
    ['too long', { Authorization: `Bearer mdq_${'a'.repeat(32)}` }, /malformed, unknown or revoked/],
    ['another prefix', { Authorization: `Bearer sk__${'a'.repeat(31)}` }, /malformed, unknown or revoked/],
    ['a character outside base62', { Authorization: `Bearer mdq_${'a'.repeat(30)}-` }, /malformed, unknown or revoked/],
    ['unknown', { Authorization: `Bearer mdq_${'Z'.repeat(31)}` }, /malformed, unknown or revoked/],
  ])('%s: 401 problem with WWW-Authenticate: Bearer', async (_what, headers, detail) => {
    const res = await raw(headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="mdq"');
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await res.json()) as Record<string, string>;
    expect(body).toMatchObject({
      type: '/docs/problems/authentication',
      title: 'Authentication Failed',
      status: 401,
      category: 'authentication',
      code: 'Unauthorized',
    });
    expect(body.instance).toBe(PATH);
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(body.detail).toMatch(detail);
  });

  it('the scheme name is case-insensitive (RFC 9110)', async () => {
    expect((await raw({ Authorization: `bearer ${api.key}` })).status).toBe(200);
  });

  it('a key is checked before the body: a bad key with a bad body is a 401', async () => {
    const res = await fetch(`${api.url}${PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"size":' });
    expect(res.status).toBe(401);
  });
});
