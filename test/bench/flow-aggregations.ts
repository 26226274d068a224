/**
 * The flow-aggregation endpoints beside PostgreSQL answering the same questions with GROUP BY over
 * the same prints, in one run: `npx tsx test/bench/flow-aggregations.ts [--seconds 5]
 * [--clients 32] [--date 2024-05-01] [--every 8] [--sessions 30] [--ticker T] [--check-only]`
 * (`--check-only`: the answers compared, nothing timed or written).
 *
 * Data: one whole simulated `full` session of every `--every`-th underlying (all their option
 * prints, enriched by the processor's own fold; test/support/order-flow-sample.ts), projected into
 * the prints view and the cube of a private redis-server with the projections' own logic (no
 * Kafka), plus the `--sessions` - 1 sessions before it of one ticker (cube only: the case reading
 * them is served from the cube), generated with the simulator the same way. The same prints go
 * into a PostgreSQL table (PG_URL, test/bench/postgres.ts) with covering indexes for each
 * question. The one ticker is the busiest with at most 20,000 prints in the session (a liquid
 * single name whose 30 sessions fit in memory), unless `--ticker` names one.
 *
 * Each case is checked first (the API's answer equals the one built from PostgreSQL's rows), then
 * run for `--seconds` at `--clients` closed-loop clients against the API in this process with
 * its response cache off (wrk) and against PostgreSQL (pgbench, prepared statements;
 * test/bench/load-drivers.ts). Goals (issue 27): every cube-served case ≥ 20× PostgreSQL's
 * requests/s with p99 ≤ 50 ms; the scanning case no slower than the order-flow tape's selective
 * query, measured in the same run. A slow answer (one client alone) gets a longer run, up to 20 s. Results to test/bench/results/flow-aggregations.json.
 */
import fs from 'fs';
import path from 'path';
import { parseArgs } from 'util';
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { topicFor } from '../../schemas/catalog';
import { loadConfig } from '../../services/config';
import { nyLocalToEpochMs } from '../../services/domain/calendar';
import type { EnrichedPrintEvent } from '../../services/domain/order-flow';
import { FLOW_AGGREGATES_VIEW } from '../../services/views/flow-aggregates';
import { ORDER_FLOW_PRINTS_VIEW } from '../../services/views/order-flow';
import { premiumCents } from '../../services/views/order-flow/statistics';
import { pointerKey } from '../../services/views/keys';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { PROFILES } from '../../ingest/simulator/profiles';
import { TRADING_DAYS, dayIndex } from '../../ingest/simulator/market';
import { flowAggregatesProjection } from '../../projections/flow-aggregates/projection';
import { orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { privateRedisServer, projectInChunks } from '../support/bench-redis';
import { startApi } from '../support/http';
import { SampleFold, sampleOpenInterest, sampleSymbols } from '../support/order-flow-sample';
import { hasCommand, pgbenchLoad, wrkLoad, type LoadResult } from './load-drivers';
import { PG_URL, copyRows, openPostgres } from './postgres';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    clients: { type: 'string', default: '32' },
    date: { type: 'string', default: '2024-05-01' },
    every: { type: 'string', default: '8' },
    sessions: { type: 'string', default: '30' },
    ticker: { type: 'string' },
    'check-only': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
const DATE = values.date!;
const EVERY = Number(values.every);
const SESSIONS = Number(values.sessions);
const MAX_TICKER_PRINTS = 20_000;
/** The longest run of one side of a case (a slow answer's run is lengthened up to this). */
const MAX_SECONDS = 20;
/** An answer slower than this alone gets no warm-up run (its leftover requests would outlast it). */
const SLOW_MS = 100;
const T = `bench_flow_${Date.now().toString(36)}`;

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
];

function* rowsOf(prints: readonly EnrichedPrintEvent[]) {
  for (const p of prints) yield pgRow(p);
}

/** What a careful user would build for these questions: each one-ticker, contract and scan query reads one covering index. */
const INDEXES = [
  '(ticker, session_date, trade_time) INCLUDE (contract_type, trade_side, sentiment, exchange, is_index, premium_cents, size, stock_price, row_key)',
  '(session_date, ticker) INCLUDE (contract_type, trade_side, sentiment, exchange, is_index, premium_cents, size)',
  '(osi, session_date, trade_time, row_key) INCLUDE (option_price, size)',
  '(session_date, premium) INCLUDE (contract_type, trade_side, premium_cents)',
];

interface Loaded {
  ticker: string;
  osi: string;
  prints: number;
  underlyings: number;
  tickerPrints: number;
  historySessions: string[];
  historyPrints: number;
  seconds: number;
}

/** Generates the prints, projects them into Redis and loads them into PostgreSQL; returns what the cases need (the prints themselves are dropped). */
async function loadData(redis: Redis, pool: Pool): Promise<Loaded> {
  const t0 = Date.now();
  const market = new SimulatedMarket(42, PROFILES.full);
  const symbols = sampleSymbols(market, EVERY);
  const fold = new SampleFold(market);
  const printTopic = topicFor('enriched-print')!.name;
  await pool.query(`CREATE TABLE ${T} (row_key text NOT NULL, session_date date NOT NULL, ticker text NOT NULL, osi text NOT NULL,
    contract_type text NOT NULL, trade_side text NOT NULL, sentiment text NOT NULL, exchange text NOT NULL, is_index boolean NOT NULL,
    premium float8 NOT NULL, premium_cents bigint NOT NULL, size int NOT NULL, option_price float8 NOT NULL, stock_price float8 NOT NULL,
    trade_time bigint NOT NULL)`);

  const prints: EnrichedPrintEvent[] = [];
  for (const o of fold.session(DATE, symbols)) prints.push(o.enriched);
  console.log(`[data] ${DATE}: ${prints.length} prints of ${symbols.size} underlyings (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  await projectInChunks(redis, orderFlowPrintsProjection, topicFor('open-interest')!.name, sampleOpenInterest(market, DATE, symbols));
  await projectInChunks(redis, orderFlowPrintsProjection, printTopic, prints);
  await projectInChunks(redis, flowAggregatesProjection, printTopic, prints);
  await copyRows(pool, T, COLUMNS, rowsOf(prints));
  console.log(`[data] projected and copied (${((Date.now() - t0) / 1000).toFixed(0)} s)`);

  const counts = new Map<string, number>();
  for (const p of prints) counts.set(p.ticker, (counts.get(p.ticker) ?? 0) + 1);
  const ticker = values.ticker ?? [...counts].filter(([, n]) => n <= MAX_TICKER_PRINTS).sort((a, b) => b[1] - a[1])[0][0];
  const byOsi = new Map<string, number>();
  for (const p of prints) if (p.ticker === ticker) byOsi.set(p.osi, (byOsi.get(p.osi) ?? 0) + 1);
  const osi = [...byOsi].sort((a, b) => b[1] - a[1])[0][0];
  const total = prints.length;
  prints.length = 0;

  // The ticker's sessions before DATE, oldest first (the fold and the projection take them in stream order).
  const end = dayIndex(DATE);
  const history = TRADING_DAYS.slice(end - (SESSIONS - 1), end);
  let historyPrints = 0;
  for (const d of history) {
    const day: EnrichedPrintEvent[] = [];
    for (const o of fold.session(d, new Set([ticker]))) day.push(o.enriched);
    await projectInChunks(redis, flowAggregatesProjection, printTopic, day);
    await copyRows(pool, T, COLUMNS, rowsOf(day));
    historyPrints += day.length;
  }
  console.log(`[data] ${history.length} earlier sessions of ${ticker}: ${historyPrints} prints (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  for (const view of [ORDER_FLOW_PRINTS_VIEW, FLOW_AGGREGATES_VIEW]) await redis.set(pointerKey('mdq', view), '1');
  for (const ix of INDEXES) await pool.query(`CREATE INDEX ON ${T} ${ix}`);
  // VACUUM sets the visibility map, without which PostgreSQL cannot use an index-only scan.
  await pool.query(`VACUUM ANALYZE ${T}`);
  console.log(`[data] indexed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  return {
    ticker,
    osi,
    prints: total,
    underlyings: symbols.size,
    tickerPrints: counts.get(ticker) ?? 0,
    historySessions: history,
    historyPrints,
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

const ctssSql = (where: string) => `SELECT contract_type, trade_side, sum(premium_cents) AS cents FROM ${T} WHERE ${where} GROUP BY 1, 2 ORDER BY 1, 2`;
function ctssData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows) (data[r.contract_type] ??= {})[r.trade_side] = { premium: num(r.cents) / 100 };
  return data;
}

const LEGS = { equityCall: `NOT is_index AND contract_type = 'CALL'`, equityPut: `NOT is_index AND contract_type = 'PUT'`, index: 'is_index' };
const marketShareSql = (where: string) =>
  `SELECT exchange, ${Object.entries(LEGS)
    .map(([k, w]) => `sum(premium_cents) FILTER (WHERE ${w}) AS ${k}_cents, count(*) FILTER (WHERE ${w}) AS ${k}_n, sum(size) FILTER (WHERE ${w}) AS ${k}_v`)
    .join(', ')} FROM ${T} WHERE ${where} GROUP BY exchange ORDER BY exchange`;
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

const gainersLosersSql = (where: string) => `SELECT ticker, bull, bear, cents, n, v, CASE WHEN bull = 0 THEN 0 ELSE bear::float8 / bull END AS ratio FROM (
    SELECT ticker, coalesce(sum(premium_cents) FILTER (WHERE sentiment = 'BULLISH'), 0) AS bull,
      coalesce(sum(premium_cents) FILTER (WHERE sentiment = 'BEARISH'), 0) AS bear, sum(premium_cents) AS cents, count(*) AS n, sum(size) AS v
    FROM ${T} WHERE ${where} GROUP BY ticker) g ORDER BY ticker`;
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

const netFlowSql = (where: string, period: keyof typeof BUCKETS, oneTicker: boolean) =>
  `SELECT ${BUCKETS[period]} AS b, coalesce(sum(${NET('premium_cents')}) FILTER (WHERE contract_type = 'CALL'), 0) AS calls,
     coalesce(sum(${NET('premium_cents')}) FILTER (WHERE contract_type = 'PUT'), 0) AS puts${oneTicker ? `, ${LAST_STOCK_PRICE} AS px` : ''}
   FROM ${T} WHERE ${where} GROUP BY 1 ORDER BY 1`;
function netFlowData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows) data[bucketKey(r.b)] = { callSum: num(r.calls), putSum: num(r.puts), ...(r.px === undefined ? {} : { stockPrice: num(r.px) }) };
  return data;
}

const netDriftSql = (where: string, period: keyof typeof BUCKETS) => {
  const leg = (ct: string, name: string) => `
     coalesce(sum(premium_cents) FILTER (WHERE contract_type = '${ct}' AND trade_side = 'MID_MARKET'), 0) AS ${name}_mid_cents,
     coalesce(sum(size) FILTER (WHERE contract_type = '${ct}' AND trade_side = 'MID_MARKET'), 0) AS ${name}_mid_n,
     coalesce(sum(${NET('premium_cents')}) FILTER (WHERE contract_type = '${ct}'), 0) AS ${name}_cents,
     coalesce(sum(${NET('size')}) FILTER (WHERE contract_type = '${ct}'), 0) AS ${name}_v`;
  return `SELECT ${BUCKETS[period]} AS b, ${leg('CALL', 'c')}, ${leg('PUT', 'p')}, ${LAST_STOCK_PRICE} AS px FROM ${T} WHERE ${where} GROUP BY 1 ORDER BY 1`;
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

const priceOverTimeSql = (where: string) =>
  `SELECT ${MINUTE_BUCKET} AS b, (array_agg(option_price ORDER BY trade_time, row_key))[1] AS o, max(option_price) AS h, min(option_price) AS l,
     (array_agg(option_price ORDER BY trade_time DESC, row_key DESC))[1] AS c, sum(size) AS v FROM ${T} WHERE ${where} GROUP BY 1 ORDER BY 1`;
function priceOverTimeData(rows: Row[]): Row {
  const data: Row = {};
  for (const r of rows) data[bucketKey(r.b)] = { openPrice: num(r.o), highPrice: num(r.h), lowPrice: num(r.l), closePrice: num(r.c), volume: num(r.v) };
  return data;
}

/**
 * The first difference between two answers, or null: numbers equal to 1e-9 relative, the same keys
 * at every level and in the same order at the top (buckets ascending, tickers alphabetical).
 */
function firstDifference(a: unknown, b: unknown, at = 'data'): string | null {
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

/** The median latency of 3 requests one after the other, ms. */
async function aloneMs(fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return Math.round(ms.sort((a, b) => a - b)[1] * 100) / 100;
}

type Kind = 'cube' | 'scan' | 'reference';
interface Case {
  name: string;
  kind: Kind;
  path: string;
  body: Record<string, unknown>;
  /** The same question in SQL and its rows as the API's `data`; none for the reference (the tape). */
  sql?: string;
  data?: (rows: Row[]) => Row;
}

function cases(d: Loaded): Case[] {
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
      path: 'contract-trade-side-statistics',
      body: { ...body, dataMode: 'PREMIUM' },
      sql: ctssSql(one),
      data: ctssData,
    },
    { name: `market-share, ${d.ticker}`, kind: 'cube', path: 'market-share', body, sql: marketShareSql(one), data: marketShareData },
    { name: `gainers-losers, ${d.ticker}`, kind: 'cube', path: 'gainers-losers', body, sql: gainersLosersSql(one), data: gainersLosersData },
    {
      name: `option-price-over-time, busiest ${d.ticker} contract, 1m`,
      kind: 'cube',
      path: 'option-price-over-time',
      body: { sessionDate: DATE, aggregationPeriod: '1m', filter: { osi: d.osi } },
      sql: priceOverTimeSql(`osi = '${d.osi}' AND ${s}`),
      data: priceOverTimeData,
    },
    { name: 'gainers-losers, whole market (empty body)', kind: 'cube', path: 'gainers-losers', body: {}, sql: gainersLosersSql(s), data: gainersLosersData },
    { name: 'market-share, whole market (empty body)', kind: 'cube', path: 'market-share', body: {}, sql: marketShareSql(s), data: marketShareData },
    {
      name: 'contract-trade-side-statistics, whole market (dataMode only)',
      kind: 'cube',
      path: 'contract-trade-side-statistics',
      body: { dataMode: 'PREMIUM' },
      sql: ctssSql(s),
      data: ctssData,
    },
    {
      name: `net-flow, ${d.ticker}, ${n} sessions, 1d`,
      kind: 'cube',
      path: 'net-flow',
      body: { ...range, dataMode: 'NET_PREMIUM' },
      sql: netFlowSql(many, '1d', true),
      data: netFlowData,
    },
    { name: `net-drift, ${d.ticker}, ${n} sessions, 1d`, kind: 'cube', path: 'net-drift', body: range, sql: netDriftSql(many, '1d'), data: netDriftData },
    {
      name: `net-flow, ${d.ticker}, 1m`,
      kind: 'cube',
      path: 'net-flow',
      body: { ...body, dataMode: 'NET_PREMIUM', aggregationPeriod: '1m' },
      sql: netFlowSql(one, '1m', true),
      data: netFlowData,
    },
    {
      name: 'net-flow, whole market, 1m',
      kind: 'cube',
      path: 'net-flow',
      body: { sessionDate: DATE, dataMode: 'NET_PREMIUM', aggregationPeriod: '1m' },
      sql: netFlowSql(s, '1m', false),
      data: netFlowData,
    },
    {
      name: 'scan: contract-trade-side-statistics, whole market, premium ≥ $500k',
      kind: 'scan',
      path: 'contract-trade-side-statistics',
      body: { sessionDate: DATE, dataMode: 'PREMIUM', filter: { premiumRange: { min: 500_000 } } },
      sql: ctssSql(`${s} AND premium >= 500000`),
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

async function main(): Promise<void> {
  for (const cmd of ['wrk', 'pgbench'])
    if (!hasCommand(cmd)) throw new Error(`${cmd} is not on the PATH: apt-get install -y ${cmd === 'wrk' ? 'wrk' : 'postgresql-client'}`);
  const { redis, server } = await privateRedisServer();
  const pool = await openPostgres(4);
  const url = `redis://127.0.0.1:${redis.options.port}`;
  try {
    const d = await loadData(redis, pool);
    const api = await startApi(
      {
        ...loadConfig({ ...process.env, KAFKA_BROKERS: 'unused:9092', SCHEMA_REGISTRY_URL: 'http://unused', REDIS_URL: url }),
        redisUrl: url,
        viewsRedisUrl: url,
        keyPrefix: 'mdq',
      },
      { responseCacheBytes: 0 },
    );
    const results: Record<string, unknown>[] = [];
    try {
      const all = cases(d);
      // Every answer checked before any timing: a mismatch stops the run.
      const checked = new Map<Case, { rows: number; answerBytes: number }>();
      for (const c of all) {
        const res = await api.post(`/v1/options/tool/${c.path}`, c.body);
        if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${JSON.stringify(res.json)}`);
        const size = JSON.stringify(res.json.data).length;
        if (c.sql) {
          const diff = firstDifference(res.json.data, c.data!((await pool.query(c.sql)).rows));
          if (diff) throw new Error(`${c.name}: the API and PostgreSQL disagree: ${diff}`);
        }
        checked.set(c, { rows: Array.isArray(res.json.data) ? res.json.data.length : Object.keys(res.json.data).length, answerBytes: size });
        console.log(`[check] ${c.name}: ${c.sql ? 'same answer as PostgreSQL' : 'answered'} (${checked.get(c)!.rows} keys)`);
      }
      const tape = { api: null as LoadResult | null };
      // PostgreSQL finishes a query whose client has gone, too.
      const pgDrain = async () => {
        for (let t0 = Date.now(); Date.now() - t0 < 120_000; await new Promise((r) => setTimeout(r, 250))) {
          const busy = await pool.query(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%${T}%'`,
          );
          if (Number(busy.rows[0].n) === 0) return;
        }
      };
      // wrk leaves its last requests in flight, and the API still answers them: wait until a
      // cheap answer is fast again, so that one case's leftovers do not slow the next.
      const cheap = all[0];
      const drain = async () => {
        for (let t0 = Date.now(); Date.now() - t0 < 120_000;) {
          const t = Date.now();
          await api.post(`/v1/options/tool/${cheap.path}`, cheap.body);
          if (Date.now() - t < 20) return;
          await new Promise((r) => setTimeout(r, 250));
        }
      };
      if (values['check-only']) return;
      for (const c of all) {
        // One client alone first (the answer's own cost); a slow answer gets a longer run, so that
        // 32 closed-loop clients complete each request a few times (capped at MAX_SECONDS).
        const apiAlone = await aloneMs(() => api.post(`/v1/options/tool/${c.path}`, c.body));
        const pgAlone = c.sql ? await aloneMs(() => pool.query(c.sql!)) : null;
        const secondsFor = (ms: number) => Math.min(MAX_SECONDS, Math.max(SECONDS, Math.ceil((3 * CLIENTS * ms) / 1000)));
        const apiLoad = await wrkLoad({
          urls: [`${api.url}/v1/options/tool/${c.path}`],
          headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(c.body),
          clients: CLIENTS,
          seconds: secondsFor(apiAlone),
          warmupSeconds: apiAlone > SLOW_MS ? 0 : 1,
        });
        await drain();
        const pgLoad = c.sql
          ? await pgbenchLoad({ pgUrl: PG_URL, sql: c.sql, clients: CLIENTS, seconds: secondsFor(pgAlone!), warmupSeconds: pgAlone! > SLOW_MS ? 0 : 1 })
          : null;
        await pgDrain();
        if (c.kind === 'reference') tape.api = apiLoad;
        const ratio = pgLoad ? Math.round((apiLoad.perSecond / pgLoad.perSecond) * 10) / 10 : null;
        const row: Record<string, unknown> = {
          case: c.name,
          kind: c.kind,
          body: c.body,
          ...checked.get(c),
          aloneMs: { api: apiAlone, postgres: pgAlone },
          seconds: { api: secondsFor(apiAlone), postgres: pgAlone === null ? null : secondsFor(pgAlone) },
          api: apiLoad,
          postgres: pgLoad,
          throughputRatio: ratio,
        };
        if (c.kind === 'cube') row.goalMet = ratio !== null && ratio >= 20 && apiLoad.p99 <= 50;
        results.push(row);
        console.log(
          `${c.name}: alone API ${apiAlone} ms${pgAlone === null ? '' : `, PG ${pgAlone} ms`}; API p50 ${apiLoad.p50} p99 ${apiLoad.p99} ms ${apiLoad.perSecond}/s (${apiLoad.errors} errors)` +
            (pgLoad ? ` | PG p50 ${pgLoad.p50} p99 ${pgLoad.p99} ms ${pgLoad.perSecond}/s | ${ratio}×` : ''),
        );
      }
      for (const r of results.filter((x) => x.kind === 'scan')) {
        const a = r.api as LoadResult;
        r.goalMet = tape.api !== null && a.p99 <= tape.api.p99 && a.perSecond >= tape.api.perSecond;
      }
    } finally {
      await api.close();
    }
    const size = await pool.query(`SELECT pg_table_size('${T}') AS t, pg_indexes_size('${T}') AS i`);
    const out = {
      measuredAt: new Date().toISOString(),
      data: {
        session: DATE,
        underlyings: d.underlyings,
        prints: d.prints,
        ticker: d.ticker,
        tickerPrints: d.tickerPrints,
        osi: d.osi,
        earlierSessionsOfTicker: d.historySessions.length,
        earlierPrints: d.historyPrints,
        preparedSeconds: Math.round(d.seconds),
        postgres: { rows: d.prints + d.historyPrints, tableBytes: Number(size.rows[0].t), indexBytes: Number(size.rows[0].i), indexes: INDEXES },
      },
      clients: CLIENTS,
      seconds: SECONDS,
      responseCache: 'off: every answer computed',
      driver: 'wrk (API, in this process) and pgbench (PostgreSQL, prepared statements), 1 thread each',
      machine: '2 cores shared by the API, Redis, PostgreSQL, the load generators and other sessions',
      goals: 'cube cases: throughputRatio ≥ 20 and API p99 ≤ 50 ms; scan case: p99 and requests/s no worse than the tape reference',
      cases: results,
    };
    const file = path.join(__dirname, 'results', 'flow-aggregations.json');
    fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`results written to ${path.relative(process.cwd(), file)}`);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${T}`).catch(() => undefined);
    await pool.end();
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
