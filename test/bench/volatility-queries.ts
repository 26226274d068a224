/**
 * Volatility query benchmark: iv-rank, term-structure, exposure-by-strike, interval-map,
 * exposure-by-expiration, volatility-skew and heat-map through the API over the volatility view,
 * beside PostgreSQL answering the same questions over the same quote and open-interest rows with
 * indexes, in the same run.
 *
 *   npx tsx test/bench/volatility-queries.ts [--seconds 10] [--clients 32] [--driver c|node]
 *                                            [--only TEXT] [--profile DIR] [--sessions 400] [--check]
 *
 * Starts its own redis-server, projects `npm start`'s volatility history into it (400 `dev`
 * sessions, the newest 2 with ticks: volatility-history.ts), reads every surface and open-interest
 * record of the view back into PostgreSQL at PG_URL (default postgres://postgres@127.0.0.1:5432/test),
 * starts one API process on the view with the response cache off (every answer computed), checks
 * that both give the same answer and measures each query on both sides with `clients` closed-loop
 * clients (wrk and pgbench by default: test/bench/side-by-side.ts). `--only` keeps the queries whose
 * name contains TEXT; `--profile DIR` writes the API's V8 CPU profile there; `--check` compares
 * the answers and measures nothing (with `--sessions` a shorter history). Results go to
 * test/bench/results/volatility-queries.json (with `--only`, volatility-queries-only.json).
 *
 * PostgreSQL gets the quotes with the IV and greeks the projection solved (the solver is not the
 * question here), each snapshot's underlying price and each session's open interest, and answers
 * from those rows with SQL alone: no per-session summary table like the view's iv-rank index.
 */
import { spawn } from 'child_process';
import fs from 'fs';
import path from 'path';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { freePort } from '../../services/stack/process';
import { loadVolatilityPostgres, volatilityQueries } from './cases/volatility';
import { projectDevHistory } from './volatility-history';
import { defaultDriver, measureSideBySide, sameAnswer, startBenchApi, type Driver } from './side-by-side';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const SECONDS = Number(flag('seconds', '10'));
const CLIENTS = Number(flag('clients', '32'));
const DRIVER = flag('driver', defaultDriver()) as Driver;
const ONLY = flag('only', '');
const PROFILE = flag('profile', '');
const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SESSIONS = Number(flag('sessions', '400'));
const CHECK = args.includes('--check');
const TICK_SESSIONS = 2;
const THROUGH = '2026-11-20';
const SECRET = 'bench-secret-0123456789abcdef';
const PREFIX = 'bench';

const queries = () => volatilityQueries(THROUGH).filter((q) => q.name.includes(ONLY));

async function main(): Promise<void> {
  const redisPort = await freePort();
  const server = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const redis = new Redis({ port: redisPort });
  const pool = new Pool({ connectionString: PG_URL, max: CLIENTS });
  let api: Awaited<ReturnType<typeof startBenchApi>> | null = null;
  try {
    await redis.ping();
    const projected = await projectDevHistory(redis, PREFIX, { sessions: SESSIONS, tickSessions: TICK_SESSIONS, through: THROUGH, log: console.error });
    const quotesPerSecond = Math.round(projected.quotes / (projected.projectMs / 1000));
    console.error(`[redis] ${projected.quotes} quotes projected at ${quotesPerSecond} quotes/s in-process`);
    const pg = await loadVolatilityPostgres(pool, redis, PREFIX);
    console.error(
      `[pg] ${pg.quotes} quote rows, ${pg.openInterest} open-interest rows loaded and indexed in ${pg.seconds.toFixed(0)} s, ${(pg.bytes / 2 ** 20).toFixed(0)} MiB`,
    );
    const url = `redis://127.0.0.1:${redisPort}`;
    if (PROFILE) fs.mkdirSync(PROFILE, { recursive: true });
    api = await startBenchApi({
      port: await freePort(),
      prefix: PREFIX,
      secret: SECRET,
      keysRedis: redis,
      clients: CLIENTS,
      probe: { path: '/v1/options/tool/iv-rank', body: { filter: { ticker: 'SPY' }, lookBackPeriod: 1, maturity: 30 } },
      env: {
        // The API reads only Redis; its configuration still names the event store.
        KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
        SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081',
        REDIS_URL: url,
        VIEWS_REDIS_URL: url,
      },
      nodeFlags: PROFILE ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(PROFILE)] : [],
    });
    if (CHECK) {
      const same = await Promise.all(queries().map((q) => sameAnswer(api!, pool, q, console.error)));
      if (same.includes(false)) process.exitCode = 1;
      return;
    }
    const rows = await measureSideBySide({
      api,
      pool,
      pgUrl: PG_URL,
      queries: queries(),
      clients: CLIENTS,
      seconds: SECONDS,
      warmupSeconds: 2,
      driver: DRIVER,
      log: console.error,
    });
    const out = {
      clients: CLIENTS,
      seconds: SECONDS,
      responseCache: 'off (MDQ_API_CACHE_MB=0): every answer computed',
      apiProcesses: 1,
      driver: DRIVER === 'c' ? 'wrk and pgbench (prepared statements)' : 'Node: undici (parsing each answer) and node-postgres',
      machine: '2 cores shared by the API, Redis, PostgreSQL, the load generator and other sessions',
      history: `${SESSIONS} dev sessions through ${THROUGH}, ${TICK_SESSIONS} with ticks`,
      projectedQuotesPerSecondInProcess: quotesPerSecond,
      postgres: pg,
      at: new Date().toISOString(),
      queries: rows,
    };
    console.log(JSON.stringify(out, null, 2));
    const file = path.join(__dirname, 'results', ONLY ? 'volatility-queries-only.json' : 'volatility-queries.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  } finally {
    await api?.stop();
    await pool.query('DROP TABLE IF EXISTS bench_vol_snap, bench_vol_quote, bench_vol_oi').catch(() => undefined);
    await pool.end();
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
