import fc from 'fast-check';
import type { Admin } from 'kafkajs';
import type { RedisClient as Redis } from '../../services/redis/client';
import { marketFor } from '../../ingest/produce/session-producer';
import { OrderFlowPartition, UNKNOWN_REFERENCE, type ReferenceData } from '../../projections/order-flow-processor/partition-state';
import { caughtUp, viewLag } from '../../projections/runtime/versions';
import { MARKET_PARTITIONS, topicFor, topicName } from '../../schemas/catalog';
import { nyLocalToEpochMs } from '../../services/domain/calendar';
import { openInterestFlags, rowKeyOf, type EnrichedPrintEvent, type OptionPrint } from '../../services/domain/order-flow';
import { RISK_FREE_RATE } from '../../services/domain/rates';
import { loadUniverse } from '../../services/domain/universe';
import { createKafka } from '../../services/kafka/clients';
import { partitionOf } from '../../services/kafka/partition';
import { EventProducer } from '../../services/kafka/producer';
import { createRegistry } from '../../services/kafka/clients';
import { createRedis } from '../../services/redis/client';
import { CUBE_FIELDS, EXCHANGE_FIELDS, FLOW_AGGREGATES_VIEW, NET_FIELDS, TICKER_NET_FIELDS, type FlowCell } from '../../services/views/flow-aggregates';
import { ORDER_FLOW_PRINTS_VIEW, orderFlowLayout } from '../../services/views/order-flow';
import { PartitionKeys } from '../../services/views/keys';
import { WarmKeys, warmField } from '../../services/views/warm-tier';
import { settleWarmTier } from '../../projections/runtime/warm-tier';
import { cubeMover } from '../../projections/flow-aggregates/warm-tier';
import { cellLevel, readFlowCells, type FlowQuery } from '../../api/views/flow-aggregates/reader';
import { ViewPointers } from '../../api/views/pointer';
import type { EndpointDef } from '../../api/request/endpoint';
import { contractTradeSideStatistics } from '../../api/endpoints/options/contract-trade-side-statistics';
import { contractStatistics } from '../../api/endpoints/options/contract-statistics';
import { netFlow } from '../../api/endpoints/options/net-flow';
import { createLogger } from '../../services/log';
import { testConfig, waitFor } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { logEndAdmin } from '../support/kafka-count';
import { configEnv, spawnTs, provisionTestTopics } from '../support/pipeline';
import { expectProblem } from '../support/problem';
import { walkApi } from '../support/cursor-walk';
import type { OracleRow } from '../support/order-flow-oracle';
import * as oracle from '../support/flow-aggregations-oracle';
import { asServed } from '../support/served';

/**
 * The six flow-aggregation endpoints end to end: enriched prints (the order-flow processor's own
 * fold over simulated prints) produced to derived.order-flow.prints, projected by a projector
 * process into the prints view and the flow-aggregates cube, answered by the API over HTTP, and
 * compared with brute-force answers over the same prints (test/support/flow-aggregations-oracle.ts)
 * for random filters, windows and periods; the cross-checks with the tapes; every validation
 * rule; a live bucket that grows.
 *
 * flow-aggregations-warm.test.ts runs it all again with the older session in the warm tier of both
 * the cube and the prints view (TIERED below): the same answers, from compressed groups and blocks.
 */

/** Whether the projector keeps only the newest session hot (set by flow-aggregations-warm.test.ts). */
const TIERED = process.env.MDQ_TEST_FLOW_TIERED === '1';
const config = testConfig(TIERED ? 'flow-agg-warm' : 'flow-agg');
const D1 = '2026-11-19';
const D2 = '2026-11-20';
const P = (name: string) => `/v1/options/tool/${name}`;
const CTSS = P('contract-trade-side-statistics');
const CS = P('contract-statistics');
const MS = P('market-share');
const GL = P('gainers-losers');
const NF = P('net-flow');
const ND = P('net-drift');
const OPOT = P('option-price-over-time');
const U = P('order-flow/unconsolidated');

const REFERENCE = new Map<string, ReferenceData>(
  loadUniverse().map((i) => [i.symbol, { sector: i.sector, industry: i.industry, isETF: i.isETF, isIndex: i.isIndex }]),
);
const offsets = new Array<number>(MARKET_PARTITIONS).fill(0);
const folds = new Map<number, OrderFlowPartition>();

/** Simulated prints of `symbols` in session `date`, enriched by the processor's fold. */
function enriched(date: string, symbols: string[]): EnrichedPrintEvent[] {
  const tick = marketFor(42, 'dev').session(date, 'tick', new Set(symbols));
  const out: EnrichedPrintEvent[] = [];
  for (let k = 0; k < tick.chunks; k++) {
    for (const e of tick.chunk(k)) {
      if (e.type !== 'option-print') continue;
      const print = e.data as unknown as OptionPrint;
      const p = partitionOf(print.ticker, MARKET_PARTITIONS);
      if (!folds.has(p)) folds.set(p, new OrderFlowPartition(p, RISK_FREE_RATE));
      out.push(folds.get(p)!.apply(print, offsets[p]++, REFERENCE.get(print.ticker) ?? UNKNOWN_REFERENCE).enriched);
    }
  }
  return out;
}

const PRINTS = [...enriched(D1, ['AAPL', 'JPM', 'SPX', 'GME']), ...enriched(D2, ['AAPL', 'JPM', 'SPX', 'GME'])];
const toRow = (e: EnrichedPrintEvent): OracleRow => {
  const { printId: _p, ...row } = e;
  return { ...row, ...openInterestFlags(e, 0) };
};
const rows: OracleRow[] = PRINTS.map(toRow);

let admin: Admin;
let api: TestApi;
let producer: EventProducer;
let redis: Redis;
let projector: ReturnType<typeof spawnTs>;
const printsSpec = topicFor('enriched-print')!;

async function waitProjected(): Promise<void> {
  const topics = [topicName(printsSpec, config.topicPrefix)];
  const oi = topicName(topicFor('open-interest')!, config.topicPrefix);
  await waitFor(
    'the views to hold every print',
    async () => {
      if (projector.exitCode !== null) throw new Error(`the projector exited:\n${projector.output().slice(-3000)}`);
      const a = await viewLag(admin, redis, [...topics, oi], config.keyPrefix, ORDER_FLOW_PRINTS_VIEW, 1);
      const b = await viewLag(admin, redis, topics, config.keyPrefix, FLOW_AGGREGATES_VIEW, 1);
      return a.length > 0 && b.length > 0 && caughtUp(a) && caughtUp(b);
    },
    240_000,
    50,
  );
}

beforeAll(async () => {
  await provisionTestTopics(config);
  const kafka = createKafka(config, 'mdq-test');
  admin = logEndAdmin(kafka);
  await admin.connect();
  producer = new EventProducer(kafka, createRegistry(config), config.topicPrefix);
  await producer.connect();
  for (let i = 0; i < PRINTS.length; i += 2000) await producer.send(printsSpec, PRINTS.slice(i, i + 2000) as unknown as Record<string, unknown>[]);
  redis = createRedis(config.viewsRedisUrl);
  const tiers = TIERED ? { MDQ_HOT_SESSIONS: '1', MDQ_WARM_QUIET_MESSAGES: '0' } : {};
  projector = spawnTs('projections/main.ts', [ORDER_FLOW_PRINTS_VIEW, FLOW_AGGREGATES_VIEW], { ...configEnv(config), ...tiers });
  await waitProjected();
  if (TIERED) await settleOlderSession();
  api = await startApi(config);
}, 400_000);

afterAll(async () => {
  projector?.kill('SIGTERM');
  await producer?.disconnect();
  await api?.close();
  await admin?.disconnect();
  redis?.disconnect();
});

/** Moves D1 to the warm tier where the projector's last chunks left it hot, and checks that both views hold it warm. */
async function settleOlderSession(): Promise<void> {
  for (let p = 0; p < MARKET_PARTITIONS; p++) {
    await settleWarmTier(redis, cubeMover, new PartitionKeys(config.keyPrefix, FLOW_AGGREGATES_VIEW, 1, p), 1);
    await settleWarmTier(redis, orderFlowLayout(ORDER_FLOW_PRINTS_VIEW), new PartitionKeys(config.keyPrefix, ORDER_FLOW_PRINTS_VIEW, 1, p), 1);
  }
  for (const view of [FLOW_AGGREGATES_VIEW, ORDER_FLOW_PRINTS_VIEW]) {
    for (const t of TICKERS) {
      const keys = new PartitionKeys(config.keyPrefix, view, 1, partitionOf(t, MARKET_PARTITIONS));
      expect(await redis.hget(new WarmKeys(keys).tier, warmField(D1))).not.toBeNull();
      expect(await redis.hget(new WarmKeys(keys).tier, warmField(D2))).toBeNull();
    }
  }
}

async function ok(path: string, body: unknown): Promise<any> {
  const res = await api.post(path, body);
  if (res.status !== 200) throw new Error(`${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

/** Equal values and equal key order (buckets ascending, tickers and exchanges alphabetical). */
/** The API's answer against the oracle's, as the API writes it (JSON without float noise: asServed). */
function expectSame(got: any, oracle: any, body: unknown): void {
  const want = asServed(oracle);
  try {
    expect(got).toEqual(want);
    expect(Object.keys(got.data)).toEqual(Object.keys(want.data));
  } catch (e) {
    throw new Error(`for ${JSON.stringify(body)}: ${(e as Error).message}`, { cause: e });
  }
}

const ofSession = (d: string) => rows.filter((r) => r.sessionDate === d);
const TICKERS = ['AAPL', 'JPM', 'SPX', 'GME'];
const EXPIRATIONS = [...new Set(rows.map((r) => r.expirationDate))].sort();
const STRIKES = [...new Set(rows.map((r) => r.strikePrice))].sort((a, b) => a - b);
const EXCHANGES = [...new Set(rows.map((r) => r.exchange))].sort();
const SECTORS = [...new Set(rows.map((r) => r.sector))];

it('the data set has two sessions, index and equity options, every trade side and several exchanges', () => {
  expect(ofSession(D1).length).toBeGreaterThan(1000);
  expect(ofSession(D2).length).toBeGreaterThan(1000);
  expect(rows.some((r) => r.isIndex)).toBe(true);
  expect(rows.some((r) => !r.isIndex)).toBe(true);
  expect(new Set(rows.map((r) => r.tradeSideCode)).size).toBe(5);
  expect(EXCHANGES.length).toBeGreaterThan(3);
});

// --- random requests ---------------------------------------------------------------------------

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const some = <T>(xs: readonly T[]) => fc.uniqueArray(pick(xs), { minLength: 1, maxLength: 3 });
const D2_OPEN = nyLocalToEpochMs(D2, 9, 30);
const D1_OPEN = nyLocalToEpochMs(D1, 9, 30);

/** sessionDate, none, or a window: whole minutes (cube) or cut minutes (scan), within one session or across both. */
const timeArb = fc.oneof(
  fc.constant({}),
  fc.record({ sessionDate: pick([D1, D2]) }),
  fc
    .record({
      open: pick([D1_OPEN, D2_OPEN]),
      from: fc.integer({ min: 0, max: 300 }),
      len: fc.integer({ min: 1, max: 200 }),
      cut: fc.integer({ min: 0, max: 59_999 }),
      aligned: fc.boolean(),
    })
    .map((r) => {
      const start = r.open + r.from * 60_000 + (r.aligned ? 0 : r.cut);
      return { timeRange: { startTime: new Date(start).toISOString(), endTime: new Date(start + r.len * 60_000).toISOString() } };
    }),
  fc.constant({ timeRange: { startTime: new Date(D1_OPEN + 3_600_000).toISOString(), endTime: new Date(D2_OPEN + 3_600_000).toISOString() } }),
  // Windows that hold a whole session (read from its session cells) beside one they cut (minutes).
  fc.constant({ timeRange: { startTime: new Date(nyLocalToEpochMs(D1, 0, 0)).toISOString(), endTime: new Date(D2_OPEN + 3_600_000).toISOString() } }),
  fc.constant({ timeRange: { startTime: new Date(nyLocalToEpochMs(D1, 0, 0)).toISOString(), endTime: new Date(nyLocalToEpochMs(D2, 23, 0)).toISOString() } }),
);

const range = (xs: number[]) =>
  fc
    .record({ min: fc.option(pick(xs), { nil: null }), max: fc.option(pick(xs), { nil: null }) })
    .map((r) => (r.min !== null && r.max !== null && r.min > r.max ? { min: r.max, max: r.min } : r));
const FILTER_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  tickers: some(TICKERS),
  sectors: some(SECTORS),
  contractTypes: some(['CALL', 'PUT']),
  moneyTypes: some(['ATM', 'ITM', 'OTM']),
  tradeSideCodes: some(['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID', 'AA', 'A', 'M', 'B', 'BB']),
  sentimentTypes: some(['BULLISH', 'BEARISH', 'NEUTRAL']),
  exchanges: some(EXCHANGES),
  expirationDates: some(EXPIRATIONS.slice(0, 8)),
  strikePriceRange: range(STRIKES.filter((_, i) => i % 7 === 0)),
  premiumRange: range([100, 1_000, 10_000, 50_000]),
  sizeRange: range([1, 5, 20, 100]),
  isUnusual: fc.boolean(),
  dteRange: range([0, 1, 7, 30]),
};
const TERMS = {
  TICKER: fc.record({ field: pick(['TICKER', 'ticker']), operation: pick(['=', '!=']), values: some(TICKERS) }),
  TRADE_SIDE_CODE: fc.record({ field: pick(['TRADE_SIDE_CODE', 'tradeSideCode']), operation: pick(['=', '!=']), values: some(['A', 'AA', 'BID', 'M']) }),
  CONTRACT_TYPE: fc.record({ field: pick(['CONTRACT_TYPE']), operation: pick(['=']), value: pick(['CALL', 'PUT']) }),
  STRIKE_PRICE: fc.record({ field: pick(['STRIKE_PRICE']), operation: pick(['<', '>=']), value: pick(STRIKES.filter((_, i) => i % 11 === 0)) }),
  PREMIUM: fc.record({ field: pick(['PREMIUM', 'premium']), operation: pick(['<', '>=']), value: pick([500, 5_000, 50_000]) }),
  DTE: fc.record({ field: pick(['DTE', 'dte']), operation: pick(['<', '>=']), value: pick([1, 7, 30]) }),
};

function requestArb(filterKeys: string[], terms: (keyof typeof TERMS)[], extra: Record<string, fc.Arbitrary<unknown>>) {
  const filter = fc.record(Object.fromEntries(filterKeys.map((k) => [k, FILTER_VALUES[k]])), { requiredKeys: [] });
  const term = fc.oneof(...terms.map((t) => TERMS[t]));
  const expression = fc.oneof(term, fc.record({ conjunction: pick(['AND', 'OR']), filters: fc.array(term, { minLength: 1, maxLength: 3 }) }));
  return fc
    .tuple(timeArb, fc.record({ filter, filterExpression: expression }, { requiredKeys: [] }), fc.record(extra))
    .map(([time, f, x]) => ({ ...time, ...f, ...x }) as Record<string, any>);
}

/** A period the request's span accepts (the compatibility table of docs/decisions.md). */
function withPeriod(body: Record<string, any>, seed: number): Record<string, any> {
  const span = body.timeRange ? Date.parse(body.timeRange.endTime) - Date.parse(body.timeRange.startTime) : 86_400_000;
  const allowed = span <= 86_400_000 ? ['1m', '5m', '15m', '30m', '1h', '1d'] : ['5m', '15m', '30m', '1h', '1d'];
  return { ...body, aggregationPeriod: allowed[Math.abs(seed) % allowed.length] };
}

const TRADE_FILTERS = [
  'tickers',
  'sectors',
  'contractTypes',
  'moneyTypes',
  'tradeSideCodes',
  'sentimentTypes',
  'exchanges',
  'expirationDates',
  'strikePriceRange',
  'premiumRange',
  'sizeRange',
  'isUnusual',
];
const ALL_TERMS = Object.keys(TERMS) as (keyof typeof TERMS)[];
const RUNS = 40;

describe('answers equal brute force over the same prints (random filters, windows, periods)', () => {
  it('contract-trade-side-statistics', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb(TRADE_FILTERS, ALL_TERMS, { dataMode: pick(['PREMIUM', 'TRADE_COUNT', 'VOLUME']) }), async (body) => {
        expectSame(await ok(CTSS, body), oracle.contractTradeSideStatistics(rows, body), body);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('contract-statistics', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb(TRADE_FILTERS, ALL_TERMS, {}), async (body) => {
        expectSame(await ok(CS, body), oracle.contractStatistics(rows, body), body);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('market-share', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb(TRADE_FILTERS, ALL_TERMS, {}), async (body) => {
        expectSame(await ok(MS, body), oracle.marketShare(rows, body), body);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('gainers-losers', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb(['tickers', 'sectors', 'expirationDates', 'dteRange'], ['TICKER', 'DTE'], {}), async (body) => {
        expectSame(await ok(GL, body), oracle.gainersLosers(rows, body), body);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('net-flow', async () => {
    const arb = fc.tuple(
      requestArb(['tickers', 'expirationDates', 'strikePriceRange', 'moneyTypes', 'tradeSideCodes'], ALL_TERMS, {
        dataMode: pick(['NET_PREMIUM', 'NET_VOLUME']),
      }),
      fc.integer(),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([b, seed]) => {
        const body = withPeriod(b, seed);
        expectSame(await ok(NF, body), oracle.netFlow(rows, body), body);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('windows holding whole sessions beside one they cut: session cells and minutes together give the brute-force answer', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const windows = [
      { startTime: iso(nyLocalToEpochMs(D1, 0, 0)), endTime: iso(D2_OPEN + 3_600_000) }, // D1 whole, D2 cut
      { startTime: iso(D1_OPEN + 3_600_000), endTime: iso(nyLocalToEpochMs(D2, 23, 0)) }, // D1 cut, D2 whole
      { startTime: iso(nyLocalToEpochMs(D1, 0, 0)), endTime: iso(nyLocalToEpochMs(D2, 23, 0)) }, // both whole
    ];
    for (const timeRange of windows) {
      for (const filter of [{}, { tickers: ['AAPL'] }, { tickers: ['AAPL'], strikePriceRange: { min: STRIKES[20] } }]) {
        for (const aggregationPeriod of ['1d', '1h']) {
          const body = { timeRange, filter, aggregationPeriod };
          expectSame(await ok(NF, { ...body, dataMode: 'NET_PREMIUM' }), oracle.netFlow(rows, { ...body, dataMode: 'NET_PREMIUM' }), body);
          expectSame(await ok(ND, body), oracle.netDrift(rows, body), body);
        }
        expectSame(
          await ok(CTSS, { timeRange, filter, dataMode: 'VOLUME' }),
          oracle.contractTradeSideStatistics(rows, { timeRange, filter, dataMode: 'VOLUME' }),
          {},
        );
        expectSame(await ok(MS, { timeRange, filter }), oracle.marketShare(rows, { timeRange, filter }), {});
      }
    }
  });

  it('net-drift', async () => {
    const arb = fc.tuple(requestArb(['tickers', 'expirationDates', 'strikePriceRange', 'moneyTypes'], ALL_TERMS, {}), fc.integer());
    await fc.assert(
      fc.asyncProperty(arb, async ([b, seed]) => {
        const body = withPeriod(b, seed);
        expectSame(await ok(ND, body), oracle.netDrift(rows, body), body);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('option-price-over-time, by osi or by the four parts', async () => {
    const traded = [...new Map(rows.map((r) => [r.osi, r])).values()];
    const contract = fc
      .tuple(pick(traded), fc.boolean())
      .map(([r, byOsi]) =>
        byOsi
          ? { osi: (r.osi as string).toLowerCase() }
          : { ticker: r.ticker, expirationDate: r.expirationDate, strikePrice: r.strikePrice, contractType: r.contractType },
      );
    await fc.assert(
      fc.asyncProperty(timeArb, contract, fc.integer(), async (time, filter, seed) => {
        const body = withPeriod({ ...time, filter }, seed);
        expectSame(await ok(OPOT, body), oracle.optionPriceOverTime(rows, body), body);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('a single ticker gets stockPrice in every bucket; two tickers get none', async () => {
    const one = await ok(ND, { sessionDate: D2, aggregationPeriod: '15m', filter: { ticker: 'AAPL' } });
    expect(Object.keys(one.data).length).toBeGreaterThan(10);
    expect(Object.values(one.data).every((b: any) => typeof b.stockPrice === 'number')).toBe(true);
    const two = await ok(NF, { dataMode: 'NET_VOLUME', sessionDate: D2, aggregationPeriod: '15m', filter: { tickers: ['AAPL', 'GME'] } });
    expect(Object.values(two.data).some((b: any) => 'stockPrice' in b)).toBe(false);
  });

  it('empty buckets are omitted: every bucket returned holds a matching print', async () => {
    const body = {
      sessionDate: D2,
      aggregationPeriod: '1m',
      dataMode: 'NET_VOLUME',
      filter: { tickers: 'GME' },
      filterExpression: { field: 'CONTRACT_TYPE', operation: '=', value: 'PUT' },
    };
    const got = await ok(NF, body);
    const minutes = new Set(oracle.matching(rows, body).map((r) => oracle.bucketOf('1m', r.tradeTime)));
    expect(Object.keys(got.data).map(Number)).toEqual([...minutes].sort((a, b) => a - b));
    expect(minutes.size).toBeLessThan(390);
  });
});

describe('the cube and the scan of the prints view agree', () => {
  it('for cube-served queries, at every cell level, forcing the scan gives the same sums', async () => {
    /** Sums per the values of `dims` (cell properties), and per minute when `minutes` (the scan's cells always carry theirs). */
    const sum = (cells: FlowCell[], dims: (keyof FlowCell)[], minutes: boolean) => {
      const m = new Map<string, number[]>();
      for (const c of cells) {
        const k = [minutes ? c.minute : '', ...dims.map((d) => (d === 'moneyness' ? c.moneyness.moneyType : String(c[d])))].join('|');
        const s = m.get(k) ?? [0, 0, 0];
        m.set(k, [s[0] + c.premiumCents, s[1] + c.tradeCount, s[2] + c.volume]);
      }
      return m;
    };
    const without = (drop: string[]) => new Set([...CUBE_FIELDS].filter((f) => !drop.includes(f)));
    // What a query needs -> the level that must serve it, and the cell properties that level keeps.
    const cases: [needs: ReadonlySet<string>, level: string, dims: (keyof FlowCell)[], minutes: boolean[]][] = [
      [CUBE_FIELDS, 'contract', ['ticker', 'contractType', 'tradeSideCode', 'exchange', 'moneyness', 'expirationDate', 'strikePrice'], [true, false]],
      [without(['EXPIRATION_DATE', 'STRIKE_PRICE']), 'coarse', ['ticker', 'contractType', 'tradeSideCode', 'exchange', 'moneyness'], [true, false]],
      [without(['EXPIRATION_DATE', 'STRIKE_PRICE', 'TICKER']), 'market', ['contractType', 'tradeSideCode', 'exchange', 'moneyness', 'sector'], [true, false]],
      [NET_FIELDS, 'net', ['contractType', 'tradeSideCode'], [true, false]],
      [EXCHANGE_FIELDS, 'exchange', ['contractType', 'tradeSideCode', 'exchange', 'isIndex', 'isETF'], [false]],
      [TICKER_NET_FIELDS, 'ticker-net', ['ticker', 'contractType', 'tradeSideCode', 'sector', 'industry', 'isIndex'], [true, false]],
    ];
    for (const [tickers, window] of [
      [undefined, null],
      [['SPX', 'GME'], null],
      [['AAPL'], { startMs: D2_OPEN + 600_000, endMs: D2_OPEN + 4_200_000 }],
    ] as const) {
      for (const [needs, level, dims, minuteModes] of cases) {
        for (const minutes of minuteModes) {
          const q: FlowQuery = {
            cubeVersion: 1,
            printsVersion: 1,
            sessions: [D2],
            window,
            tickers,
            predicate: (r) => r.contractType === 'CALL' && (!tickers || (tickers as readonly string[]).includes(r.ticker)),
            cubeOnly: true,
            needs,
            hints: tickers ? { tickers: [...tickers] } : {},
          };
          // The whole market reads the level named; pinned tickers and cut sessions, the first finer one that serves them.
          if (!tickers && !window) expect(cellLevel(q, minutes).name).toBe(level);
          const paths: string[] = [];
          const cube = await readFlowCells(redis, config.keyPrefix, q, minutes, (p) => paths.push(p));
          const scan = await readFlowCells(redis, config.keyPrefix, { ...q, cubeOnly: false }, minutes, (p) => paths.push(p));
          expect(paths).toEqual(['cube', 'scan']);
          expect(cube.length).toBeGreaterThan(0);
          expect(cube.length).toBeLessThan(scan.length);
          expect(sum(cube, dims, minutes)).toEqual(sum(scan, dims, minutes));
        }
      }
    }
  });

  it('a coarser level reads fewer cells for the same answer', async () => {
    const q = (needs: ReadonlySet<string>): FlowQuery => ({
      cubeVersion: 1,
      printsVersion: 1,
      sessions: [D2],
      window: null,
      predicate: () => true,
      cubeOnly: true,
      needs,
      hints: {},
    });
    const counts = await Promise.all(
      [NET_FIELDS, EXCHANGE_FIELDS, new Set([...CUBE_FIELDS].filter((f) => f !== 'TICKER' && f !== 'EXPIRATION_DATE' && f !== 'STRIKE_PRICE'))].map(
        async (needs) => (await readFlowCells(redis, config.keyPrefix, q(needs), false)).length,
      ),
    );
    expect(counts[0]).toBeLessThan(counts[1]);
    expect(counts[1]).toBeLessThan(counts[2]);
    const tickerNet = (await readFlowCells(redis, config.keyPrefix, q(TICKER_NET_FIELDS), false)).length;
    const coarse = (
      await readFlowCells(redis, config.keyPrefix, q(new Set([...CUBE_FIELDS].filter((f) => f !== 'EXPIRATION_DATE' && f !== 'STRIKE_PRICE'))), false)
    ).length;
    expect(tickerNet).toBeLessThan(coarse);
  });
});

describe('premium tiers', () => {
  /** Which path an endpoint takes for a body (the handler, called as the API calls it). */
  async function pathOf(def: EndpointDef, body: Record<string, unknown>): Promise<string[]> {
    const paths: string[] = [];
    const views = new ViewPointers(redis, config.keyPrefix, 0);
    const ctx = { redis, keyPrefix: config.keyPrefix, views, log: createLogger('t', 'silent'), requestId: 't', onPath: (p: string) => paths.push(p) };
    await def.handle(body, ctx);
    return paths;
  }
  const ranges = [{ min: 1_000 }, { max: 1_000 }, { min: 5_000, max: 50_000 }, { min: 10_000, max: 10_000 }, { min: 100_000 }];

  it('a premium range or PREMIUM terms on tier bounds are answered from the tier cells of whole sessions, equal to brute force', async () => {
    for (const premiumRange of ranges) {
      for (const filter of [{ premiumRange }, { premiumRange, contractTypes: ['CALL'], tradeSideCodes: ['A', 'BB'] }]) {
        for (const time of [
          {},
          { sessionDate: D1 },
          { timeRange: { startTime: new Date(D2_OPEN).toISOString(), endTime: new Date(D2_OPEN + 7_200_000).toISOString() } },
        ]) {
          // Tier cells are kept for whole sessions: a window (which may cut one) scans.
          const path = 'timeRange' in time ? 'scan' : 'cube';
          const ctss = { ...time, filter, dataMode: 'PREMIUM' };
          expect(await pathOf(contractTradeSideStatistics, ctss)).toEqual([path]);
          expectSame(await ok(CTSS, ctss), oracle.contractTradeSideStatistics(rows, ctss), ctss);
          // net-flow takes no premiumRange: the same bounds as PREMIUM terms.
          const terms = [
            ...(premiumRange.min === undefined ? [] : [{ field: 'PREMIUM', operation: '>=', value: premiumRange.min }]),
            ...(premiumRange.max === undefined ? [] : [{ field: 'premium', operation: '<=', value: premiumRange.max }]),
            { field: 'CONTRACT_TYPE', operation: '=', value: 'PUT' },
          ];
          // Day buckets of whole sessions read the tiers; clock buckets read minutes, so they scan.
          for (const [aggregationPeriod, nfPath] of [
            ['1d', path],
            ['15m', 'scan'],
          ]) {
            const nf = { ...time, filterExpression: { conjunction: 'AND', filters: terms }, aggregationPeriod, dataMode: 'NET_PREMIUM' };
            expect(await pathOf(netFlow, nf)).toEqual([nfPath]);
            expectSame(await ok(NF, nf), oracle.netFlow(rows, nf), nf);
          }
        }
      }
    }
  });

  it('a bound between tier bounds (in the range or a PREMIUM term), or another scanned filter beside it, scans, with the same answers', async () => {
    const bodies = [
      { filter: { premiumRange: { min: 1_500 } } },
      { filter: { premiumRange: { min: 1_000 } }, filterExpression: { field: 'PREMIUM', operation: '<', value: 40_000 } },
      { filter: { premiumRange: { min: 1_000 }, sizeRange: { min: 5 } } },
      { filter: { premiumRange: { min: 1_000 }, exchanges: [EXCHANGES[0]] } },
    ];
    for (const b of bodies) {
      const body = { ...b, dataMode: 'TRADE_COUNT' };
      expect(await pathOf(contractTradeSideStatistics, body)).toEqual(['scan']);
      expectSame(await ok(CTSS, body), oracle.contractTradeSideStatistics(rows, body), body);
    }
  });
});

// --- cross-checks --------------------------------------------------------------------------------

const toCents = (x: number) => Math.round(x * 100);

describe('answers agree with each other and with the tape', () => {
  it.each([
    {},
    { sessionDate: D1, filter: { tickers: ['AAPL', 'SPX'] } },
    { sessionDate: D2, filter: { sector: 'technology', premiumRange: { min: 1000, max: null } } },
  ])("contract-trade-side-statistics PREMIUM and VOLUME equal the unconsolidated tape's statistics (%j)", async (req) => {
    const stats = (await ok(U, { ...req, size: 1, includeStatistics: true })).statistics;
    for (const [mode, field] of [
      ['PREMIUM', 'premium'],
      ['VOLUME', 'volume'],
    ]) {
      const got = (await ok(CTSS, { ...req, dataMode: mode })).data;
      for (const ct of ['CALL', 'PUT']) {
        for (const side of ['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID']) {
          const s = stats[ct][side];
          if (s.tradeCount === 0) expect(got[ct]?.[side]).toBeUndefined();
          else expect(got[ct][side]).toEqual({ [field]: s[field] });
        }
        const total = (o: Record<string, any> | undefined) => Object.values(o ?? {}).reduce((n: number, v: any) => n + toCents(v[field]), 0);
        expect(total(got[ct])).toBe(total(stats[ct]));
      }
    }
  });

  it.each([
    {},
    { sessionDate: D1 },
    { sessionDate: D2, filter: { tickers: ['AAPL', 'SPX'], contractTypes: 'PUT' } },
    { sessionDate: D2, filter: { premiumRange: { min: 1000, max: null } } },
    { sessionDate: D2, filter: { premiumRange: { min: 2500, max: 40000 }, tickers: 'AAPL' } },
    { sessionDate: D1, filterExpression: { field: 'premium', operation: '>=', value: 5000 } },
    {
      timeRange: { startTime: new Date(D2_OPEN + 600_000).toISOString(), endTime: new Date(D2_OPEN + 7_200_000).toISOString() },
      filter: { sector: 'technology' },
      filterExpression: {
        conjunction: 'OR',
        filters: [
          { field: 'TRADE_SIDE_CODE', operation: '=', values: ['A', 'AA'] },
          { field: 'DTE', operation: '<', value: 7 },
        ],
      },
    },
  ])('contract-statistics totals = contract-trade-side-statistics summed over sides = the tape statistics (%j)', async (req) => {
    const got = (await ok(CS, req)).data as Record<string, { premium: number; tradeCount: number; volume: number }>;
    const stats = (await ok(U, { ...req, size: 1, includeStatistics: true })).statistics;
    const bySide: Record<string, Record<string, Record<string, { premium?: number; tradeCount?: number; volume?: number }>>> = {};
    for (const [mode, field] of [
      ['PREMIUM', 'premium'],
      ['TRADE_COUNT', 'tradeCount'],
      ['VOLUME', 'volume'],
    ] as const) {
      bySide[field] = (await ok(CTSS, { ...req, dataMode: mode })).data;
    }
    let seen = 0;
    for (const ct of ['CALL', 'PUT']) {
      const tape = Object.values(stats[ct] as Record<string, { premium: number; tradeCount: number; volume: number }>);
      const tapeCount = tape.reduce((n, s) => n + s.tradeCount, 0);
      if (tapeCount === 0) {
        expect(got[ct]).toBeUndefined();
        expect(bySide.tradeCount[ct]).toBeUndefined();
        continue;
      }
      seen++;
      const sides = (field: 'premium' | 'tradeCount' | 'volume') =>
        Object.values(bySide[field][ct]).reduce((n, c) => n + (field === 'premium' ? toCents(c.premium!) : c[field]!), 0);
      expect(toCents(got[ct].premium)).toBe(sides('premium'));
      expect(got[ct].tradeCount).toBe(sides('tradeCount'));
      expect(got[ct].volume).toBe(sides('volume'));
      expect(toCents(got[ct].premium)).toBe(tape.reduce((n, s) => n + toCents(s.premium), 0));
      expect(got[ct].tradeCount).toBe(tapeCount);
      expect(got[ct].volume).toBe(tape.reduce((n, s) => n + s.volume, 0));
    }
    expect(seen).toBeGreaterThan(0);
    expect(Object.keys(got).length).toBe(seen);
  });

  it('contract-statistics without a filter reads the net cells; a premium range on tier bounds the tier cells; other premiums scan', async () => {
    const views = new ViewPointers(redis, config.keyPrefix, 0);
    const pathOf = async (body: Record<string, unknown>) => {
      const paths: string[] = [];
      const ctx = { redis, keyPrefix: config.keyPrefix, views, log: createLogger('t', 'silent'), requestId: 't', onPath: (p: string) => paths.push(p) };
      await contractStatistics.handle(body, ctx);
      return paths;
    };
    expect(await pathOf({})).toEqual(['cube']);
    expect(await pathOf({ filter: { premiumRange: { min: 100_000 } } })).toEqual(['cube']);
    expect(await pathOf({ filterExpression: { field: 'PREMIUM', operation: '>=', value: 100_000 } })).toEqual(['cube']);
    expect(await pathOf({ filter: { premiumRange: { min: 1_500 } } })).toEqual(['scan']);
    expect(cellLevel({ needs: new Set(['CONTRACT_TYPE']) }, false).name).toBe('net');
    expect(cellLevel({ needs: new Set(['CONTRACT_TYPE']) }, true).name).toBe('net');
  });

  it('option-price-over-time volume, high and low equal the unconsolidated tape filtered by that osi', async () => {
    const busiest = [...rows.filter((r) => r.sessionDate === D2).reduce((m, r) => m.set(r.osi, (m.get(r.osi) ?? 0) + 1), new Map<string, number>())].sort(
      (a, b) => b[1] - a[1],
    );
    for (const [osi] of busiest.slice(0, 3)) {
      const { rows: tape } = await walkApi(api, U, { sessionDate: D2, size: 1000, filter: { osi }, includes: ['SIZE', 'OPTION_PRICE'] });
      const bars = Object.values((await ok(OPOT, { sessionDate: D2, aggregationPeriod: '1d', filter: { osi } })).data) as any[];
      expect(bars).toHaveLength(1);
      expect(bars[0].volume).toBe(tape.reduce((n, r) => n + r.size, 0));
      expect(bars[0].highPrice).toBe(Math.max(...tape.map((r) => r.optionPrice)));
      expect(bars[0].lowPrice).toBe(Math.min(...tape.map((r) => r.optionPrice)));
    }
  });

  it.each([{}, { sessionDate: D1 }, { sessionDate: D2, filter: { contractTypes: 'CALL', tradeSideCodes: ['A', 'AA'] } }])(
    "market-share premiums summed over exchanges equal contract-trade-side-statistics' total (%j)",
    async (req) => {
      const share = (await ok(MS, req)).data as Record<string, Record<string, number>>;
      const ctss = (await ok(CTSS, { ...req, dataMode: 'PREMIUM' })).data as Record<string, Record<string, { premium: number }>>;
      const shareTotal = Object.values(share).reduce((n, e) => n + toCents(e.equityCallPremium) + toCents(e.equityPutPremium) + toCents(e.indexPremium), 0);
      const ctssTotal = Object.values(ctss).reduce((n, sides) => n + Object.values(sides).reduce((m, c) => m + toCents(c.premium), 0), 0);
      expect(shareTotal).toBe(ctssTotal);
      expect(shareTotal).toBeGreaterThan(0);
      // Trade counts agree as well: both count prints.
      const count = (await ok(CTSS, { ...req, dataMode: 'TRADE_COUNT' })).data as Record<string, Record<string, { tradeCount: number }>>;
      const shareCount = Object.values(share).reduce((n, e) => n + e.equityCallTradeCount + e.equityPutTradeCount + e.indexTradeCount, 0);
      expect(shareCount).toBe(Object.values(count).reduce((n, sides) => n + Object.values(sides).reduce((m, c) => m + c.tradeCount, 0), 0));
    },
  );

  it('an exchange present in market-share has all nine fields, zeros included', async () => {
    const share = (await ok(MS, { sessionDate: D2, filter: { tickers: 'SPX' } })).data;
    const entries = Object.values(share) as Record<string, number>[];
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toHaveLength(9);
      expect(e.equityCallPremium).toBe(0);
      expect(e.indexTradeCount).toBeGreaterThan(0);
    }
  });

  it('net-flow cents and net-drift dollars agree bucket for bucket', async () => {
    const req = { sessionDate: D2, aggregationPeriod: '5m', filter: { tickers: ['SPX', 'AAPL'] } };
    const flow = (await ok(NF, { ...req, dataMode: 'NET_PREMIUM' })).data;
    const volume = (await ok(NF, { ...req, dataMode: 'NET_VOLUME' })).data;
    const drift = (await ok(ND, req)).data;
    expect(Object.keys(flow)).toEqual(Object.keys(drift));
    for (const k of Object.keys(flow)) {
      expect(flow[k].callSum).toBe(toCents(drift[k].netCallPremium));
      expect(flow[k].putSum).toBe(toCents(drift[k].netPutPremium));
      expect(volume[k].callSum).toBe(drift[k].netCallVolume);
      expect(volume[k].putSum).toBe(drift[k].netPutVolume);
    }
  });

  it('gainers-losers premium counts neutral trades too, so it can exceed bullish + bearish', async () => {
    const data = (await ok(GL, {})).data as Record<string, any>;
    expect(Object.keys(data)).toEqual([...TICKERS].sort());
    for (const g of Object.values(data)) expect(toCents(g.premium)).toBeGreaterThanOrEqual(toCents(g.bullishPremium) + toCents(g.bearishPremium));
    expect(Object.values(data).some((g) => toCents(g.premium) > toCents(g.bullishPremium) + toCents(g.bearishPremium))).toBe(true);
  });

  it('a day bucket starts at New York midnight of its session', async () => {
    const data = (await ok(NF, { dataMode: 'NET_VOLUME', sessionDate: D1, aggregationPeriod: '1d' })).data;
    expect(Object.keys(data)).toEqual([String(nyLocalToEpochMs(D1, 0, 0))]);
  });
});

// --- validation ------------------------------------------------------------------------------------

describe('validation: status and problem body for every bad input', () => {
  const cases: [string, string, unknown, string, RegExp?][] = [
    ['CTSS without dataMode', CTSS, {}, 'dataMode', /required/],
    ['CTSS with an unknown dataMode', CTSS, { dataMode: 'NET_PREMIUM' }, 'dataMode'],
    ['CTSS with aggregationPeriod (not bucketed)', CTSS, { dataMode: 'PREMIUM', aggregationPeriod: '5m' }, 'aggregationPeriod', /not accepted/],
    ['CTSS with a bad trade side', CTSS, { dataMode: 'PREMIUM', filter: { tradeSideCode: 'X' } }, 'filter.tradeSideCode', /trade side/],
    [
      'CTSS with strikePrices and strikePriceRange',
      CTSS,
      { dataMode: 'VOLUME', filter: { strikePrice: 100, strikePriceRange: { min: 1 } } },
      'filter.strikePriceRange',
      /mutually exclusive/,
    ],
    [
      'CTSS with an expression on an unknown field',
      CTSS,
      { dataMode: 'VOLUME', filterExpression: { field: 'NOPE', operation: '=', value: 1 } },
      'filterExpression.field',
    ],
    ['contract-statistics with an unknown field', CS, { dataMode: 'PREMIUM' }, 'dataMode', /not accepted/],
    ['contract-statistics with aggregationPeriod', CS, { aggregationPeriod: '5m' }, 'aggregationPeriod', /not accepted/],
    ['contract-statistics with an unknown filter', CS, { filter: { nope: 1 } }, 'filter.nope', /not a filter of this endpoint/],
    ['contract-statistics with a bad contract type', CS, { filter: { contractType: 'BOTH' } }, 'filter.contractType'],
    ['contract-statistics with snapshotTime', CS, { snapshotTime: '2026-11-20T15:00:00Z' }, 'snapshotTime', /not accepted/],
    [
      'contract-statistics with an expression on an unknown field',
      CS,
      { filterExpression: { field: 'NOPE', operation: '>=', value: 1 } },
      'filterExpression.field',
    ],
    [
      'contract-statistics with sessionDate and timeRange',
      CS,
      { sessionDate: D2, timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } },
      'timeRange',
      /mutually exclusive/,
    ],
    ['contract-statistics with an inverted premiumRange', CS, { filter: { premiumRange: { min: 9, max: 1 } } }, 'filter.premiumRange'],
    ['market-share with an unknown field', MS, { foo: 1 }, 'foo', /not accepted/],
    [
      'market-share with sessionDate and timeRange',
      MS,
      { sessionDate: D2, timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } },
      'timeRange',
      /mutually exclusive/,
    ],
    ['market-share on a weekend', MS, { sessionDate: '2026-11-21' }, 'sessionDate', /not an NYSE trading session/],
    ['market-share with an inverted window', MS, { timeRange: { startTime: '2026-11-20T15:30:00Z', endTime: '2026-11-20T14:30:00Z' } }, 'timeRange'],
    ['gainers-losers with a filter it does not take', GL, { filter: { exchanges: 'CBOE' } }, 'filter.exchanges', /not a filter of this endpoint/],
    ['gainers-losers with snapshotTime', GL, { snapshotTime: '2026-11-20T15:00:00Z' }, 'snapshotTime', /not accepted/],
    ['gainers-losers with an inverted dteRange', GL, { filter: { dteRange: { min: 9, max: 1 } } }, 'filter.dteRange'],
    ['net-flow without dataMode', NF, {}, 'dataMode', /required/],
    ['net-flow with an unknown period', NF, { dataMode: 'NET_VOLUME', aggregationPeriod: '7m' }, 'aggregationPeriod', /must be one of/],
    ['net-flow with 1w on one session', NF, { dataMode: 'NET_VOLUME', sessionDate: D2, aggregationPeriod: '1w' }, 'aggregationPeriod', /does not suit/],
    [
      'net-flow with 1m over three days',
      NF,
      { dataMode: 'NET_VOLUME', aggregationPeriod: '1m', timeRange: { startTime: '2026-11-17T14:30:00Z', endTime: '2026-11-20T21:00:00Z' } },
      'aggregationPeriod',
      /does not suit/,
    ],
    ['net-flow with a filter it does not take', NF, { dataMode: 'NET_VOLUME', filter: { exchanges: 'CBOE' } }, 'filter.exchanges'],
    ['net-drift with tradeSideCodes (net-flow only)', ND, { filter: { tradeSideCodes: 'A' } }, 'filter.tradeSideCodes', /not a filter of this endpoint/],
    ['net-drift with dataMode', ND, { dataMode: 'NET_PREMIUM' }, 'dataMode', /not accepted/],
    ['option-price-over-time without filter', OPOT, {}, 'filter', /required/],
    ['option-price-over-time with an empty filter', OPOT, { filter: {} }, 'filter', /must identify one contract/],
    [
      'option-price-over-time with osi and ticker',
      OPOT,
      { filter: { osi: 'SPY   261218C00600000', ticker: 'SPY' } },
      'filter.osi',
      /cannot be combined with filter.ticker/,
    ],
    [
      'option-price-over-time with part of the four',
      OPOT,
      { filter: { ticker: 'SPY', strikePrice: 600, contractType: 'CALL' } },
      'filter.expirationDate',
      /is required/,
    ],
    ['option-price-over-time with a short osi', OPOT, { filter: { osi: 'SPY261218C00600000' } }, 'filter.osi', /21-character/],
    [
      'option-price-over-time with filterExpression',
      OPOT,
      { filter: { osi: 'SPY   261218C00600000' }, filterExpression: { field: 'TICKER', operation: '=', value: 'SPY' } },
      'filterExpression',
      /not accepted/,
    ],
    [
      'option-price-over-time with two tickers',
      OPOT,
      { filter: { ticker: ['SPY', 'QQQ'], expirationDate: '2026-12-18', strikePrice: 600, contractType: 'CALL' } },
      'filter.ticker',
      /takes a single value, got 2/,
    ],
  ];
  // Every row gets five values: a row shorter than the test function's parameter list would make
  // jest pass its `done` callback as the last one and wait for it.
  it.each(cases.map(([name, path, body, field, detail]) => [name, path, body, field, detail ?? null] as const))(
    '%s',
    async (_name, path, body, field, detail) => {
      expectProblem(await api.post(path, body), 400, field, detail ?? undefined);
    },
  );

  it('empty bodies are valid where nothing is required', async () => {
    for (const path of [MS, GL, ND, CS]) expect((await api.post(path, {})).status).toBe(200);
  });
});

// --- live ------------------------------------------------------------------------------------------

describe('live', () => {
  it('the newest bucket of the open session grows as prints arrive, queryable once projected', async () => {
    const jpm = rows.filter((r) => r.sessionDate === D2 && r.ticker === 'JPM');
    const lastTime = Math.max(...jpm.map((r) => r.tradeTime));
    const base = PRINTS.find((p) => p.ticker === 'JPM' && p.sessionDate === D2 && p.contractType === 'CALL')!;
    const minute = Math.floor(lastTime / 60_000) * 60_000 + 60_000;
    const body = { sessionDate: D2, aggregationPeriod: '1m', filter: { ticker: 'JPM' } };
    const before = (await ok(ND, body)).data;
    expect(before[String(minute)]).toBeUndefined();
    const partition = partitionOf('JPM', MARKET_PARTITIONS);
    let n = 0;
    const next = (size: number): EnrichedPrintEvent => ({
      ...base,
      id: `00000000-0000-5000-8000-00000000000${n}`,
      printId: `live-${n}`,
      rowKey: rowKeyOf(partition, offsets[partition]++),
      tradeTime: minute + ++n * 1000,
      tradeSideCode: 'ASK',
      sentimentType: 'BULLISH',
      size,
      premium: base.optionPrice * size * 100,
    });
    let want = 0;
    for (const size of [3, 4]) {
      await producer.send(printsSpec, [next(size) as unknown as Record<string, unknown>]);
      want += size;
      await waitProjected();
      const started = Date.now();
      const got = await waitFor(
        'the bucket to show the print',
        async () => {
          const b = (await ok(ND, body)).data[String(minute)];
          return b && b.netCallVolume === want ? b : null;
        },
        5_000,
        50,
      );
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(got.netCallVolume).toBe(want);
      expect(Object.keys((await ok(ND, body)).data).pop()).toBe(String(minute));
    }
  });
});
