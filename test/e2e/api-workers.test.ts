import { execFileSync } from 'child_process';
import type { RedisClient as Redis } from '../../services/redis/client';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { createRedis, redisReady } from '../../services/redis/client';
import { testConfig, waitFor } from '../support/env';
import { TEST_KEY_SECRET } from '../support/http';
import { SpawnedApi, rawRequest, spawnApi } from '../support/raw-http';

/**
 * `npm run api` as deployed: a primary and one worker process per core (MDQ_API_WORKERS), sharing
 * one port. Both workers answer, /metrics of any worker counts every worker's requests, a worker
 * that dies is replaced while the other keeps answering, and SIGTERM stops them all.
 */

const PATH = '/v1/news/tool/news-articles';
const config = testConfig('api-workers');
let redis: Redis;
let api: SpawnedApi;
let key: string;

beforeAll(async () => {
  redis = createRedis(config.redisUrl);
  await redisReady(redis);
  ({ key } = await new ApiKeyStore(redis, config.keyPrefix, TEST_KEY_SECRET).create({ workspace: 'w', user: 'workers-user', label: 'workers' }));
  api = await spawnApi(config, { MDQ_API_WORKERS: '2', LOG_LEVEL: 'info', MDQ_BURST_LIMIT_PER_SECOND: '0', MDQ_RATE_LIMIT_PER_MINUTE: '100000' });
});

afterAll(async () => {
  await api?.stop();
  redis.disconnect();
});

/** The pids of a process's children (the primary's workers). */
function children(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** One request on a connection of its own (the primary hands each new connection to the next worker). */
const post = () =>
  rawRequest(`${api.url}${PATH}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{"size":1}' });

/** The workers named by the request log lines of `path` in the process's output. */
const workersInLog = (output: string) =>
  new Set(
    output
      .split('\n')
      .filter((l) => l.includes(PATH) && l.startsWith('{'))
      .map((l) => JSON.parse(l).worker as number),
  );

/** mdq_http_requests_total of the route, summed over its series, from /metrics. */
async function countedRequests(): Promise<number> {
  const text = (await rawRequest(`${api.url}/metrics`)).text;
  return text
    .split('\n')
    .filter((l) => l.startsWith('mdq_http_requests_total{') && l.includes(`endpoint="${PATH}"`))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

it('two workers share the port and both answer; /metrics counts the requests of both', async () => {
  expect(await waitFor('two workers', async () => children(api.pid).length === 2)).toBe(true);
  const before = await countedRequests();
  for (let i = 0; i < 20; i++) expect((await post()).status).toBe(200);
  expect(workersInLog(api.output()).size).toBe(2);
  // Each worker answered about half: a count from one worker alone would be about 10.
  expect((await countedRequests()) - before).toBe(20);
});

it('a worker killed with SIGKILL is replaced; the other answers meanwhile', async () => {
  const [victim, survivor] = children(api.pid);
  process.kill(victim, 'SIGKILL');
  await waitFor('the worker to die', async () => !alive(victim));
  // New connections go to the live worker while the new one starts.
  for (let i = 0; i < 5; i++) expect((await post()).status).toBe(200);
  const now = await waitFor('a new worker', async () => {
    const c = children(api.pid);
    return c.length === 2 && !c.includes(victim) ? c : null;
  });
  expect(now).toContain(survivor);
  const replacement = now.find((p) => p !== survivor)!;
  // The primary's log reaches the pipe on its own schedule, not before the fork ps sees.
  await waitFor('the log line', async () => /API worker died; starting another/.test(api.output()));
  // The replacement serves too: enough fresh connections reach it.
  await waitFor('the replacement to answer', async () => {
    expect((await post()).status).toBe(200);
    return workersInLog(api.output()).has(3); // workers 1 and 2 first, then the replacement
  });
  expect(alive(replacement)).toBe(true);
});

it('SIGTERM to the primary stops every worker', async () => {
  const workers = children(api.pid);
  expect(workers).toHaveLength(2);
  await api.stop();
  await waitFor('the workers to exit', async () => workers.every((p) => !alive(p)));
});
