/**
 * The volatility questions (iv-rank, term-structure, exposure-by-strike, interval-map,
 * exposure-by-expiration, volatility-skew, heat-map) and their
 * PostgreSQL twins over the volatility view's own rows: shared by volatility-queries.ts and
 * endpoints.ts. PostgreSQL gets the quotes with the IV and greeks the projection solved (the
 * solver is not the question here), each snapshot's underlying price and each session's open
 * interest, and answers from those rows with SQL alone: no per-session summary table like the
 * view's iv-rank index.
 */
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { strikeKey } from '../../../api/request/aggregation/ordered-map';
import { sessionDateOf } from '../../../services/domain/calendar';
import { decodeOpenInterest, surfaceLegsAt } from '../../../services/views/volatility';
import { insertRows, near, type SideBySideQuery } from '../side-by-side';

// --- PostgreSQL ---------------------------------------------------------------------------------

/**
 * The view's rows in PostgreSQL: every snapshot with its underlying price, every quote of every
 * snapshot with the IV and greeks solved for it (null where the quote admits none), every
 * session's open interest per contract; with the indexes these questions want.
 */
export async function loadVolatilityPostgres(
  pool: Pool,
  redis: Redis,
  prefix: string,
): Promise<{ snapshots: number; quotes: number; openInterest: number; seconds: number; bytes: number }> {
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
  for (const snapsKey of await keysOf(`${prefix}:volatility:v1:*:snaps:*`)) {
    const ticker = snapsKey.slice(snapsKey.lastIndexOf(':') + 1);
    const base = snapsKey.slice(0, snapsKey.lastIndexOf(':snaps:'));
    const instants = (await redis.zrange(snapsKey, 0, -1)).map(Number);
    for (let i = 0; i < instants.length; i += 200) {
      const part = instants.slice(i, i + 200);
      const stored = await redis.mgetBuffer(part.map((ms) => `${base}:s:${ticker}:${ms}`));
      const snapRows: unknown[][] = [];
      const quoteRows: unknown[][] = [];
      part.forEach((ms, j) => {
        if (!stored[j]) return;
        const s = surfaceLegsAt(stored[j]!, ms);
        snapRows.push([ticker, ms, sessionDateOf(ms), s.spot]);
        for (const l of s.legs) {
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
  const oiKeys = await keysOf(`${prefix}:volatility:v1:*:oi:*`);
  for (let i = 0; i < oiKeys.length; i += 200) {
    const part = oiKeys.slice(i, i + 200);
    const stored = await redis.mgetBuffer(part);
    const rows: unknown[][] = [];
    part.forEach((key, j) => {
      const [ticker, date] = key.split(':').slice(-2);
      for (const [osi, n] of stored[j] ? decodeOpenInterest(stored[j]!) : []) rows.push([ticker, date, osi, n]);
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

/** Gamma exposure per 1 % move summed per expiration and leg (exposure-by-expiration). */
const EXPOSURE_BY_EXPIRATION_SQL = `
  WITH ${SNAP_OF_SESSION}
  SELECT q.expiration_date::text AS exp, q.contract_type AS leg, min(s.spot) AS spot,
         sum(o.open_interest * q.gamma * 100 * s.spot * 0.01 * s.spot) AS exposure
  FROM snap s JOIN bench_vol_quote q ON q.ticker = $1 AND q.snap_ms = s.snap_ms
  JOIN bench_vol_oi o ON o.ticker = $1 AND o.session_date = s.session_date AND o.osi = q.osi
  WHERE q.gamma IS NOT NULL AND o.open_interest > 0 AND s.spot IS NOT NULL
  GROUP BY q.expiration_date, q.contract_type
  ORDER BY q.expiration_date, q.contract_type`;

/** RAW gamma exposure per leg at a session's last snapshot (heat-map NET_GAMMA_EXPOSURE). */
const RAW_EXPOSURE_SQL = `
  WITH ${SNAP_OF_SESSION}
  SELECT q.expiration_date::text AS exp, q.strike_price AS k, q.contract_type AS leg, o.open_interest * q.gamma * 100 AS exposure
  FROM snap s JOIN bench_vol_quote q ON q.ticker = $1 AND q.snap_ms = s.snap_ms
  JOIN bench_vol_oi o ON o.ticker = $1 AND o.session_date = s.session_date AND o.osi = q.osi
  WHERE q.gamma IS NOT NULL AND o.open_interest > 0 AND s.spot IS NOT NULL
  ORDER BY q.expiration_date, q.strike_price, q.contract_type`;

/** The put legs with a gamma at a session's last snapshot (heat-map PUT_GAMMA). */
const PUT_GAMMA_SQL = `
  WITH ${SNAP_OF_SESSION}
  SELECT q.expiration_date::text AS exp, q.strike_price AS k, q.gamma
  FROM snap s JOIN bench_vol_quote q ON q.ticker = $1 AND q.snap_ms = s.snap_ms
  WHERE q.contract_type = 'PUT' AND q.gamma IS NOT NULL AND s.spot IS NOT NULL
  ORDER BY q.expiration_date, q.strike_price`;

/** Leaves of a date -> strike -> cell map. */
const leafCount = (m: Record<string, Record<string, object>>) =>
  Object.values(m).reduce((n, ks) => n + Object.values(ks).reduce((x, c) => x + Object.keys(c).length, 0), 0);

/** RAW gamma exposure at the last snapshot of each bucket of `ms` milliseconds of a session. */
const INTERVAL_MAP_SQL = (ms: number) => `
  WITH last AS (
    SELECT DISTINCT ON (snap_ms / ${ms}) snap_ms / ${ms} * ${ms} AS bucket, snap_ms, session_date, spot
    FROM bench_vol_snap WHERE ticker = $1 AND session_date = $2 ORDER BY snap_ms / ${ms}, snap_ms DESC)
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

export function volatilityQueries(through: string): SideBySideQuery[] {
  const snapshotTime = `${through}T18:00:00Z`;
  const all: SideBySideQuery[] = [
    ...(
      [
        [365, 'heavy'],
        [30, 'typical'],
      ] as const
    ).map(([lookBack, role]): SideBySideQuery => ({
      name: `iv-rank SPY, lookBackPeriod ${lookBack}`,
      role,
      path: '/v1/options/tool/iv-rank',
      body: { filter: { ticker: 'SPY' }, lookBackPeriod: lookBack, maturity: 30 },
      sql: IV_RANK_SQL,
      params: ['SPY', 30, lookBack],
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
    })),
    ...(
      [
        ['term-structure SPY, end of day', { sessionDate: through }, SNAP_OF_SESSION, through, 'typical'],
        ['term-structure SPY, intraday snapshot', { snapshotTime }, SNAP_BEFORE, String(Date.parse(snapshotTime)), undefined],
      ] as const
    ).map(([name, selector, snap, param, role]): SideBySideQuery => ({
      name,
      role,
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
      role: 'typical',
      path: '/v1/options/tool/exposure-by-strike',
      body: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'PER_ONE_PERCENT_MOVE', sessionDate: through },
      sql: EXPOSURE_SQL,
      params: ['SPY', through],
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
    ...(
      [
        ['5m', 300_000, 'heavy'],
        ['30m', 1_800_000, 'typical'],
      ] as const
    ).map(([period, ms, role]): SideBySideQuery => ({
      name: `interval-map SPY GAMMA ${period}, a tick session`,
      role,
      path: '/v1/options/tool/interval-map',
      body: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', sessionDate: through, aggregationPeriod: period },
      sql: INTERVAL_MAP_SQL(ms),
      params: ['SPY', through],
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
    })),
    {
      name: 'exposure-by-expiration SPY GAMMA 1 %, end of day',
      role: 'typical',
      path: '/v1/options/tool/exposure-by-expiration',
      body: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'PER_ONE_PERCENT_MOVE', sessionDate: through },
      sql: EXPOSURE_BY_EXPIRATION_SQL,
      params: ['SPY', through],
      same: (a, rows) => {
        const map = a.data.SPY?.exposureMap as Record<string, Record<string, Record<string, number>>> | undefined;
        if (!map) return false;
        return (
          rows.length > 0 &&
          rows.length === leafCount(map) &&
          rows.every((r) => {
            const only = Object.values(map[r.exp] ?? {});
            return only.length === 1 && near(only[0]![r.leg === 'CALL' ? 'callExposure' : 'putExposure'], r.exposure);
          })
        );
      },
    },
    {
      name: 'volatility-skew SPY, end of day',
      role: 'typical',
      path: '/v1/options/tool/volatility-skew',
      body: { filter: { ticker: 'SPY' }, sessionDate: through },
      sql: TERM_STRUCTURE_SQL(SNAP_OF_SESSION),
      params: ['SPY', through],
      same: (a, rows) =>
        rows.length > 0 &&
        near(a.stockPrice, rows[0].spot) &&
        rows.length === leafCount(a.data) &&
        rows.every((r) => near(a.data[r.exp]?.[strikeKey(r.k)]?.[r.leg], r.iv)),
    },
    {
      name: 'heat-map SPY NET_GAMMA_EXPOSURE, end of day',
      role: 'typical',
      path: '/v1/options/tool/heat-map',
      body: { filter: { ticker: 'SPY' }, dataMode: 'NET_GAMMA_EXPOSURE', sessionDate: through },
      sql: RAW_EXPOSURE_SQL,
      params: ['SPY', through],
      same: (a, rows) =>
        a.type === 'contract' &&
        rows.length > 0 &&
        rows.length === leafCount(a.data) &&
        rows.every((r) => near(a.data[r.exp]?.[strikeKey(r.k)]?.[r.leg === 'CALL' ? 'callValue' : 'putValue'], r.exposure)),
    },
    {
      name: 'heat-map SPY PUT_GAMMA (greeks priced per request), end of day',
      role: 'heavy',
      path: '/v1/options/tool/heat-map',
      body: { filter: { ticker: 'SPY' }, dataMode: 'PUT_GAMMA', sessionDate: through },
      sql: PUT_GAMMA_SQL,
      params: ['SPY', through],
      same: (a, rows) =>
        a.type === 'single' && rows.length > 0 && rows.length === leafCount(a.data) && rows.every((r) => near(a.data[r.exp]?.[strikeKey(r.k)]?.value, r.gamma)),
    },
  ];
  return all;
}
