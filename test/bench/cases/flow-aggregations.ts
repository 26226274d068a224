/**
 * The options-flow aggregation questions (contract-trade-side-statistics, contract-statistics,
 * market-share, gainers-losers, option-price-over-time, net-flow, net-drift, volatility-drift), their data and their PostgreSQL
 * twins: shared by flow-aggregations.ts and endpoints.ts, so both measure the same questions over
 * the same rows. Each answer is rebuilt from PostgreSQL's GROUP BY rows in the API's shape and
 * compared value by value (firstDifference).
 */
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { MARKET_PARTITIONS, topicFor } from '../../../schemas/catalog';
import { nyLocalToEpochMs, sessionBounds } from '../../../services/domain/calendar';
import { isConsolidatedRow, type ConsolidatedTradeEvent, type EnrichedPrintEvent } from '../../../services/domain/order-flow';
import { FLOW_AGGREGATES_VIEW } from '../../../services/views/flow-aggregates';
import { STOCK_PRICES_VIEW } from '../../../services/views/equities/stock-prices';
import { stockPricesProjection } from '../../../projections/equities/stock-prices';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW, orderFlowLayout } from '../../../services/views/order-flow';
import { premiumCents } from '../../../services/views/order-flow/statistics';
import { PartitionKeys, pointerKey } from '../../../services/views/keys';
import { settleWarmTier, warmTierOptions } from '../../../projections/runtime/warm-tier';
import { SimulatedMarket } from '../../../ingest/simulator/session';
import { PROFILES } from '../../../ingest/simulator/profiles';
import { TRADING_DAYS, dayIndex } from '../../../ingest/simulator/market';
import { flowAggregatesProjection } from '../../../projections/flow-aggregates/projection';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../../projections/order-flow/projections';
import { projectInChunks } from '../../support/bench-redis';
import { SampleFold, sampleOpenInterest, sampleSymbols } from '../../support/order-flow-sample';
import { copyRows } from '../postgres';
import type { SideBySideQuery } from '../side-by-side';

const COLUMNS = [
  'row_key',
  'session_date',
  'ticker',
  'osi',
  'contract_type',
  'trade_side',
  'sentiment',
  'exchange',
  'is_index',
  'premium',
  'premium_cents',
  'size',
  'option_price',
  'stock_price',
  'trade_time',
  'strike_price',
  'expiration_date',
  'iv',
] as const;
const pgRow = (p: EnrichedPrintEvent) => [
  p.rowKey,
  p.sessionDate,
  p.ticker,
  p.osi,
  p.contractType,
  p.tradeSideCode,
  p.sentimentType,
  p.exchange,
  p.isIndex,
  p.premium,
  premiumCents(p.premium),
  p.size,
  p.optionPrice,
  p.stockPrice,
  p.tradeTime,
  p.strikePrice,
  p.expirationDate,
  p.impliedVolatility,
];

function* rowsOf(prints: readonly EnrichedPrintEvent[]) {
  for (const p of prints) yield pgRow(p);
}

/** What a careful user would build for these questions: each one-ticker, contract and scan query reads one covering index. */
export const FLOW_INDEXES = [
  '(ticker, session_date, trade_time) INCLUDE (contract_type, trade_side, sentiment, exchange, is_index, premium_cents, size, stock_price, row_key)',
  '(session_date, ticker) INCLUDE (contract_type, trade_side, sentiment, exchange, is_index, premium_cents, size)',
  '(osi, session_date, trade_time, row_key) INCLUDE (option_price, size)',
  '(session_date, premium) INCLUDE (contract_type, trade_side, premium_cents)',
  '(ticker, session_date, expiration_date, trade_time) INCLUDE (strike_price, stock_price, iv, row_key)',
];

/** What the loader is asked for: the session, every how many underlyings, how many sessions of the one ticker, which table. */
export interface FlowDataOptions {
  table: string;
  date: string;
  every: number;
  sessions: number;
  /** The one ticker of the 30 sessions; default the busiest with at most 20,000 prints in the session. */
  ticker?: string;
  /** Also the consolidated tape (its view only; bench:endpoints reads it back into PostgreSQL). */
  consolidated?: boolean;
  /**
   * Also the earlier sessions into the prints tape, all but the newest MDQ_HOT_SESSIONS (3) of its
   * partition then warm (bench:endpoints reads one of them back into PostgreSQL).
   */
  tapeHistory?: boolean;
  log?: (line: string) => void;
}

export interface FlowData {
  table: string;
  date: string;
  ticker: string;
  osi: string;
  prints: number;
  consolidatedRows: number;
  underlyings: number;
  tickerPrints: number;
  historySessions: string[];
  historyPrints: number;
  /** The ticker's underlying price events of `date` (stock-price view; PostgreSQL table `<table>_px`). */
  priceEvents: number;
  seconds: number;
}

const MAX_TICKER_PRINTS = 20_000;

/**
 * One whole simulated `full` session of every `every`-th underlying (the processor's own fold,
 * test/support/order-flow-sample.ts) projected into the prints view and the cube under the prefix
 * 'mdq' with the projections' own logic (no Kafka), plus the `sessions` - 1 sessions before it of
 * one ticker (cube only), and that ticker's underlying prices of the session (the stock-price view,
 * for volatility-drift); the same prints into PostgreSQL table `table` with covering indexes, the
 * prices into `<table>_px`.
 * Returns what the cases need (the prints themselves are dropped).
 */
export async function loadFlowData(redis: Redis, pool: Pool, o: FlowDataOptions): Promise<FlowData> {
  const T = o.table;
  const log = o.log ?? console.log;
  const t0 = Date.now();
  const market = new SimulatedMarket(42, PROFILES.full);
  const symbols = sampleSymbols(market, o.every);
  const fold = new SampleFold(market);
  const printTopic = topicFor('enriched-print')!.name;
  const oiTopic = topicFor('open-interest')!.name;
  await pool.query(`CREATE TABLE ${T} (row_key text NOT NULL, session_date date NOT NULL, ticker text NOT NULL, osi text NOT NULL,
    contract_type text NOT NULL, trade_side text NOT NULL, sentiment text NOT NULL, exchange text NOT NULL, is_index boolean NOT NULL,
    premium float8 NOT NULL, premium_cents bigint NOT NULL, size int NOT NULL, option_price float8 NOT NULL, stock_price float8 NOT NULL,
    trade_time bigint NOT NULL, strike_price float8 NOT NULL, expiration_date date NOT NULL, iv float8)`);

  const prints: EnrichedPrintEvent[] = [];
  // The last version of each consolidated trade is what the view ends with.
  const latest = new Map<string, ConsolidatedTradeEvent>();
  for (const out of fold.session(o.date, symbols)) {
    prints.push(out.enriched);
    if (o.consolidated) latest.set(out.consolidated.rowKey, out.consolidated);
  }
  log(`[data] ${o.date}: ${prints.length} prints of ${symbols.size} underlyings (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  const openInterest = sampleOpenInterest(market, o.date, symbols);
  await projectInChunks(redis, orderFlowPrintsProjection, oiTopic, openInterest);
  await projectInChunks(redis, orderFlowPrintsProjection, printTopic, prints);
  await projectInChunks(redis, flowAggregatesProjection, printTopic, prints);
  const consolidated = [...latest.values()].filter((c) => isConsolidatedRow(c.tradeConsolidationType));
  latest.clear();
  if (o.consolidated) {
    await projectInChunks(redis, orderFlowConsolidatedProjection, oiTopic, openInterest);
    await projectInChunks(redis, orderFlowConsolidatedProjection, topicFor('consolidated-trade')!.name, consolidated);
    await redis.set(pointerKey('mdq', ORDER_FLOW_CONSOLIDATED_VIEW), '1');
  }
  await copyRows(pool, T, COLUMNS, rowsOf(prints));
  log(`[data] projected and copied (${((Date.now() - t0) / 1000).toFixed(0)} s)`);

  const counts = new Map<string, number>();
  for (const p of prints) counts.set(p.ticker, (counts.get(p.ticker) ?? 0) + 1);
  const ticker = o.ticker ?? [...counts].filter(([, n]) => n <= MAX_TICKER_PRINTS).sort((a, b) => b[1] - a[1])[0][0];
  const byOsi = new Map<string, number>();
  for (const p of prints) if (p.ticker === ticker) byOsi.set(p.osi, (byOsi.get(p.osi) ?? 0) + 1);
  const osi = [...byOsi].sort((a, b) => b[1] - a[1])[0][0];
  const total = prints.length;
  prints.length = 0;

  // The ticker's sessions before the date, oldest first (the fold and the projection take them in stream order).
  const end = dayIndex(o.date);
  const history = TRADING_DAYS.slice(end - (o.sessions - 1), end);
  let historyPrints = 0;
  for (const d of history) {
    const day: EnrichedPrintEvent[] = [];
    for (const out of fold.session(d, new Set([ticker]))) day.push(out.enriched);
    await projectInChunks(redis, flowAggregatesProjection, printTopic, day);
    if (o.tapeHistory) await projectInChunks(redis, orderFlowPrintsProjection, printTopic, day);
    await copyRows(pool, T, COLUMNS, rowsOf(day));
    historyPrints += day.length;
  }
  // The projection moves a session once it is quiet; what the last chunks left hot moves now, as at the end of a replay.
  if (o.tapeHistory)
    for (let p = 0; p < MARKET_PARTITIONS; p++)
      await settleWarmTier(
        redis,
        orderFlowLayout(ORDER_FLOW_PRINTS_VIEW),
        new PartitionKeys('mdq', ORDER_FLOW_PRINTS_VIEW, 1, p),
        warmTierOptions().hotSessions,
      );
  log(`[data] ${history.length} earlier sessions of ${ticker}: ${historyPrints} prints (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  // The ticker's underlying prices of the session: the official open and close, the per-second ticks.
  const prices: { ticker: string; sessionDate: string; time: number; price: number }[] = [];
  for (const tier of ['daily', 'tick'] as const) {
    const gen = market.session(o.date, tier, new Set([ticker]));
    for (let k = 0; k < gen.chunks; k++)
      for (const e of gen.chunk(k)) if (e.type === 'underlying-price' && e.data.ticker === ticker) prices.push(e.data as unknown as (typeof prices)[number]);
  }
  await projectInChunks(redis, stockPricesProjection, topicFor('underlying-price')!.name, prices);
  await pool.query(`CREATE TABLE ${T}_px (ticker text NOT NULL, session_date date NOT NULL, time bigint NOT NULL, price float8 NOT NULL)`);
  await copyRows(
    pool,
    `${T}_px`,
    ['ticker', 'session_date', 'time', 'price'],
    prices.map((p) => [p.ticker, p.sessionDate, p.time, p.price]),
  );
  await pool.query(`CREATE INDEX ON ${T}_px (ticker, session_date, time) INCLUDE (price)`);
  log(`[data] ${prices.length} underlying prices of ${ticker} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  for (const view of [ORDER_FLOW_PRINTS_VIEW, FLOW_AGGREGATES_VIEW, STOCK_PRICES_VIEW]) await redis.set(pointerKey('mdq', view), '1');
  for (const ix of FLOW_INDEXES) await pool.query(`CREATE INDEX ON ${T} ${ix}`);
  // VACUUM sets the visibility map, without which PostgreSQL cannot use an index-only scan.
  await pool.query(`VACUUM ANALYZE ${T}`);
  await pool.query(`VACUUM ANALYZE ${T}_px`);
  log(`[data] indexed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  return {
    table: T,
    date: o.date,
    ticker,
    osi,
    prints: total,
    consolidatedRows: consolidated.length,
    underlyings: symbols.size,
    tickerPrints: counts.get(ticker) ?? 0,
    historySessions: history,
    historyPrints,
    priceEvents: prices.length,
    seconds: (Date.now() - t0) / 1000,
  };
}

// --- the questions in SQL, and their rows in the API's shape ---------------------------------------

type Row = Record<string, any>;
const num = (v: unknown) => (v === null ? 0 : Number(v));
const SIDES_BOUGHT = `trade_side IN ('ASK', 'ABOVE_ASK')`;
const SIDES_SOLD = `trade_side IN ('BID', 'BELOW_BID')`;
const NET = (v: string) => `CASE WHEN ${SIDES_BOUGHT} THEN ${v} WHEN ${SIDES_SOLD} THEN -${v} ELSE 0 END`;
const LAST_STOCK_PRICE = '(array_agg(stock_price ORDER BY trade_time DESC, row_key DESC))[1]';
const MINUTE_BUCKET = '(trade_time / 60000) * 60000';

const ctssSql = (t: string, where: string) =>
  `SELECT contract_type, trade_side, sum(premium_cents) AS cents FROM ${t} WHERE ${where} GROUP BY 1, 2 ORDER BY 1, 2`;
function ctssData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows) (data[r.contract_type] ??= {})[r.trade_side] = { premium: num(r.cents) / 100 };
  return data;
}

const contractStatisticsSql = (t: string, where: string) =>
  `SELECT contract_type, sum(premium_cents) AS cents, count(*) AS n, sum(size) AS v FROM ${t} WHERE ${where} GROUP BY 1 ORDER BY 1`;
function contractStatisticsData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows) data[r.contract_type] = { premium: num(r.cents) / 100, tradeCount: num(r.n), volume: num(r.v) };
  return data;
}

/**
 * volatility-drift of one ticker and session at the nearest expiration, in SQL: each minute's
 * close (the last price before its end), the log returns (the first from the price at the open),
 * their sample deviation over the trailing 30 minutes when 10 or more are present, x sqrt(252 x 390);
 * the IV of the minute's print nearest the money (then the later); minutes up to the latest data.
 */
function volatilityDriftSql(t: string, ticker: string, date: string): string {
  const { open, close } = sessionBounds(date)!;
  const prints = `${t} WHERE ticker = '${ticker}' AND session_date = '${date}' AND iv IS NOT NULL`;
  // Each lookup of a price is one backward step of the (ticker, session_date, time) index.
  const px = `${t}_px WHERE ticker = '${ticker}' AND session_date = '${date}'`;
  return `WITH m AS (SELECT generate_series(${open}::bigint, ${close - 60_000}::bigint, 60000::bigint) AS b),
    c AS (SELECT b, (SELECT price FROM ${px} AND time < b + 60000 ORDER BY time DESC LIMIT 1) AS close FROM m),
    r AS (SELECT b, close, ln(close / CASE WHEN b = ${open} THEN (SELECT price FROM ${px} AND time <= ${open} ORDER BY time DESC LIMIT 1)
      ELSE lag(close) OVER (ORDER BY b) END) AS r FROM c),
    v AS (SELECT b, close, CASE WHEN count(r) OVER w >= 10 THEN stddev_samp(r) OVER w * sqrt(98280) END AS arv FROM r
      WINDOW w AS (ORDER BY b ROWS 29 PRECEDING)),
    e AS (SELECT min(expiration_date) AS exp FROM ${prints} AND expiration_date >= session_date),
    a AS (SELECT DISTINCT ON (trade_time / 60000) (trade_time / 60000) * 60000 AS b, iv, trade_time FROM ${prints} AND expiration_date = (SELECT exp FROM e)
      ORDER BY trade_time / 60000, abs(strike_price - stock_price), trade_time DESC, row_key DESC),
    reach AS (SELECT greatest((SELECT time FROM ${px} ORDER BY time DESC LIMIT 1), (SELECT max(trade_time) FROM a)) AS t)
    SELECT v.b, v.arv, a.iv, v.close FROM v LEFT JOIN a USING (b), reach WHERE v.b <= reach.t ORDER BY v.b`;
}
function volatilityDriftData(rows: Row[]): Row {
  const data: Row = {};
  const orNull = (v: unknown) => (v === null ? null : Number(v));
  for (const r of rows) data[String(r.b)] = { arv: orNull(r.arv), iv: orNull(r.iv), stockPrice: orNull(r.close) };
  return data;
}

const LEGS = { equityCall: `NOT is_index AND contract_type = 'CALL'`, equityPut: `NOT is_index AND contract_type = 'PUT'`, index: 'is_index' };
const marketShareSql = (t: string, where: string) =>
  `SELECT exchange, ${Object.entries(LEGS)
    .map(([k, w]) => `sum(premium_cents) FILTER (WHERE ${w}) AS ${k}_cents, count(*) FILTER (WHERE ${w}) AS ${k}_n, sum(size) FILTER (WHERE ${w}) AS ${k}_v`)
    .join(', ')} FROM ${t} WHERE ${where} GROUP BY exchange ORDER BY exchange`;
function marketShareData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows) {
    const d: Row = {};
    for (const k of Object.keys(LEGS)) {
      d[`${k}Premium`] = num(r[`${k.toLowerCase()}_cents`]) / 100;
      d[`${k}TradeCount`] = num(r[`${k.toLowerCase()}_n`]);
      d[`${k}Volume`] = num(r[`${k.toLowerCase()}_v`]);
    }
    data[r.exchange] = d;
  }
  return data;
}

const gainersLosersSql = (
  t: string,
  where: string,
) => `SELECT ticker, bull, bear, cents, n, v, CASE WHEN bull = 0 THEN 0 ELSE bear::float8 / bull END AS ratio FROM (
    SELECT ticker, coalesce(sum(premium_cents) FILTER (WHERE sentiment = 'BULLISH'), 0) AS bull,
      coalesce(sum(premium_cents) FILTER (WHERE sentiment = 'BEARISH'), 0) AS bear, sum(premium_cents) AS cents, count(*) AS n, sum(size) AS v
    FROM ${t} WHERE ${where} GROUP BY ticker) g ORDER BY ticker`;
function gainersLosersData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows)
    data[r.ticker] = {
      bullishPremium: num(r.bull) / 100,
      bearishPremium: num(r.bear) / 100,
      premium: num(r.cents) / 100,
      premiumRatio: num(r.ratio),
      tradeCount: num(r.n),
      volume: num(r.v),
    };
  return data;
}

/** Bucket expressions: 1m from the trade time; 1d the session (its key New York midnight of the date). */
const BUCKETS = { '1m': MINUTE_BUCKET, '1d': 'session_date::text' } as const;
const bucketKey = (b: unknown) => (/^\d{4}-\d{2}-\d{2}$/.test(String(b)) ? String(nyLocalToEpochMs(String(b), 0, 0)) : String(b));

const netFlowSql = (t: string, where: string, period: keyof typeof BUCKETS, oneTicker: boolean) =>
  `SELECT ${BUCKETS[period]} AS b, coalesce(sum(${NET('premium_cents')}) FILTER (WHERE contract_type = 'CALL'), 0) AS calls,
     coalesce(sum(${NET('premium_cents')}) FILTER (WHERE contract_type = 'PUT'), 0) AS puts${oneTicker ? `, ${LAST_STOCK_PRICE} AS px` : ''}
   FROM ${t} WHERE ${where} GROUP BY 1 ORDER BY 1`;
function netFlowData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows) data[bucketKey(r.b)] = { callSum: num(r.calls), putSum: num(r.puts), ...(r.px === undefined ? {} : { stockPrice: num(r.px) }) };
  return data;
}

const netDriftSql = (t: string, where: string, period: keyof typeof BUCKETS) => {
  const leg = (ct: string, name: string) => `
     coalesce(sum(premium_cents) FILTER (WHERE contract_type = '${ct}' AND trade_side = 'MID_MARKET'), 0) AS ${name}_mid_cents,
     coalesce(sum(size) FILTER (WHERE contract_type = '${ct}' AND trade_side = 'MID_MARKET'), 0) AS ${name}_mid_n,
     coalesce(sum(${NET('premium_cents')}) FILTER (WHERE contract_type = '${ct}'), 0) AS ${name}_cents,
     coalesce(sum(${NET('size')}) FILTER (WHERE contract_type = '${ct}'), 0) AS ${name}_v`;
  return `SELECT ${BUCKETS[period]} AS b, ${leg('CALL', 'c')}, ${leg('PUT', 'p')}, ${LAST_STOCK_PRICE} AS px FROM ${t} WHERE ${where} GROUP BY 1 ORDER BY 1`;
};
function netDriftData(rows: Row[]): Row {
  const data: Row = {};
  const mid = (cents: unknown, n: unknown) => (num(n) === 0 ? 0 : num(cents) / num(n) / 100);
  for (const r of rows)
    data[bucketKey(r.b)] = {
      midMarketCallPremium: mid(r.c_mid_cents, r.c_mid_n),
      midMarketPutPremium: mid(r.p_mid_cents, r.p_mid_n),
      netCallPremium: num(r.c_cents) / 100,
      netPutPremium: num(r.p_cents) / 100,
      netCallVolume: num(r.c_v),
      netPutVolume: num(r.p_v),
      stockPrice: num(r.px),
    };
  return data;
}

const priceOverTimeSql = (t: string, where: string) =>
  `SELECT ${MINUTE_BUCKET} AS b, (array_agg(option_price ORDER BY trade_time, row_key))[1] AS o, max(option_price) AS h, min(option_price) AS l,
     (array_agg(option_price ORDER BY trade_time DESC, row_key DESC))[1] AS c, sum(size) AS v FROM ${t} WHERE ${where} GROUP BY 1 ORDER BY 1`;
function priceOverTimeData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows) data[bucketKey(r.b)] = { openPrice: num(r.o), highPrice: num(r.h), lowPrice: num(r.l), closePrice: num(r.c), volume: num(r.v) };
  return data;
}

/**
 * The first difference between two answers, or null: numbers equal to 1e-9 relative, the same keys
 * at every level and in the same order at the top (buckets ascending, tickers alphabetical).
 */
export function firstDifference(a: unknown, b: unknown, at = 'data'): string | null {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)) ? null : `${at}: ${a} != ${b}`;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const top = at === 'data';
    const ka = top ? Object.keys(a) : Object.keys(a).sort();
    const kb = top ? Object.keys(b) : Object.keys(b).sort();
    if (ka.join() !== kb.join()) return `${at}: keys ${ka.slice(0, 8).join()}… != ${kb.slice(0, 8).join()}… (${ka.length} / ${kb.length})`;
    for (const k of ka) {
      const d = firstDifference((a as Row)[k], (b as Row)[k], `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${at}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
}

export type FlowKind = 'cube' | 'scan' | 'reference';
export interface FlowCase {
  name: string;
  kind: FlowKind;
  role?: 'typical' | 'heavy';
  path: string;
  body: Record<string, unknown>;
  /** The same question in SQL and its rows as the API's `data`; none for the reference (the tape). */
  sql?: string;
  data?: (rows: Row[]) => Row;
}

export function flowCases(d: FlowData): FlowCase[] {
  const t = d.table;
  const DATE = d.date;
  const s = `session_date = '${DATE}'`;
  const one = `ticker = '${d.ticker}' AND ${s}`;
  const body = { sessionDate: DATE, filter: { tickers: d.ticker } };
  const first = d.historySessions[0] ?? DATE;
  const nextDay = TRADING_DAYS[dayIndex(DATE) + 1];
  const range = {
    timeRange: { startTime: new Date(nyLocalToEpochMs(first, 0, 0)).toISOString(), endTime: new Date(nyLocalToEpochMs(nextDay, 0, 0)).toISOString() },
    aggregationPeriod: '1d',
    filter: { tickers: d.ticker },
  };
  const many = `ticker = '${d.ticker}' AND session_date BETWEEN '${first}' AND '${DATE}'`;
  const n = d.historySessions.length + 1;
  return [
    {
      name: `contract-trade-side-statistics, ${d.ticker}`,
      kind: 'cube',
      role: 'typical',
      path: 'contract-trade-side-statistics',
      body: { ...body, dataMode: 'PREMIUM' },
      sql: ctssSql(t, one),
      data: ctssData,
    },
    {
      name: `contract-statistics, ${d.ticker}`,
      kind: 'cube',
      role: 'typical',
      path: 'contract-statistics',
      body,
      sql: contractStatisticsSql(t, one),
      data: contractStatisticsData,
    },
    {
      name: 'contract-statistics, whole market (empty body)',
      kind: 'cube',
      role: 'heavy',
      path: 'contract-statistics',
      body: {},
      sql: contractStatisticsSql(t, s),
      data: contractStatisticsData,
    },
    {
      name: 'contract-statistics, whole market, premium >= 100000 (filterExpression, premium-tier cells)',
      kind: 'cube',
      role: 'heavy',
      path: 'contract-statistics',
      body: { sessionDate: DATE, filterExpression: { field: 'premium', operation: '>=', value: 100000 } },
      sql: contractStatisticsSql(t, `${s} AND premium >= 100000`),
      data: contractStatisticsData,
    },
    {
      name: `volatility-drift, ${d.ticker}, nearest expiration`,
      kind: 'cube',
      role: 'typical',
      path: 'volatility-drift',
      body: { sessionDate: DATE, filter: { ticker: d.ticker } },
      sql: volatilityDriftSql(t, d.ticker, DATE),
      data: volatilityDriftData,
    },
    { name: `market-share, ${d.ticker}`, kind: 'cube', role: 'typical', path: 'market-share', body, sql: marketShareSql(t, one), data: marketShareData },
    {
      name: `gainers-losers, ${d.ticker}`,
      kind: 'cube',
      role: 'typical',
      path: 'gainers-losers',
      body,
      sql: gainersLosersSql(t, one),
      data: gainersLosersData,
    },
    {
      name: `option-price-over-time, busiest ${d.ticker} contract, 1m`,
      kind: 'cube',
      role: 'typical',
      path: 'option-price-over-time',
      body: { sessionDate: DATE, aggregationPeriod: '1m', filter: { osi: d.osi } },
      sql: priceOverTimeSql(t, `osi = '${d.osi}' AND ${s}`),
      data: priceOverTimeData,
    },
    {
      name: 'gainers-losers, whole market (empty body)',
      kind: 'cube',
      role: 'heavy',
      path: 'gainers-losers',
      body: {},
      sql: gainersLosersSql(t, s),
      data: gainersLosersData,
    },
    {
      name: 'market-share, whole market (empty body)',
      kind: 'cube',
      role: 'heavy',
      path: 'market-share',
      body: {},
      sql: marketShareSql(t, s),
      data: marketShareData,
    },
    {
      name: 'contract-trade-side-statistics, whole market (dataMode only)',
      kind: 'cube',
      role: 'heavy',
      path: 'contract-trade-side-statistics',
      body: { dataMode: 'PREMIUM' },
      sql: ctssSql(t, s),
      data: ctssData,
    },
    {
      name: `net-flow, ${d.ticker}, ${n} sessions, 1d`,
      kind: 'cube',
      role: 'heavy',
      path: 'net-flow',
      body: { ...range, dataMode: 'NET_PREMIUM' },
      sql: netFlowSql(t, many, '1d', true),
      data: netFlowData,
    },
    {
      name: `net-drift, ${d.ticker}, ${n} sessions, 1d`,
      kind: 'cube',
      role: 'heavy',
      path: 'net-drift',
      body: range,
      sql: netDriftSql(t, many, '1d'),
      data: netDriftData,
    },
    {
      name: `net-flow, ${d.ticker}, 1m`,
      kind: 'cube',
      role: 'typical',
      path: 'net-flow',
      body: { ...body, dataMode: 'NET_PREMIUM', aggregationPeriod: '1m' },
      sql: netFlowSql(t, one, '1m', true),
      data: netFlowData,
    },
    {
      name: `net-drift, ${d.ticker}, 1m`,
      kind: 'cube',
      role: 'typical',
      path: 'net-drift',
      body: { ...body, aggregationPeriod: '1m' },
      sql: netDriftSql(t, one, '1m'),
      data: netDriftData,
    },
    {
      name: 'net-flow, whole market, 1m',
      kind: 'cube',
      role: 'heavy',
      path: 'net-flow',
      body: { sessionDate: DATE, dataMode: 'NET_PREMIUM', aggregationPeriod: '1m' },
      sql: netFlowSql(t, s, '1m', false),
      data: netFlowData,
    },
    {
      name: 'scan: contract-trade-side-statistics, whole market, premium ≥ $500k',
      kind: 'scan',
      role: 'heavy',
      path: 'contract-trade-side-statistics',
      body: { sessionDate: DATE, dataMode: 'PREMIUM', filter: { premiumRange: { min: 500_000 } } },
      sql: ctssSql(t, `${s} AND premium >= 500000`),
      data: ctssData,
    },
    {
      name: "the tape's selective query: unconsolidated, PUT + premium ≥ $500k + ASK + TECHNOLOGY, 50 rows",
      kind: 'reference',
      path: 'order-flow/unconsolidated',
      body: { sessionDate: DATE, size: 50, filter: { contractTypes: 'PUT', premiumRange: { min: 500_000 }, tradeSideCodes: 'ASK', sectors: 'TECHNOLOGY' } },
    },
  ];
}

/** A case as a side-by-side question: the API's `data` equal to the one built from PostgreSQL's rows. */
export function flowQuery(c: FlowCase): SideBySideQuery {
  return {
    name: c.name,
    role: c.role,
    path: `/v1/options/tool/${c.path}`,
    body: c.body,
    sql: c.sql ?? '',
    params: [],
    same: (api, rows) => c.data !== undefined && firstDifference(api.data, c.data(rows)) === null,
  };
}
