import { ChildProcess, spawn } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { nodeArgv } from '../../services/node-args';
import { connectionFilePath } from '../../services/stack/connection-file';
import { tiedToParent } from '../../services/stack/parent-death';
import { repoRoot } from '../../services/stack/paths';
import { freePort } from '../../services/stack/process';
import { testConfig, waitFor } from '../support/env';

/**
 * The commands a newcomer runs in a second terminal while `npm start` runs in the first: the
 * service is started as `npm start` starts it (services/cli/start.ts, on the shared test stack,
 * in a data folder of its own), and each command runs beside it with a clean environment: no
 * connection variable, no prefix, only PATH, HOME and the data folder's location (MDQ_DATA_DIR,
 * so the test never touches the developer's .data/). They find the stack from the connection
 * file npm start wrote, and act on the very service that is running.
 */

const config = testConfig('cli-beside');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-cli-beside-'));
let port: number;
let start: ChildProcess;
let startOut = '';

/** Only what a fresh terminal has, plus where the data folder is. */
const cleanEnv = (dir = dataDir): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, MDQ_DATA_DIR: dir });

function runCli(script: string, args: string[], env = cleanEnv()): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, nodeArgv(script, args), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

beforeAll(async () => {
  port = await freePort();
  // As `npm start`, on the stack the tests share (given through the variables npm start honours),
  // with a short history so the simulated market adds little load.
  // Tied to this worker (parent-death.ts), so a killed run does not leave it serving.
  start = spawn(...tiedToParent(process.execPath, nodeArgv('services/cli/start.ts'), 'TERM'), {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      KAFKA_BROKERS: config.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: config.schemaRegistryUrl,
      REDIS_URL: config.redisUrl,
      VIEWS_REDIS_URL: config.viewsRedisUrl,
      MDQ_TOPIC_PREFIX: config.topicPrefix,
      MDQ_KEY_PREFIX: config.keyPrefix,
      MDQ_DATA_DIR: dataDir,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      MDQ_HISTORY_SESSIONS: '1',
      MDQ_TICK_SESSIONS: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  start.stdout!.on('data', (d) => (startOut += d));
  start.stderr!.on('data', (d) => (startOut += d));
  await waitFor(
    'npm start to serve',
    async () => {
      if (start.exitCode !== null) throw new Error(`npm start exited:\n${startOut}`);
      try {
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
      } catch {
        return false;
      }
    },
    90_000,
    200,
  );
}, 120_000);

afterAll(async () => {
  if (start && start.exitCode === null) {
    const exited = new Promise((r) => start.once('exit', r));
    start.kill('SIGTERM'); // npm start stops its children, then exits
    await Promise.race([exited, new Promise((r) => setTimeout(r, 25_000).unref())]);
    // Anything it left behind is in its own process group.
    try {
      process.kill(-start.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 40_000);

it('npm start leaves the connection of its stack and its namespace in the data folder', () => {
  const file = JSON.parse(fs.readFileSync(connectionFilePath(dataDir), 'utf8'));
  expect(file).toMatchObject({
    writtenBy: 'npm start',
    vars: {
      KAFKA_BROKERS: config.kafkaBrokers.join(','),
      REDIS_URL: config.redisUrl,
      VIEWS_REDIS_URL: config.viewsRedisUrl,
      MDQ_TOPIC_PREFIX: config.topicPrefix,
      MDQ_KEY_PREFIX: config.keyPrefix,
    },
  });
});

it('`keys -- create` makes a key the running API accepts', async () => {
  const created = await runCli('services/cli/keys.ts', ['create', '--workspace', 'w', '--user', 'beside', '--label', 'second terminal', '--json']);
  expect(created.out).not.toMatch(/is not set/);
  expect(created.code).toBe(0);
  const { key } = JSON.parse(created.out.trim().split('\n').pop()!);
  const res = await fetch(`http://127.0.0.1:${port}/v1/news/tool/news-articles`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: '{"size": 1}',
  });
  expect(res.status).toBe(200);
});

it('`ingest -- status` reports the queues; `ingest -- file` imports through npm start’s worker and the article is served', async () => {
  const status = await runCli('ingest/cli.ts', ['status']);
  expect(status.out).not.toMatch(/is not set/);
  expect(status.code).toBe(0);
  expect(status.out).toMatch(/ingest/i);

  const id = 880_000_000 + Math.floor(Math.random() * 1_000_000);
  const file = path.join(dataDir, 'x.jsonl');
  const article = {
    id,
    publishedTime: Date.now() - 60_000,
    title: 'Beside npm start',
    topics: ['EARNINGS'],
    tickers: [{ ticker: 'AAPL', sentiment: 'NEUTRAL' }],
  };
  fs.writeFileSync(file, `${JSON.stringify({ type: 'news', data: article })}\n`);
  const imported = await runCli('ingest/cli.ts', ['file', file]);
  expect(imported.code).toBe(0);
  expect(imported.out).toMatch(/1 lines, 1 events produced/);

  const key = fs.readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8').trim();
  const served = await waitFor(
    'the imported article in the running API',
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/v1/news/tool/news-articles`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          filterExpression: { field: 'ID', operation: '=', value: id },
          timeRange: { startTime: new Date(Date.now() - 86_400_000).toISOString(), endTime: new Date().toISOString() },
        }),
      });
      const body = (await res.json()) as { data?: { id: number; title: string }[] };
      return body.data?.find((a) => a.id === id);
    },
    90_000,
    500,
  );
  expect(served.title).toBe('Beside npm start');
}, 150_000);

it('`projector -- rebuild news` rebuilds the running service’s view, then ends; a rebalance is no error', async () => {
  const child = spawn(process.execPath, nodeArgv('projections/main.ts', ['rebuild', 'news']), {
    cwd: repoRoot,
    env: { ...cleanEnv(), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    // The flip, the old version's drop after its grace period, and the end of the process.
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 100_000))]);
    expect({ code, out: code === 0 ? '' : out }).toEqual({ code: 0, out: '' });
    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; from?: number | null; to?: number });
    const done = lines.find((l) => l.msg === 'rebuild complete')!;
    expect(done.to).toBeGreaterThan(done.from ?? 0);
    expect(lines.some((l) => /ending/.test(l.msg))).toBe(true);
    // npm start's projector shares the version's group while following it: routine, not an error.
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }
}, 120_000);

it('without a running stack a command says how to get one, instead of a bare missing variable', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-no-stack-'));
  try {
    const res = await runCli('ingest/cli.ts', ['status'], cleanEnv(empty));
    expect(res.code).not.toBe(0);
    expect(res.out).toContain(`KAFKA_BROKERS is not set and no running stack was found (${connectionFilePath(empty)})`);
    expect(res.out).toMatch(/npm start/);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
