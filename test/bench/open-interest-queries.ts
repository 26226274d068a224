/**
 * Open-interest query benchmark: open-interest-change (first page; a filtered, sorted page),
 * open-interest-over-time for SPY over the whole history, and max-pain, through the API over
 * the Redis view, beside PostgreSQL answering the same questions over the same open-interest
 * rows with indexes, in the same run, each at 32 concurrent clients; results to
 * test/bench/results/open-interest-queries.json.
 *
 *   npx tsx test/bench/open-interest-queries.ts [--sessions 400] [--seconds 5] [--clients 32]
 *
 * (Another client count writes open-interest-queries-<N>-clients.json: one client gives each
 * answer's latency without queueing.)
 *
 * Projects the `dev` history (test/support/open-interest-history.ts) into the views' Redis
 * (VIEWS_REDIS_URL, else REDIS_URL) under a fresh key prefix, loads the same rows into
 * PostgreSQL at PG_URL (default postgres://postgres@127.0.0.1:5432/test), starts one API process
 * with its response cache off (every answer computed), and checks that both give the same answer
 * before measuring (test/bench/side-by-side.ts). Node clients (undici, node-postgres) generate the
 * load unless `--driver c` (wrk and pgbench); the prefix's keys and the tables are dropped at the end.
 */
import fs from 'fs';
import path from 'path';
import { Pool } from 'pg';
import { loadConfig } from '../../services/config';
import { createSingleRedis } from '../../services/redis/client';
import { formatKey, pointerKey } from '../../services/views/keys';
import { OPEN_INTEREST_FORMAT, OPEN_INTEREST_VIEW } from '../../services/views/open-interest';
import { repoRoot } from '../../services/stack/paths';
import { devHistory, projectHistory } from '../support/open-interest-history';
import { PG_URL } from './postgres';
import { loadOpenInterestPostgres, openInterestQueries } from './cases/open-interest';
import { measureSideBySide, startBenchApi, type Driver } from './side-by-side';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const SESSIONS = Number(flag('sessions', '400'));
const SECONDS = Number(flag('seconds', '5'));
const CLIENTS = Number(flag('clients', '32'));
// The recorded results are the Node driver's; `--driver c` measures with wrk and pgbench.
const DRIVER = flag('driver', 'node') as Driver;
const PORT = Number(process.env.BENCH_API_PORT ?? 18490);
const SECRET = 'open-interest-bench-secret';
const PREFIX = `bench-oi-${Date.now().toString(36)}`;

const config = loadConfig();
const redis = createSingleRedis(config.viewsRedisUrl);
const keysRedis = config.viewsRedisUrl === config.redisUrl ? redis : createSingleRedis(config.redisUrl);

async function main(): Promise<void> {
  const history = devHistory(SESSIONS);
  const t0 = Date.now();
  const applied = await projectHistory(redis, PREFIX, history);
  await redis.set(formatKey(PREFIX, OPEN_INTEREST_VIEW, 1), String(OPEN_INTEREST_FORMAT));
  await redis.set(pointerKey(PREFIX, OPEN_INTEREST_VIEW), '1');
  const projectSeconds = (Date.now() - t0) / 1000;
  console.log(`[redis] ${applied} events projected under ${PREFIX} in ${projectSeconds.toFixed(0)} s`);
  const pool = new Pool({ connectionString: PG_URL, max: CLIENTS });
  const pg = await loadOpenInterestPostgres(pool, history);
  console.log(`[pg] ${pg.rows} rows loaded and indexed in ${pg.seconds.toFixed(0)} s, ${(pg.bytes / 2 ** 20).toFixed(0)} MiB`);

  const out: Record<string, unknown> = {
    sessions: SESSIONS,
    openInterestRows: history.openInterest.length,
    clients: CLIENTS,
    seconds: SECONDS,
    responseCache: 'off (MDQ_API_CACHE_MB=0): every answer computed',
    driver: DRIVER === 'node' ? 'Node: undici (parsing each answer) and node-postgres' : 'wrk and pgbench (prepared statements)',
    machine: '2 cores shared by the API, Redis, PostgreSQL, the load generator and other sessions',
    postgres: pg,
    at: new Date().toISOString(),
  };
  const api = await startBenchApi({
    port: PORT,
    prefix: PREFIX,
    secret: SECRET,
    keysRedis,
    clients: CLIENTS,
    probe: { path: '/v1/options/tool/open-interest-over-time', body: { filter: { ticker: 'SPY' } } },
  });
  try {
    const queries = openInterestQueries(history);
    out.queries = await measureSideBySide({
      api,
      pool,
      pgUrl: PG_URL,
      queries,
      clients: CLIENTS,
      seconds: SECONDS,
      warmupSeconds: 2,
      driver: DRIVER,
      log: console.log,
    });
  } finally {
    await api.stop();
    await pool.query('DROP TABLE IF EXISTS bench_oi, bench_px');
    await pool.end();
    for await (const keys of redis.scanStream({ match: `${PREFIX}:*`, count: 1000 })) if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
    for await (const keys of keysRedis.scanStream({ match: `${PREFIX}:*`, count: 1000 }))
      if ((keys as string[]).length) await keysRedis.unlink(...(keys as string[]));
    redis.disconnect();
    if (keysRedis !== redis) keysRedis.disconnect();
  }
  const file = path.join(repoRoot, `test/bench/results/open-interest-queries${CLIENTS === 32 ? '' : `-${CLIENTS}-clients`}.json`);
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
