import { ApiKeyStore } from '../../services/auth/api-keys';
import { createRedis, redisReady } from '../../services/redis/client';
import { testConfig, waitFor } from '../support/env';
import { TEST_KEY_SECRET, TestApi, startApi } from '../support/http';
import { captureLogs } from '../support/log-capture';
import { SpawnedApi, rawRequest, spawnApi } from '../support/raw-http';

/**
 * Structured request logs (pino, JSON): one line per request with the request id (accepted from
 * X-Request-Id or generated, and returned), endpoint, status and latency; never a key, never a
 * request body.
 */

const PATH = '/v1/news/tool/news-articles';
const config = testConfig('logging');
const logs = captureLogs();
let api: TestApi;
let spawned: SpawnedApi | undefined;

beforeAll(async () => {
  api = await startApi(config, { log: logs.log, owner: { workspace: 'log-ws', user: 'log-user' } });
});

afterAll(async () => {
  await spawned?.stop();
  await api.close();
});

const lineFor = (requestId: string) => logs.lines().find((l) => l.requestId === requestId && (l.msg === 'request' || l.msg === 'request failed'));

it('one JSON line per request: request id, method, endpoint, path, status, latency and who asked', async () => {
  const res = await api.post(PATH, { size: 2 }, { 'X-Request-Id': 'trace-0001' });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-request-id')).toBe('trace-0001');
  const line = await waitFor('the log line', async () => lineFor('trace-0001'));
  expect(line).toMatchObject({
    level: 30,
    proc: 'api',
    msg: 'request',
    requestId: 'trace-0001',
    method: 'POST',
    endpoint: PATH,
    path: PATH,
    status: 200,
    workspace: 'log-ws',
    user: 'log-user',
  });
  expect(line.keyId).toMatch(/^key_/);
  expect(typeof line.ms).toBe('number');
  expect(line.ms).toBeGreaterThanOrEqual(0);
  expect(typeof line.time).toBe('number');
});

it('generates a request id when none (or an unusable one) is sent, returns it, and logs under it', async () => {
  for (const given of [undefined, 'has spaces in it', 'x'.repeat(65), 'semi;colon']) {
    const res = await api.post(PATH, { size: 0 }, given === undefined ? {} : { 'X-Request-Id': given });
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.json.requestId).toBe(id);
    expect(await waitFor('the log line', async () => lineFor(id))).toMatchObject({ status: 400, endpoint: PATH });
  }
});

it('refused and unknown requests are logged too, with a bounded endpoint label', async () => {
  await rawRequest(`${api.url}/no/such/route`, { headers: { 'X-Request-Id': 'trace-404' } });
  expect(await waitFor('the log line', async () => lineFor('trace-404'))).toMatchObject({ status: 404, endpoint: 'unmatched', path: '/no/such/route' });
  await rawRequest(`${api.url}${PATH}`, { method: 'POST', headers: { 'X-Request-Id': 'trace-401' } });
  const refused = await waitFor('the log line', async () => lineFor('trace-401'));
  expect(refused).toMatchObject({ status: 401, endpoint: PATH });
  expect(refused.user).toBeUndefined();
});

it('never logs a key (valid, invalid, or pasted into a URL) or a request body', async () => {
  const marker = 'BODY-MARKER-7f3a9c';
  const wrongKey = `mdq_${'Q'.repeat(31)}`;
  await api.post(PATH, { size: 1, filter: { tickers: [marker] }, filterExpression: { field: 'TITLE', operation: '=', value: marker } });
  await api.post(PATH, { size: 1, unknownField: marker });
  await api.post(PATH, `{"size": "${marker}"`);
  await api.post(PATH, { size: 1 }, { Authorization: `Bearer ${wrongKey}` });
  await rawRequest(`${api.url}/v1/${api.key}/news`, { headers: { Authorization: `Bearer ${api.key}` } });
  await rawRequest(`${api.url}/docs/${wrongKey}`);
  const text = logs.text();
  expect(text.length).toBeGreaterThan(0);
  expect(text).not.toContain(api.key);
  expect(text).not.toContain(api.key.slice(4));
  expect(text).not.toContain(wrongKey);
  expect(text).not.toContain(marker);
  expect(text).not.toMatch(/authorization/i);
  expect(text).toContain('mdq_[redacted]');
});

it('an api/main.ts process writes the same JSON lines to stdout', async () => {
  const redis = createRedis(config.redisUrl);
  await redisReady(redis);
  const { key } = await new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET).create({ workspace: 'w', user: 'stdout-user', label: 'l' });
  redis.disconnect();
  spawned = await spawnApi(config, { LOG_LEVEL: 'info' });
  // /healthz answers before the process's Redis connection is up (liveness does not need Redis);
  // until it is, requests get a 503. Wait for the first non-503 answer before the logged request.
  await waitFor('the API to reach Redis', async () => {
    const r = await fetch(`${spawned!.url}${PATH}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'X-Request-Id': 'warm-up' },
      body: '{"size":1}',
    });
    return r.status !== 503;
  });
  const res = await fetch(`${spawned.url}${PATH}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'X-Request-Id': 'stdout-1' },
    body: '{"size":1}',
  });
  expect(res.status).toBe(200);
  const line = await waitFor('the stdout line', async () =>
    spawned!
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .find((l) => l.requestId === 'stdout-1'),
  );
  expect(line).toMatchObject({ proc: 'api', msg: 'request', status: 200, endpoint: PATH, user: 'stdout-user' });
  expect(spawned.output()).not.toContain(key);
});
