/**
 * Volatility query benchmark: iv-rank, term-structure, exposure-by-strike and interval-map through
 * the API over the volatility view, beside PostgreSQL answering the same questions over the same
 * quote and open-interest rows with indexes, in the same run.
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
import { strikeKey } from '../../api/request/aggregation/ordered-map';
import { sessionDateOf } from '../../services/domain/calendar';
import { freePort } from '../../services/stack/process';
import { decodeSurface, surfaceLegs } from '../../services/views/volatility';
import { projectDevHistory } from './volatility-history';
import { defaultDriver, insertRows, measureSideBySide, sameAnswer, startBenchApi, type Driver, type SideBySideQuery } from './side-by-side';

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

/** Numbers equal to a relative 1e-9 (both sides compute in float8, sometimes in another order). */
const near = (a: unknown, b: unknown) => typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

// --- PostgreSQL ---------------------------------------------------------------------------------

/**
 * The view's rows in PostgreSQL: every snapshot with its underlying price, every quote of every
 * snapshot with the IV and greeks solved for it (null where the quote admits none), every
 * session's open interest per contract; with the indexes these questions want.
 */
async function loadPostgres(pool: Pool, redis: Redis): Promise<{ snapshots: number; quotes: number; openInterest: number; seconds: number; bytes: number }> {
  const t0 = Date.now();
  await pool.query('DROP TABLE IF EXISTS bench_vol_snap, bench_vol_quote, bench_vol_oi');
  await pool.query('CREATE TABLE bench_vol_snap (ticker text NOT NULL, snap_ms bigint NOT NULL, session_date date NOT NULL, spot float8)');
  await pool.query(`CREATE TABLE bench_vol_quote (ticker text NOT NULL, snap_ms bigint NOT NULL, osi text NOT NULL, expiration_date date NOT NULL,
    strike_price float8 NOT NULL, contract_type text NOT NULL, bid float8 NOT NULL, ask float8 NOT NULL,
    iv float8, delta float8, gamma float8, charm float8, vanna float8)`);
  await pool.query('CREATE TABLE bench_vol_oi (ticker text NOT NULL, session_date date NOT NULL, osi text NOT NULL, open_interest bigint NOT NULL)');
  const keysOf = async (pattern: string) => {
    const out: string[] = [];
    for await (const keys of redis.scanStream({ match: pattern, count: 1000 })) out.push(...(keys as string[]));
    return out.sort();
  };
  let snapshots = 0;
  let quotes = 0;
  for (const snapsKey of await keysOf(`${PREFIX}:volatility:v1:*:snaps:*`)) {
    const ticker = snapsKey.slice(snapsKey.lastIndexOf(':') + 1);
    const base = snapsKey.slice(0, snapsKey.lastIndexOf(':snaps:'));
    const instants = (await redis.zrange(snapsKey, 0, -1)).map(Number);
    for (let i = 0; i < instants.length; i += 200) {
      const part = instants.slice(i, i + 200);
      const texts = await redis.mget(part.map((ms) => `${base}:s:${ticker}:${ms}`));
      const snapRows: unknown[][] = [];
      const quoteRows: unknown[][] = [];
      part.forEach((ms, j) => {
        if (!texts[j]) return;
        const s = decodeSurface(texts[j]!);
        snapRows.push([ticker, ms, sessionDateOf(ms), s.spot]);
        for (const l of surfaceLegs(s)) {
          const g = l.greeks;
          quoteRows.push([
            ticker,
            ms,
            l.osi,
            l.expiration,
            l.strike,
            l.right,
            l.bid,
            l.ask,
            g?.iv ?? null,
            g?.delta ?? null,
            g?.gamma ?? null,
            g?.charm ?? null,
            g?.vanna ?? null,
          ]);
        }
      });
      await insertRows(
        pool,
        'bench_vol_snap',
        [
          ['ticker', 'text[]'],
          ['snap_ms', 'bigint[]'],
          ['session_date', 'date[]'],
          ['spot', 'float8[]'],
        ],
        snapRows,
      );
      await insertRows(
        pool,
        'bench_vol_quote',
        [
          ['ticker', 'text[]'],
          ['snap_ms', 'bigint[]'],
          ['osi', 'text[]'],
          ['expiration_date', 'date[]'],
          ['strike_price', 'float8[]'],
          ['contract_type', 'text[]'],
          ['bid', 'float8[]'],
          ['ask', 'float8[]'],
          ['iv', 'float8[]'],
          ['delta', 'float8[]'],
          ['gamma', 'float8[]'],
          ['charm', 'float8[]'],
          ['vanna', 'float8[]'],
        ],
        quoteRows,
      );
      snapshots += snapRows.length;
      quotes += quoteRows.length;
    }
  }
  let openInterest = 0;
  const oiKeys = await keysOf(`${PREFIX}:volatility:v1:*:oi:*`);
  for (let i = 0; i < oiKeys.length; i += 200) {
    const part = oiKeys.slice(i, i + 200);
    const texts = await redis.mget(part);
    const rows: unknown[][] = [];
    part.forEach((key, j) => {
      const [ticker, date] = key.split(':').slice(-2);
      for (const [osi, n] of Object.entries(JSON.parse(texts[j] ?? '{}') as Record<string, number>)) rows.push([ticker, date, osi, n]);
    });
    await insertRows(
      pool,
      'bench_vol_oi',
      [
        ['ticker', 'text[]'],
        ['session_date', 'date[]'],
        ['osi', 'text[]'],
        ['open_interest', 'bigint[]'],
      ],
      rows,
    );
    openInterest += rows.length;
  }
  // The indexes a careful user would build: a snapshot by ticker and instant or by session, a
  // snapshot's quotes together, a session's open interest by contract.
  await pool.query('CREATE UNIQUE INDEX bench_vol_snap_at ON bench_vol_snap (ticker, snap_ms) INCLUDE (session_date, spot)');
  await pool.query('CREATE INDEX bench_vol_snap_session ON bench_vol_snap (ticker, session_date, snap_ms) INCLUDE (spot)');
  await pool.query('CREATE UNIQUE INDEX bench_vol_quote_snap ON bench_vol_quote (ticker, snap_ms, osi)');
  await pool.query('CREATE UNIQUE INDEX bench_vol_oi_contract ON bench_vol_oi (ticker, session_date, osi) INCLUDE (open_interest)');
  for (const t of ['bench_vol_snap', 'bench_vol_quote', 'bench_vol_oi']) await pool.query(`VACUUM ANALYZE ${t}`);
  const size = await pool.query(
    "SELECT pg_total_relation_size('bench_vol_snap') + pg_total_relation_size('bench_vol_quote') + pg_total_relation_size('bench_vol_oi') AS b",
  );
  return { snapshots, quotes, openInterest, seconds: (Date.now() - t0) / 1000, bytes: Number(size.rows[0].b) };
}

/** The snapshot a selector names, as a CTE `snap` (snap_ms, session_date, spot). */
const SNAP_OF_SESSION = `snap AS (SELECT snap_ms, session_date, spot FROM bench_vol_snap WHERE ticker = $1 AND session_date = $2 ORDER BY snap_ms DESC LIMIT 1)`;
const SNAP_BEFORE = `snap AS (SELECT snap_ms, session_date, spot FROM bench_vol_snap WHERE ticker = $1 AND snap_ms < $2 ORDER BY snap_ms DESC LIMIT 1)`;

/** Every leg with an IV at the snapshot, with its moneyness (ATM within 0.5 % of the strike, order-flow's rule). */
const TERM_STRUCTURE_SQL = (snap: string) => `
  WITH ${snap}
  SELECT q.expiration_date::text AS exp, q.strike_price AS k, q.contract_type AS leg, q.delta, q.iv, s.spot,
         CASE WHEN abs(q.strike_price - s.spot) <= 0.005 * q.strike_price + 1e-9 THEN 'ATM'
              WHEN (q.contract_type = 'CALL' AND s.spot > q.strike_price) OR (q.contract_type = 'PUT' AND q.strike_price > s.spot) THEN 'ITM'
              ELSE 'OTM' END AS money_type
  FROM snap s JOIN bench_vol_quote q ON q.ticker = $1 AND q.snap_ms = s.snap_ms
  WHERE q.iv IS NOT NULL AND s.spot IS NOT NULL
  ORDER BY q.expiration_date, q.strike_price, q.contract_type`;

/** Gamma exposure per 1 % move: open interest of the snapshot's session x gamma x 100 x S x 0.01 S. */
const EXPOSURE_SQL = `
  WITH ${SNAP_OF_SESSION}
  SELECT q.expiration_date::text AS exp, q.strike_price AS k, q.contract_type AS leg, s.spot,
         o.open_interest * q.gamma * 100 * s.spot * 0.01 * s.spot AS exposure
  FROM snap s JOIN bench_vol_quote q ON q.ticker = $1 AND q.snap_ms = s.snap_ms
  JOIN bench_vol_oi o ON o.ticker = $1 AND o.session_date = s.session_date AND o.osi = q.osi
  WHERE q.gamma IS NOT NULL AND o.open_interest > 0 AND s.spot IS NOT NULL
  ORDER BY q.expiration_date, q.strike_price, q.contract_type`;

/** RAW gamma exposure at the last snapshot of each 5-minute bucket of a session. */
const INTERVAL_MAP_SQL = `
  WITH last AS (
    SELECT DISTINCT ON (snap_ms / 300000) snap_ms / 300000 * 300000 AS bucket, snap_ms, session_date, spot
    FROM bench_vol_snap WHERE ticker = $1 AND session_date = $2 ORDER BY snap_ms / 300000, snap_ms DESC)
  SELECT l.bucket, q.expiration_date::text AS exp, q.strike_price AS k, q.contract_type AS leg, o.open_interest * q.gamma * 100 AS exposure
  FROM last l JOIN bench_vol_quote q ON q.ticker = $1 AND q.snap_ms = l.snap_ms
  JOIN bench_vol_oi o ON o.ticker = $1 AND o.session_date = l.session_date AND o.osi = q.osi
  WHERE l.spot IS NOT NULL AND q.gamma IS NOT NULL AND o.open_interest > 0
  ORDER BY l.bucket, q.expiration_date, q.strike_price, q.contract_type`;

/**
 * iv-rank from the quote rows: each session's last snapshot (priced), per expiration and leg the
 * IV of the strike nearest the underlying (the lower on a tie), the expiration nearest the
 * maturity within 50 % either side (the earlier on a tie), and each leg's high and low over the
 * look-back counted in sessions. $2 maturity, $3 look-back.
 */
const IV_RANK_SQL = `
  WITH last AS (
    SELECT DISTINCT ON (session_date) session_date, snap_ms, spot FROM bench_vol_snap WHERE ticker = $1 ORDER BY session_date, snap_ms DESC),
  idx AS (SELECT session_date, snap_ms, spot, row_number() OVER (ORDER BY session_date) AS n FROM last WHERE spot IS NOT NULL),
  atm AS (
    SELECT DISTINCT ON (i.session_date, q.expiration_date, q.contract_type) i.session_date, i.n, i.spot, q.expiration_date, q.contract_type, q.iv
    FROM idx i JOIN bench_vol_quote q ON q.ticker = $1 AND q.snap_ms = i.snap_ms
    WHERE q.iv IS NOT NULL AND q.expiration_date - i.session_date BETWEEN $2::int * 0.5 AND $2::int * 1.5
    ORDER BY i.session_date, q.expiration_date, q.contract_type, abs(q.strike_price - i.spot), q.strike_price),
  pick AS (
    SELECT DISTINCT ON (session_date) session_date, expiration_date FROM atm
    ORDER BY session_date, abs(expiration_date - session_date - $2::int), expiration_date),
  series AS (
    SELECT a.session_date, a.n, a.spot, a.expiration_date, a.contract_type, a.iv,
           max(a.iv) OVER w AS window_max, min(a.iv) OVER w AS window_min
    FROM pick p JOIN atm a USING (session_date, expiration_date)
    WINDOW w AS (PARTITION BY a.contract_type ORDER BY a.n RANGE BETWEEN ($3::int - 1)::bigint PRECEDING AND CURRENT ROW))
  SELECT session_date::text AS date, expiration_date::text AS exp, spot, contract_type AS leg, iv, window_max, window_min
  FROM series WHERE n > (SELECT max(n) FROM idx) - $3::int
  ORDER BY session_date, contract_type`;

// --- the questions --------------------------------------------------------------------------------

function queries(): SideBySideQuery[] {
  const snapshotTime = `${THROUGH}T18:00:00Z`;
  const all: SideBySideQuery[] = [
    {
      name: 'iv-rank SPY, lookBackPeriod 365',
      path: '/v1/options/tool/iv-rank',
      body: { filter: { ticker: 'SPY' }, lookBackPeriod: 365, maturity: 30 },
      sql: IV_RANK_SQL,
      params: ['SPY', 30, 365],
      same: (a, rows) =>
        rows.length > 0 &&
        rows.length === Object.values(a.data as Record<string, any>).reduce((n, d) => n + Object.keys(d.contractTypeToIVData).length, 0) &&
        rows.every((r) => {
          const d = a.data[r.date];
          const leg = d?.contractTypeToIVData[r.leg];
          return (
            d &&
            d.expirationDate === r.exp &&
            near(d.stockPrice, r.spot) &&
            near(leg?.lastIv, r.iv) &&
            near(leg?.windowMaxIv, r.window_max) &&
            near(leg?.windowMinIv, r.window_min)
          );
        }),
    },
    ...(
      [
        ['term-structure SPY, end of day', { sessionDate: THROUGH }, SNAP_OF_SESSION, THROUGH],
        ['term-structure SPY, intraday snapshot', { snapshotTime }, SNAP_BEFORE, String(Date.parse(snapshotTime))],
      ] as const
    ).map(([name, selector, snap, param]): SideBySideQuery => ({
      name,
      path: '/v1/options/tool/term-structure',
      body: { filter: { ticker: 'SPY' }, ...selector },
      sql: TERM_STRUCTURE_SQL(snap),
      params: ['SPY', param],
      same: (a, rows) =>
        rows.length > 0 &&
        near(a.stockPrice, rows[0].spot) &&
        rows.length ===
          Object.values(a.data as Record<string, Record<string, object>>).reduce(
            (n, ks) => n + Object.values(ks).reduce((m, c) => m + Object.keys(c).length, 0),
            0,
          ) &&
        rows.every((r) => {
          const leg = a.data[r.exp]?.[strikeKey(r.k)]?.[r.leg];
          return leg && near(leg.iv, r.iv) && near(leg.delta, r.delta) && leg.moneyType === r.money_type;
        }),
    })),
    {
      name: 'exposure-by-strike SPY GAMMA 1 %, end of day',
      path: '/v1/options/tool/exposure-by-strike',
      body: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'PER_ONE_PERCENT_MOVE', sessionDate: THROUGH },
      sql: EXPOSURE_SQL,
      params: ['SPY', THROUGH],
      same: (a, rows) => {
        const spy = a.data.SPY;
        if (!spy) return false;
        const cells = Object.values(spy.exposureMap as Record<string, Record<string, object>>).reduce(
          (n, ks) => n + Object.values(ks).reduce((m, c) => m + Object.keys(c).length, 0),
          0,
        );
        return (
          rows.length > 0 &&
          rows.length === cells &&
          near(spy.stockPrice, rows[0].spot) &&
          rows.every((r) => near(spy.exposureMap[r.exp]?.[strikeKey(r.k)]?.[r.leg === 'CALL' ? 'callExposure' : 'putExposure'], r.exposure))
        );
      },
    },
    {
      name: 'interval-map SPY GAMMA 5m, a tick session',
      path: '/v1/options/tool/interval-map',
      body: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', sessionDate: THROUGH, aggregationPeriod: '5m' },
      sql: INTERVAL_MAP_SQL,
      params: ['SPY', THROUGH],
      same: (a, rows) => {
        const data = a.data as Record<string, Record<string, Record<string, object>>>;
        const cells = Object.values(data).reduce(
          (n, byExp) => n + Object.values(byExp).reduce((m, ks) => m + Object.values(ks).reduce((x, c) => x + Object.keys(c).length, 0), 0),
          0,
        );
        return (
          rows.length > 0 && rows.length === cells && rows.every((r) => near((data[String(r.bucket)]?.[r.exp]?.[strikeKey(r.k)] as any)?.[r.leg], r.exposure))
        );
      },
    },
  ];
  return all.filter((q) => q.name.includes(ONLY));
}

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
    const pg = await loadPostgres(pool, redis);
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
