/**
 * The open-interest questions (open-interest-change, open-interest-over-time, max-pain,
 * open-interest-by-expiration, open-interest-by-strike, max-pain-over-time) and their
 * PostgreSQL twins over the same `dev` history's rows: shared by open-interest-queries.ts and
 * endpoints.ts.
 */
import type { Pool } from 'pg';
import type { DevHistory } from '../../support/open-interest-history';
import { insertRows, type SideBySideQuery } from '../side-by-side';
import { strikeKey } from '../../../services/domain/max-pain';

export async function loadOpenInterestPostgres(pool: Pool, h: DevHistory): Promise<{ rows: number; seconds: number; bytes: number }> {
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

/** Every expiration's max-pain strike of a ticker's session: the strike where calls + puts owe least, the lowest on a tie. */
const MAX_PAIN_OVER_TIME_SQL = `
  WITH chain AS (
    SELECT expiration_date AS e, strike_price AS k, sum(open_interest) FILTER (WHERE contract_type = 'CALL') AS calls,
           sum(open_interest) FILTER (WHERE contract_type = 'PUT') AS puts
    FROM bench_oi WHERE ticker = $1 AND session_date = $2 GROUP BY expiration_date, strike_price),
  owed AS (
    SELECT s.e, s.k, sum(coalesce(c.calls, 0) * greatest(0, s.k - c.k) * 100 + coalesce(c.puts, 0) * greatest(0, c.k - s.k) * 100) AS v
    FROM chain s JOIN chain c ON c.e = s.e GROUP BY s.e, s.k),
  live AS (SELECT e FROM chain GROUP BY e HAVING sum(coalesce(calls, 0) + coalesce(puts, 0)) > 0)
  SELECT DISTINCT ON (o.e) o.e, o.k FROM owed o JOIN live USING (e) ORDER BY o.e, o.v, o.k`;

const OI_BY_SQL = (key: string, where = '') => `
  SELECT ${key} AS key, sum(open_interest) FILTER (WHERE contract_type = 'CALL') AS calls, sum(open_interest) FILTER (WHERE contract_type = 'PUT') AS puts
  FROM bench_oi WHERE ticker = $1 AND session_date = $2 ${where} GROUP BY ${key} ORDER BY ${key}`;

/** Same keys in the same order, and the same call and put totals. */
const sameTotals = (keyOf: (r: any) => string) => (a: any, rows: any[]) =>
  JSON.stringify(Object.entries(a.data).map(([k, t]: [string, any]) => [k, t.callOpenInterest, t.putOpenInterest])) ===
  JSON.stringify(rows.map((r) => [keyOf(r), Number(r.calls ?? 0), Number(r.puts ?? 0)]));
const isoDate = (d: Date) => d.toISOString().slice(0, 10);

/** The questions over `history` (its newest session and the one before). */
export function openInterestQueries(history: DevHistory): SideBySideQuery[] {
  const [latest, previous] = history.sessions;
  const exp = history.openInterest
    .filter((e) => e.ticker === 'SPY' && e.sessionDate === latest)
    .sort((a, b) => (a.expirationDate < b.expirationDate ? -1 : 1))[3].expirationDate;
  const change = '/v1/options/tool/open-interest-change';
  // A strike listed in most of the latest session's SPY expirations (the narrowed by-expiration reads their chains).
  const counts = new Map<number, number>();
  for (const e of history.openInterest) if (e.ticker === 'SPY' && e.sessionDate === latest) counts.set(e.strikePrice, (counts.get(e.strikePrice) ?? 0) + 1);
  const strike = [...counts].sort(([a, x], [b, y]) => y - x || a - b)[0][0];
  return [
    {
      name: 'open-interest-change, first page',
      role: 'typical',
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
      name: `open-interest-over-time, SPY, ${history.sessions.length} sessions`,
      role: 'typical',
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
      role: 'typical',
      path: '/v1/options/tool/max-pain',
      body: { filter: { ticker: 'SPY', expirationDate: exp } },
      sql: MAX_PAIN_SQL,
      params: ['SPY', exp, latest],
      same: (a, rows) =>
        rows.length === Object.keys(a.data).length &&
        rows.every((r) => Math.abs(a.data[Number(r.k).toFixed(1)]?.callIntrinsicValue - Number(r.call_value)) < 0.01),
    },
    {
      name: 'open-interest-by-expiration, SPY',
      role: 'typical',
      path: '/v1/options/tool/open-interest-by-expiration',
      body: { filter: { ticker: 'SPY' } },
      sql: OI_BY_SQL('expiration_date'),
      params: ['SPY', latest],
      same: sameTotals((r) => isoDate(r.key)),
    },
    {
      name: `open-interest-by-expiration, SPY at ${strike}`,
      role: 'heavy',
      path: '/v1/options/tool/open-interest-by-expiration',
      body: { filter: { ticker: 'SPY', strikePrice: strike } },
      sql: OI_BY_SQL('expiration_date', 'AND strike_price = $3'),
      params: ['SPY', latest, strike],
      same: sameTotals((r) => isoDate(r.key)),
    },
    {
      name: 'open-interest-by-strike, SPY',
      role: 'typical',
      path: '/v1/options/tool/open-interest-by-strike',
      body: { filter: { ticker: 'SPY' } },
      sql: OI_BY_SQL('strike_price'),
      params: ['SPY', latest],
      same: sameTotals((r) => strikeKey(Number(r.key))),
    },
    {
      name: 'max-pain-over-time, SPY',
      role: 'typical',
      path: '/v1/options/tool/max-pain-over-time',
      body: { filter: { ticker: 'SPY' } },
      sql: MAX_PAIN_OVER_TIME_SQL,
      params: ['SPY', latest],
      same: (a, rows) => JSON.stringify(Object.entries(a.data)) === JSON.stringify(rows.map((r) => [isoDate(r.e), Number(r.k)])),
    },
  ];
}
