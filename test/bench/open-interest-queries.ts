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
import { createRedis } from '../../services/redis/client';
import { formatKey, pointerKey } from '../../services/views/keys';
import { OPEN_INTEREST_FORMAT, OPEN_INTEREST_VIEW } from '../../services/views/open-interest';
import { repoRoot } from '../../services/stack/paths';
import { devHistory, projectHistory } from '../support/open-interest-history';
import { PG_URL } from './postgres';
import { insertRows, measureSideBySide, startBenchApi, type Driver, type SideBySideQuery } from './side-by-side';

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
const redis = createRedis(config.viewsRedisUrl);
const keysRedis = config.viewsRedisUrl === config.redisUrl ? redis : createRedis(config.redisUrl);

async function loadPg(pool: Pool, h: ReturnType<typeof devHistory>): Promise<{ rows: number; seconds: number; bytes: number }> {
  const t0 = Date.now();
  await pool.query('DROP TABLE IF EXISTS bench_oi, bench_px');
  await pool.query(`CREATE TABLE bench_oi (session_date date NOT NULL, ticker text NOT NULL, osi text NOT NULL, expiration_date date NOT NULL,
    strike_price float8 NOT NULL, contract_type text NOT NULL, open_interest bigint NOT NULL, created_time bigint NOT NULL)`);
  await pool.query('CREATE TABLE bench_px (session_date date NOT NULL, ticker text NOT NULL, close float8 NOT NULL, PRIMARY KEY (ticker, session_date))');
  const rows = h.openInterest;
  await insertRows(
    pool,
    'bench_oi',
    [
      ['session_date', 'date[]'],
      ['ticker', 'text[]'],
      ['osi', 'text[]'],
      ['expiration_date', 'date[]'],
      ['strike_price', 'float8[]'],
      ['contract_type', 'text[]'],
      ['open_interest', 'bigint[]'],
      ['created_time', 'bigint[]'],
    ],
    rows.map((r) => [r.sessionDate, r.ticker, r.osi, r.expirationDate, r.strikePrice, r.contractType, r.openInterest, r.time]),
  );
  const closes = h.prices.filter((p) => p.kind === 'CLOSE');
  await pool.query('INSERT INTO bench_px SELECT * FROM unnest($1::date[], $2::text[], $3::float8[])', [
    closes.map((p) => p.sessionDate),
    closes.map((p) => p.ticker),
    closes.map((p) => p.price),
  ]);
  // The indexes a careful user would build for these questions.
  await pool.query('CREATE UNIQUE INDEX bench_oi_contract ON bench_oi (session_date, osi) INCLUDE (open_interest)');
  await pool.query('CREATE INDEX bench_oi_ticker ON bench_oi (ticker, session_date) INCLUDE (contract_type, open_interest)');
  await pool.query('CREATE INDEX bench_oi_chain ON bench_oi (ticker, expiration_date, session_date) INCLUDE (strike_price, contract_type, open_interest)');
  await pool.query('ANALYZE bench_oi');
  await pool.query('ANALYZE bench_px');
  const size = await pool.query("SELECT pg_total_relation_size('bench_oi') AS b");
  return { rows: rows.length, seconds: (Date.now() - t0) / 1000, bytes: Number(size.rows[0].b) };
}

/** The change rows of a session in SQL: each contract of the session against the previous session. */
const CHANGE_SQL = (where: string, order: string) => `
  SELECT c.osi, c.ticker, c.contract_type, c.strike_price, c.expiration_date, coalesce(p.open_interest, 0) AS previous,
         c.open_interest AS current, c.open_interest - coalesce(p.open_interest, 0) AS change,
         CASE WHEN coalesce(p.open_interest, 0) = 0 THEN NULL ELSE (c.open_interest - p.open_interest)::float8 / p.open_interest END AS pct,
         c.session_date, c.created_time
  FROM bench_oi c LEFT JOIN bench_oi p ON p.session_date = $2 AND p.osi = c.osi
  WHERE c.session_date = $1 ${where} ORDER BY ${order} LIMIT 50`;

const MAX_PAIN_SQL = `
  WITH chain AS (
    SELECT strike_price AS k, sum(open_interest) FILTER (WHERE contract_type = 'CALL') AS calls, sum(open_interest) FILTER (WHERE contract_type = 'PUT') AS puts
    FROM bench_oi WHERE ticker = $1 AND expiration_date = $2 AND session_date = $3 GROUP BY strike_price)
  SELECT s.k, sum(coalesce(c.calls, 0) * greatest(0, s.k - c.k) * 100) AS call_value, sum(coalesce(c.puts, 0) * greatest(0, c.k - s.k) * 100) AS put_value,
         (SELECT close FROM bench_px WHERE ticker = $1 AND session_date = $3) AS stock_price
  FROM chain s CROSS JOIN chain c GROUP BY s.k ORDER BY s.k`;

async function main(): Promise<void> {
  const history = devHistory(SESSIONS);
  const [latest, previous] = history.sessions;
  const t0 = Date.now();
  const applied = await projectHistory(redis, PREFIX, history);
  await redis.set(formatKey(PREFIX, OPEN_INTEREST_VIEW, 1), String(OPEN_INTEREST_FORMAT));
  await redis.set(pointerKey(PREFIX, OPEN_INTEREST_VIEW), '1');
  const projectSeconds = (Date.now() - t0) / 1000;
  console.log(`[redis] ${applied} events projected under ${PREFIX} in ${projectSeconds.toFixed(0)} s`);
  const pool = new Pool({ connectionString: PG_URL, max: CLIENTS });
  const pg = await loadPg(pool, history);
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
    const exp = history.openInterest
      .filter((e) => e.ticker === 'SPY' && e.sessionDate === latest)
      .sort((a, b) => (a.expirationDate < b.expirationDate ? -1 : 1))[3].expirationDate;
    const change = '/v1/options/tool/open-interest-change';
    const queries: SideBySideQuery[] = [
      {
        name: 'open-interest-change, first page',
        path: change,
        body: { size: 50 },
        sql: CHANGE_SQL('', 'c.created_time DESC, c.osi DESC'),
        params: [latest, previous],
        same: (a, rows) => JSON.stringify(a.data.map((r: any) => r.currentOpenInterest)) === JSON.stringify(rows.map((r) => Number(r.current))),
      },
      {
        name: 'open-interest-change, SPY calls by change desc',
        path: change,
        body: { size: 50, filter: { ticker: 'SPY', contractType: 'CALL' }, sort: { field: 'changeInOpenInterest', direction: 'DESCENDING' } },
        sql: CHANGE_SQL("AND c.ticker = 'SPY' AND c.contract_type = 'CALL'", 'change DESC, c.osi DESC'),
        params: [latest, previous],
        same: (a, rows) => JSON.stringify(a.data.map((r: any) => r.changeInOpenInterest)) === JSON.stringify(rows.map((r) => Number(r.change))),
      },
      {
        name: `open-interest-over-time, SPY, ${SESSIONS} sessions`,
        path: '/v1/options/tool/open-interest-over-time',
        body: { filter: { ticker: 'SPY' } },
        sql: `SELECT session_date, sum(open_interest) FILTER (WHERE contract_type = 'CALL') AS calls, sum(open_interest) FILTER (WHERE contract_type = 'PUT') AS puts
              FROM bench_oi WHERE ticker = $1 GROUP BY session_date ORDER BY session_date`,
        params: ['SPY'],
        same: (a, rows) =>
          rows.length === Object.keys(a.data).length &&
          rows.every((r) => a.data[r.session_date.toISOString().slice(0, 10)]?.callOpenInterest === Number(r.calls)),
      },
      {
        name: `max-pain, SPY ${exp}`,
        path: '/v1/options/tool/max-pain',
        body: { filter: { ticker: 'SPY', expirationDate: exp } },
        sql: MAX_PAIN_SQL,
        params: ['SPY', exp, latest],
        same: (a, rows) =>
          rows.length === Object.keys(a.data).length &&
          rows.every((r) => Math.abs(a.data[Number(r.k).toFixed(1)]?.callIntrinsicValue - Number(r.call_value)) < 0.01),
      },
    ];
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
