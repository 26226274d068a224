import type { RedisClient as Redis } from '../../services/redis/client';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { createRedis } from '../../services/redis/client';
import { partitionOf } from '../../services/kafka/partition';
import { openInterestFlags, type EnrichedPrintEvent } from '../../services/domain/order-flow';
import { nyLocalToEpochMs } from '../../services/domain/calendar';
import { applyAtomically } from '../../projections/runtime/atomic-apply';
import { flowAggregatesProjection } from '../../projections/flow-aggregates/projection';
import { cubeMover } from '../../projections/flow-aggregates/warm-tier';
import { orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { settleWarmTier, thawSession } from '../../projections/runtime/warm-tier';
import { PartitionKeys, partitionTag, pointerKey } from '../../services/views/keys';
import { FLOW_AGGREGATES_VIEW, FlowAggregateKeys, cubeGroupsKey } from '../../services/views/flow-aggregates';
import { ORDER_FLOW_PRINTS_VIEW } from '../../services/views/order-flow';
import { WarmKeys, warmField } from '../../services/views/warm-tier';
import { snapshotView } from '../support/pipeline';
import { TestApi, startApi } from '../support/http';
import { testConfig } from '../support/env';
import { withTierEnv } from '../support/tier-env';
import { PRINTS_SPEC, orderFlowFixture, projectDirect } from '../support/order-flow-data';
import type { OracleRow } from '../support/order-flow-oracle';
import * as oracle from '../support/flow-aggregations-oracle';
import { keysMatching } from '../support/redis-keys';

/**
 * The flow-aggregates cube's warm tier (services/views/flow-aggregates/warm.ts,
 * projections/flow-aggregates/warm-tier.ts, api/views/flow-aggregates/tiers.ts) against real
 * Redis: the same prints projected into a cube kept hot and into one whose older sessions are
 * collapsed into groups; what a frozen session keeps; every cube endpoint answering the same from
 * both (and as the brute-force oracle); a move back restoring the session key for key; a late
 * print thawing a warm session and the next quiet chunk freezing it again; and a final layout that
 * does not depend on how the topic was chunked.
 */

const config = testConfig('cubewarm');
const HOT = `${config.keyPrefix}:hot`;
const WARM = `${config.keyPrefix}:warm`;
const SESSIONS = ['2024-05-01', '2024-05-02', '2024-05-03'];
const fixture = orderFlowFixture({ sessions: SESSIONS, printsPerSession: 240, seed: 31 });
let redis: Redis;

const projectCube = (prefix: string, hot: number, prints: readonly EnrichedPrintEvent[], chunk = 100, quiet = 0) =>
  withTierEnv(hot, () => projectDirect(redis, prefix, 1, flowAggregatesProjection, [{ spec: PRINTS_SPEC, events: prints }], 'in-turn', chunk), quiet);

const settle = async (prefix: string) => {
  for (let p = 0; p < MARKET_PARTITIONS; p++) await settleWarmTier(redis, cubeMover, new PartitionKeys(prefix, FLOW_AGGREGATES_VIEW, 1, p), 1);
};
const cubeKeys = (prefix: string, p: number) => new PartitionKeys(prefix, FLOW_AGGREGATES_VIEW, 1, p);
const partitionsWith = (d: string) => [...new Set(fixture.prints.filter((e) => e.sessionDate === d).map((e) => partitionOf(e.ticker, MARKET_PARTITIONS)))];

/** A session's keys in a snapshot of the cube. */
const sessionOf = (snap: Record<string, unknown>, d: string) => Object.fromEntries(Object.entries(snap).filter(([k]) => k.includes(`:${d}:`)));

beforeAll(async () => {
  redis = createRedis(config.viewsRedisUrl);
  // The prints view (scans for what the cube does not carry) is kept hot in both.
  for (const prefix of [HOT, WARM])
    await withTierEnv(100, () => projectDirect(redis, prefix, 1, orderFlowPrintsProjection, [{ spec: PRINTS_SPEC, events: fixture.prints }]));
  await projectCube(HOT, 100, fixture.prints);
  await projectCube(WARM, 1, fixture.prints);
  await settle(WARM);
});
afterAll(() => redis.disconnect());

describe('the move to the warm tier', () => {
  it('keeps the newest session hot and every older one as its underlyings and groups only, in every partition', async () => {
    let warm = 0;
    for (const d of SESSIONS) {
      for (const p of partitionsWith(d)) {
        const tier = await redis.hget(new WarmKeys(cubeKeys(WARM, p)).tier, warmField(d));
        const left = (await keysMatching(redis, `${cubeKeys(WARM, p).key(d)}:*`)).map((k) => k.slice(cubeKeys(WARM, p).key(d).length + 1)).sort();
        expect(await redis.hget(new WarmKeys(cubeKeys(HOT, p)).tier, warmField(d))).toBeNull();
        if (d === SESSIONS[2]) {
          expect(tier).toBeNull();
          expect(left.length).toBeGreaterThan(10);
          continue;
        }
        expect(tier).not.toBeNull();
        expect(left).toEqual(['tk', 'wc']);
        const k = new FlowAggregateKeys(cubeKeys(WARM, p));
        expect(await redis.zrange(k.tickers(d), 0, -1)).toEqual(await redis.zrange(new FlowAggregateKeys(cubeKeys(HOT, p)).tickers(d), 0, -1));
        warm++;
      }
    }
    expect(warm).toBeGreaterThan(6);
  });

  it('takes less memory than the session kept hot', async () => {
    const bytes = async (prefix: string) => {
      let n = 0;
      for (let p = 0; p < MARKET_PARTITIONS; p++)
        for (const key of await keysMatching(redis, `${cubeKeys(prefix, p).key(SESSIONS[0])}:*`)) n += Number(await redis.memory('USAGE', key, 'SAMPLES', 0));
      return n;
    };
    expect(await bytes(WARM)).toBeLessThan((await bytes(HOT)) / 2);
  });
});

// --- the endpoints over HTTP ---------------------------------------------------------------------

const P = (name: string) => `/v1/options/tool/${name}`;
const iso = (ms: number) => new Date(ms).toISOString();
const TICKERS = [...new Set(fixture.prints.map((e) => e.ticker))].sort();
const ALL = { timeRange: { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-04T00:00:00Z' } };
const OLD = { sessionDate: SESSIONS[0] };
const CUT = { timeRange: { startTime: iso(nyLocalToEpochMs(SESSIONS[1], 10, 0)), endTime: iso(nyLocalToEpochMs(SESSIONS[2], 11, 0)) } };
const withIv = fixture.prints.find((e) => e.sessionDate === SESSIONS[0] && e.impliedVolatility !== null)!;
const oneOsi = fixture.prints.find((e) => e.sessionDate === SESSIONS[0])!.osi;
const rows: OracleRow[] = fixture.prints.map((e) => {
  const { printId: _p, ...row } = e;
  return { ...row, ...openInterestFlags(e, 0) } as OracleRow;
});

/**
 * [endpoint, body, the oracle's answer function or null]: every cube reader, on warm, hot and mixed
 * selections, and every cell level, those a warm session derives (derived.ts) among them.
 */
const CALLS: [string, Record<string, unknown>, ((rows: readonly OracleRow[], body: Record<string, any>) => Record<string, any>) | null][] = [
  ['net-flow', { ...OLD, aggregationPeriod: '1m', dataMode: 'NET_PREMIUM' }, oracle.netFlow],
  ['net-flow', { ...ALL, aggregationPeriod: '1d', dataMode: 'NET_VOLUME' }, oracle.netFlow],
  ['net-flow', { ...OLD, aggregationPeriod: '5m', dataMode: 'NET_PREMIUM', filter: { tickers: [TICKERS[0]] } }, oracle.netFlow],
  ['net-flow', { ...CUT, aggregationPeriod: '15m', dataMode: 'NET_VOLUME', filter: { tickers: [TICKERS[1]], tradeSideCodes: ['ASK', 'BID'] } }, oracle.netFlow],
  // The contract, coarse and market coarse minute cells (cm, km, mm).
  [
    'net-flow',
    { ...OLD, aggregationPeriod: '1m', dataMode: 'NET_VOLUME', filter: { tickers: [TICKERS[0]], expirationDates: [withIv.expirationDate] } },
    oracle.netFlow,
  ],
  ['net-flow', { ...OLD, aggregationPeriod: '1m', dataMode: 'NET_PREMIUM', filter: { tickers: [TICKERS[0]], moneyTypes: ['OTM'] } }, oracle.netFlow],
  ['net-flow', { ...ALL, aggregationPeriod: '5m', dataMode: 'NET_PREMIUM', filter: { moneyTypes: ['ITM'] } }, oracle.netFlow],
  ['net-drift', { ...OLD, aggregationPeriod: '1m', filter: { tickers: [TICKERS[0]] } }, oracle.netDrift],
  ['net-drift', { ...ALL, aggregationPeriod: '1h', filter: { tickers: [TICKERS[2]] } }, oracle.netDrift],
  ['gainers-losers', OLD, oracle.gainersLosers],
  ['gainers-losers', ALL, oracle.gainersLosers],
  ['market-share', OLD, oracle.marketShare],
  ['market-share', { ...ALL, filter: { contractTypes: ['PUT'], tickers: TICKERS.slice(0, 2) } }, oracle.marketShare],
  ['contract-statistics', { ...OLD, filter: { expirationDates: [withIv.expirationDate] } }, oracle.contractStatistics],
  ['contract-statistics', { ...CUT, filter: { moneyTypes: ['OTM'] } }, oracle.contractStatistics],
  // The market's coarse session cells (ms), every underlying's contract session cells (cs).
  ['contract-statistics', { ...ALL, filter: { moneyTypes: ['ITM'] } }, oracle.contractStatistics],
  ['gainers-losers', { ...ALL, filter: { expirationDates: [withIv.expirationDate] } }, oracle.gainersLosers],
  ['contract-trade-side-statistics', { ...OLD, dataMode: 'PREMIUM' }, oracle.contractTradeSideStatistics],
  ['contract-trade-side-statistics', { ...ALL, dataMode: 'TRADE_COUNT', filter: { exchanges: [withIv.exchange] } }, oracle.contractTradeSideStatistics],
  ['option-price-over-time', { ...OLD, aggregationPeriod: '5m', filter: { osi: oneOsi } }, oracle.optionPriceOverTime],
  ['option-price-over-time', { ...ALL, aggregationPeriod: '1d', filter: { osi: oneOsi } }, oracle.optionPriceOverTime],
  ['volatility-drift', { ...OLD, filter: { ticker: withIv.ticker } }, null],
  ['volatility-drift', { ...OLD, filter: { ticker: withIv.ticker, expirationDate: withIv.expirationDate } }, null],
];

describe('the endpoints answer the same from either tier', () => {
  let hotApi: TestApi;
  let warmApi: TestApi;
  beforeAll(async () => {
    for (const prefix of [HOT, WARM]) for (const view of [FLOW_AGGREGATES_VIEW, ORDER_FLOW_PRINTS_VIEW]) await redis.set(pointerKey(prefix, view), '1');
    hotApi = await startApi({ ...config, keyPrefix: HOT });
    warmApi = await startApi({ ...config, keyPrefix: WARM });
  });
  afterAll(async () => {
    await hotApi?.close();
    await warmApi?.close();
  });

  it.each(CALLS)('%s %j', async (name, body, answer) => {
    const [hot, warm] = await Promise.all([hotApi.post(P(name), body), warmApi.post(P(name), body)]);
    expect(hot.status).toBe(200);
    expect(Object.keys(hot.json.data).length).toBeGreaterThan(0);
    expect(warm.json).toEqual(hot.json);
    expect(Object.keys(warm.json.data)).toEqual(Object.keys(hot.json.data));
    if (answer) expect(warm.json).toEqual(answer(rows, body));
  });

  it('a late print thaws its warm session before it is written, and the next quiet chunk freezes it again', async () => {
    const late: EnrichedPrintEvent = { ...withIv, printId: 'late-1', id: '00000000-0000-5000-8000-0000000000aa', size: withIv.size + 7, rowKey: 'zz00000001' };
    const p = partitionOf(late.ticker, MARKET_PARTITIONS);
    const newest = fixture.prints.find((e) => e.sessionDate === SESSIONS[2] && partitionOf(e.ticker, MARKET_PARTITIONS) === p)!;
    const tier = new WarmKeys(cubeKeys(WARM, p)).tier;
    expect(await redis.hget(tier, warmField(SESSIONS[0]))).not.toBeNull();
    const body = { ...OLD, aggregationPeriod: '1m', dataMode: 'NET_VOLUME', filter: { ticker: late.ticker } };
    const before = (await warmApi.post(P('net-flow'), body)).json;
    // The same late print to both cubes.
    for (const prefix of [HOT, WARM]) await applyChunk(cubeKeys(prefix, p), [late]);
    expect(await redis.hget(tier, warmField(SESSIONS[0]))).toBeNull();
    expect(await redis.exists(cubeGroupsKey(cubeKeys(WARM, p), SESSIONS[0]))).toBe(0);
    expect(await redis.exists(new FlowAggregateKeys(cubeKeys(WARM, p)).tickerNetMinuteCells(SESSIONS[0], late.ticker))).toBe(1);
    const after = (await warmApi.post(P('net-flow'), body)).json;
    expect(after).not.toEqual(before);
    expect(after).toEqual((await hotApi.post(P('net-flow'), body)).json);
    // A chunk of the newest session only: the old one is quiet again and moves back.
    for (const prefix of [HOT, WARM]) await applyChunk(cubeKeys(prefix, p), [{ ...newest, printId: 'late-2', rowKey: 'zz00000002' }]);
    expect(await redis.hget(tier, warmField(SESSIONS[0]))).not.toBeNull();
    expect(await redis.exists(new FlowAggregateKeys(cubeKeys(WARM, p)).tickerNetMinuteCells(SESSIONS[0], late.ticker))).toBe(0);
    for (const [name, b] of CALLS) expect((await warmApi.post(P(name), b)).json.data).toEqual((await hotApi.post(P(name), b)).json.data);
  });
});

/** Applies one chunk of prints at the partition's next offsets, as the runtime would. */
async function applyChunk(keys: PartitionKeys, prints: EnrichedPrintEvent[]): Promise<void> {
  const applied = Number(await redis.hget(keys.offsets, PRINTS_SPEC.name));
  const events = prints.map((value, i) => ({
    topic: PRINTS_SPEC.name,
    partition: keys.partition,
    offset: applied + 1 + i,
    key: value.ticker,
    value: value as never,
  }));
  const ops = await withTierEnv(1, () => flowAggregatesProjection.project(events, keys, redis));
  const res = await applyAtomically(redis, keys.offsets, PRINTS_SPEC.name, applied, applied + prints.length, ops);
  expect(res.applied).toBe(true);
}

// --- moves back, and the layout a replay ends with -------------------------------------------------

describe('a move back to the hot tier', () => {
  it('restores the session key for key as it was projected, and a second move writes the same groups', async () => {
    const prefix = `${config.keyPrefix}:thaw`;
    await projectCube(prefix, 1, fixture.prints);
    await settle(prefix);
    const frozen = await snapshotView(redis, prefix, FLOW_AGGREGATES_VIEW, 1);
    let thawed = 0;
    for (const p of partitionsWith(SESSIONS[0])) {
      await thawSession(redis, cubeMover, cubeKeys(prefix, p), SESSIONS[0]);
      thawed++;
    }
    expect(thawed).toBeGreaterThan(3);
    const hot = sessionOf(await snapshotView(redis, HOT, FLOW_AGGREGATES_VIEW, 1), SESSIONS[0]);
    // HOT took two late prints above: compare the partitions it did not.
    const late = `${partitionTag(partitionOf(withIv.ticker, MARKET_PARTITIONS))}:`;
    const untouched = (snap: Record<string, unknown>) => Object.fromEntries(Object.entries(snap).filter(([k]) => !k.startsWith(late)));
    expect(Object.keys(untouched(hot)).some((k) => k.includes(':cm:'))).toBe(true);
    expect(untouched(sessionOf(await snapshotView(redis, prefix, FLOW_AGGREGATES_VIEW, 1), SESSIONS[0]))).toEqual(untouched(hot));
    await settle(prefix);
    expect(await snapshotView(redis, prefix, FLOW_AGGREGATES_VIEW, 1)).toEqual(frozen);
  });
});

describe('the tiers a replay ends with', () => {
  it('depend on the prints only, not on how they were cut into chunks (quiet offsets at least the chunk size)', async () => {
    // Enough prints per partition and session for sessions to fall quiet during the replay.
    const many = orderFlowFixture({ sessions: SESSIONS, printsPerSession: 450, seed: 32, tickers: ['SPY', 'AAPL', 'TSLA'] });
    const snapshots = [];
    for (const [i, chunk] of [40, 97, 1].entries()) {
      const prefix = `${config.keyPrefix}:chunks${i}`;
      await projectCube(prefix, 1, many.prints, chunk, 100);
      snapshots.push(await snapshotView(redis, prefix, FLOW_AGGREGATES_VIEW, 1));
    }
    // Older sessions moved during the replay (the quiet rule), not all left hot.
    expect(Object.keys(snapshots[0]).some((k) => k.endsWith(':wc'))).toBe(true);
    expect(snapshots[1]).toEqual(snapshots[0]);
    expect(snapshots[2]).toEqual(snapshots[0]);
  });
});
