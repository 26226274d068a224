/**
 * Volatility query benchmark, API only: `npx tsx test/bench/volatility-queries.ts [--seconds 10] [--clients 32]`.
 *
 * Starts its own redis-server, projects `npm start`'s volatility history into it (400 `dev`
 * sessions, the newest 2 with ticks: volatility-history.ts), starts one API process on it with
 * the response cache off (every answer computed) and drives each query with `clients` concurrent
 * Node clients (undici) for `seconds`: p50/p99 latency and requests/s. Results go to
 * test/bench/results/volatility-queries.json. The issue's PostgreSQL comparison is not part of it.
 */
import { spawn } from 'child_process';
import fs from 'fs';
import path from 'path';
import * as hdr from 'hdr-histogram-js';
import Redis from 'ioredis';
import { Pool } from 'undici';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { nodeArgv } from '../../services/node-args';
import { freePort } from '../../services/stack/process';
import { projectDevHistory } from './volatility-history';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const SECONDS = Number(flag('seconds', '10'));
const CLIENTS = Number(flag('clients', '32'));
const THROUGH = '2026-11-20';
const SECRET = 'bench-secret-0123456789abcdef';

const QUERIES: { name: string; path: string; body: Record<string, unknown> }[] = [
  { name: 'iv-rank SPY, lookBackPeriod 365', path: '/v1/options/tool/iv-rank', body: { filter: { ticker: 'SPY' }, lookBackPeriod: 365, maturity: 30 } },
  { name: 'term-structure SPY, end of day', path: '/v1/options/tool/term-structure', body: { filter: { ticker: 'SPY' }, sessionDate: THROUGH } },
  {
    name: 'term-structure SPY, intraday snapshot',
    path: '/v1/options/tool/term-structure',
    body: { filter: { ticker: 'SPY' }, snapshotTime: `${THROUGH}T18:00:00Z` },
  },
  {
    name: 'exposure-by-strike SPY GAMMA 1 %, end of day',
    path: '/v1/options/tool/exposure-by-strike',
    body: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'PER_ONE_PERCENT_MOVE', sessionDate: THROUGH },
  },
  {
    name: 'interval-map SPY GAMMA 5m, a tick session',
    path: '/v1/options/tool/interval-map',
    body: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', sessionDate: THROUGH, aggregationPeriod: '5m' },
  },
];

async function main(): Promise<void> {
  const redisPort = await freePort();
  const server = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const redis = new Redis({ port: redisPort });
  const apiPort = await freePort();
  let api: ReturnType<typeof spawn> | null = null;
  try {
    await redis.ping();
    await projectDevHistory(redis, 'bench', { sessions: 400, tickSessions: 2, through: THROUGH, log: console.error });
    const { key } = await new ApiKeyStore(redis, 'bench', SECRET).create({ workspace: 'bench', user: 'bench', label: 'volatility benchmark' });
    const url = `redis://127.0.0.1:${redisPort}`;
    api = spawn(process.execPath, nodeArgv('api/main.ts', []), {
      env: {
        ...process.env,
        // The API reads only Redis; its configuration still names the event store.
        KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
        SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081',
        PORT: String(apiPort),
        REDIS_URL: url,
        VIEWS_REDIS_URL: url,
        MDQ_KEY_PREFIX: 'bench',
        API_KEY_SECRET: SECRET,
        MDQ_API_CACHE_MB: '0',
        MDQ_RATE_LIMIT_PER_MINUTE: '100000000',
        MDQ_BURST_LIMIT_PER_SECOND: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const pool = new Pool(`http://127.0.0.1:${apiPort}`, { connections: CLIENTS });
    const post = async (p: string, body: unknown) => {
      const res = await pool.request({
        method: 'POST',
        path: p,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${p}: ${res.statusCode} ${text.slice(0, 200)}`);
      return text;
    };
    for (let i = 0; ; i++) {
      if (
        await post(QUERIES[0].path, QUERIES[0].body).then(
          () => true,
          () => false,
        )
      )
        break;
      if (i > 300) throw new Error('the API did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const results: Record<string, unknown>[] = [];
    for (const q of QUERIES) {
      const bytes = (await post(q.path, q.body)).length;
      const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
      const until = (ms: number) => Date.now() + ms;
      // One second of warm-up, then the measured run.
      for (const [end, measured] of [[until(1000), false] as const, [until(1000 + SECONDS * 1000), true] as const]) {
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            while (Date.now() < end) {
              const t = process.hrtime.bigint();
              await post(q.path, q.body);
              if (measured) h.recordValue(Number((process.hrtime.bigint() - t) / 1000n));
            }
          }),
        );
      }
      const row = {
        query: q.name,
        responseBytes: bytes,
        p50Ms: h.getValueAtPercentile(50) / 1000,
        p99Ms: h.getValueAtPercentile(99) / 1000,
        requestsPerSecond: Math.round(h.totalCount / SECONDS),
      };
      console.error(JSON.stringify(row));
      results.push(row);
    }
    await pool.close();
    const out = {
      clients: CLIENTS,
      seconds: SECONDS,
      responseCache: 'off (MDQ_API_CACHE_MB=0)',
      apiProcesses: 1,
      history: '400 dev sessions, 2 with ticks',
      results,
    };
    console.log(JSON.stringify(out, null, 2));
    const file = path.join(__dirname, 'results', 'volatility-queries.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  } finally {
    api?.kill('SIGTERM');
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
