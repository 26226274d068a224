import type { RedisClient as Redis } from '../../services/redis/client';
import { MARKET_PARTITIONS, topicFor } from '../../schemas/catalog';
import { createRedis } from '../../services/redis/client';
import { partitionOf } from '../../services/kafka/partition';
import { applyAtomically } from '../../projections/runtime/atomic-apply';
import { sessionBounds } from '../../services/domain/calendar';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { equityPrintRow, equityPrintsProjection } from '../../projections/equities/equity-prints';
import { settleWarmTier, thawSession } from '../../projections/runtime/warm-tier';
import type { Projection } from '../../projections/runtime/projection';
import { PartitionKeys, pointerKey } from '../../services/views/keys';
import {
  ORDER_FLOW_CONSOLIDATED_VIEW,
  ORDER_FLOW_PRINTS_VIEW,
  SORT_INDEXES,
  compareKeys,
  encodeSortKey,
  orderFlowKeys,
  orderFlowLayout,
  premiumCents,
  statField,
  statisticsFromCounters,
  type IndexedSort,
  type OrderFlowRow,
} from '../../services/views/order-flow';
import { EQUITY_PRINTS_LAYOUT, EQUITY_PRINTS_VIEW, type EquityPrintRow } from '../../services/views/equities/equity-prints';
import { TableKeys, type TableLayout } from '../../services/views/table';
import { Packr } from 'msgpackr';
import { WarmKeys, unpackSessionMetas, warmField } from '../../services/views/warm-tier';
import {
  readOrderFlowPage,
  readOrderFlowStatistics,
  type OrderFlowHints,
  type OrderFlowPageQuery,
  type OrderFlowReadOptions,
} from '../../api/views/order-flow';
import { readTablePage, scanTable, type TableReadOptions } from '../../api/tables/engine';
import type { TimeWindow } from '../../api/request/time';
import { walkApi, walkPages } from '../support/cursor-walk';
import { snapshotView, viewContents } from '../support/pipeline';
import { TestApi, startApi } from '../support/http';

import { testConfig } from '../support/env';
import { withTierEnv } from '../support/tier-env';
import { equityPrintData } from '../support/equity-print-data';
import { keysMatching } from '../support/redis-keys';
import {
  CONSOLIDATED_SPEC,
  OPEN_INTEREST_SPEC,
  PRINTS_SPEC,
  expectedConsolidatedRows,
  expectedPrintRows,
  orderFlowFixture,
  projectDirect,
} from '../support/order-flow-data';

/**
 * The warm tier (services/views/warm-tier.ts, projections/runtime/warm-tier.ts, api/tables/warm-reader.ts)
 * against real Redis: the same events projected into a view kept hot and into one whose older
 * sessions are moved to blocks, every plan of the reader over both compared with brute force —
 * cursor walks that cross from hot to warm sessions, every indexed sort, filters that skip blocks,
 * statistics by scan — and the moves themselves: what a frozen session keeps, a late event that
 * brings a session back to the hot tier, and the move again once it is quiet.
 */

const config = testConfig('warm');
const HOT = `${config.keyPrefix}:hot`;
const WARM = `${config.keyPrefix}:warm`;
const SESSIONS = ['2024-05-01', '2024-05-02', '2024-05-03'];
const fixture = orderFlowFixture({ sessions: SESSIONS, printsPerSession: 150, seed: 23 });
const prints = expectedPrintRows(fixture);
const consolidated = expectedConsolidatedRows(fixture);
const EQ_SPEC = topicFor('equity-print')!;
const eqEvents = equityPrintData(
  SESSIONS.map((d) => ({ date: d, open: sessionBounds(d)!.open })),
  250,
  5,
);
const eqRows: EquityPrintRow[] = eqEvents.map((e) => equityPrintRow(e as never));
let redis: Redis;

async function projectAll(prefix: string, hot: number): Promise<void> {
  await withTierEnv(hot, async () => {
    await projectDirect(redis, prefix, 1, orderFlowPrintsProjection, [
      { spec: PRINTS_SPEC, events: fixture.prints },
      { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
    ]);
    await projectDirect(redis, prefix, 1, orderFlowConsolidatedProjection, [
      { spec: CONSOLIDATED_SPEC, events: fixture.consolidated },
      { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
    ]);
    await projectDirect(redis, prefix, 1, equityPrintsProjection, [{ spec: EQ_SPEC, events: eqEvents }]);
  });
}

/** Freezes what the last chunks left hot (the moves run at chunk ends; the fixture's last chunks touch every session). */
async function settle(prefix: string, layout: TableLayout<never>): Promise<void> {
  for (let p = 0; p < MARKET_PARTITIONS; p++) await settleWarmTier(redis, layout, new PartitionKeys(prefix, layout.view, 1, p), 1);
}

beforeAll(async () => {
  redis = createRedis(config.viewsRedisUrl);
  await projectAll(HOT, 100);
  await projectAll(WARM, 1);
  for (const layout of [orderFlowLayout(ORDER_FLOW_PRINTS_VIEW), orderFlowLayout(ORDER_FLOW_CONSOLIDATED_VIEW), EQUITY_PRINTS_LAYOUT])
    await settle(WARM, layout as TableLayout<never>);
});
afterAll(() => redis.disconnect());

/** Per partition of a view: its warm sessions, and whether each still has hot rows. */
async function tiers(prefix: string, view: string): Promise<{ warm: Set<string>; hotRows: Set<string> }> {
  const warm = new Set<string>();
  const hotRows = new Set<string>();
  for (let p = 0; p < MARKET_PARTITIONS; p++) {
    const keys = new PartitionKeys(prefix, view, 1, p);
    const tier = await redis.hgetall(new WarmKeys(keys).tier);
    for (const d of SESSIONS) {
      if (tier[warmField(d)] !== undefined) warm.add(`${p}/${d}`);
      if (await redis.exists(new TableKeys(keys).rows(d))) hotRows.add(`${p}/${d}`);
    }
  }
  return { warm, hotRows };
}

describe('the move to the warm tier', () => {
  it('leaves the newest session hot and keeps every older one as blocks only, in every partition', async () => {
    for (const view of [ORDER_FLOW_PRINTS_VIEW, ORDER_FLOW_CONSOLIDATED_VIEW, EQUITY_PRINTS_VIEW]) {
      const hot = await tiers(HOT, view);
      const warm = await tiers(WARM, view);
      expect(hot.warm.size).toBe(0);
      const older = [...hot.hotRows].filter((pd) => !pd.endsWith(SESSIONS[2])).sort();
      expect(older.length).toBeGreaterThan(4);
      expect([...warm.warm].sort()).toEqual(older);
      expect([...warm.hotRows].sort()).toEqual([...hot.hotRows].filter((pd) => pd.endsWith(SESSIONS[2])).sort());
      // No index of a warm session is left behind; its statistics counters (st, sc, stt) stay.
      const p = Number(older[0].split('/')[0]);
      const left = await keysMatching(redis, `${WARM}:${view}:v1:{p${String(p).padStart(2, '0')}}:${SESSIONS[0]}:*`);
      expect(
        left.map((k) => k.slice(k.lastIndexOf(SESSIONS[0]) + 11).split(':')[0]).filter((s) => !['wb', 'wmp', 'wx', 'wh', 'st', 'sc', 'stt'].includes(s)),
      ).toEqual([]);
      // Nor its open-interest join (the order-flow views'), packed into `wh:oi`.
      if (view === EQUITY_PRINTS_VIEW) continue;
      const tag = `{p${String(p).padStart(2, '0')}}`;
      expect((await keysMatching(redis, `${HOT}:${view}:v1:${tag}:oi:${SESSIONS[0]}*`)).length).toBeGreaterThan(1);
      expect(await keysMatching(redis, `${WARM}:${view}:v1:${tag}:oi:${SESSIONS[0]}*`)).toEqual([]);
      expect(left.some((k) => k.endsWith(':wh:oi'))).toBe(true);
    }
  });
});

// --- order flow: every plan over both tiers equals brute force ------------------------------------

type Sortable = IndexedSort | 'IMPLIED_VOLATILITY' | 'TICKER';
// The default order, two other indexed sorts and two without an index (the reader test covers every
// sort on the hot tier; here each kind of walk meets warm blocks).
const SORTS: Sortable[] = ['TRADE_TIME', 'PREMIUM', 'DTE', 'IMPLIED_VOLATILITY', 'TICKER'];
const valueOf = (field: Sortable) => (r: OrderFlowRow) =>
  field === 'IMPLIED_VOLATILITY' ? r.impliedVolatility : field === 'TICKER' ? r.ticker : SORT_INDEXES[field].value(r);

interface Case {
  name: string;
  hints: OrderFlowHints;
  window: TimeWindow | null;
  predicate: (r: OrderFlowRow) => boolean;
}
const open1 = sessionBounds(SESSIONS[0])!.open;
const osi = fixture.prints[7].osi;
const CASES: Case[] = [
  { name: 'everything', hints: {}, window: null, predicate: () => true },
  { name: 'two tickers', hints: { tickers: ['SPY', 'NVDA'] }, window: null, predicate: (r) => r.ticker === 'SPY' || r.ticker === 'NVDA' },
  { name: 'one contract', hints: { osi }, window: null, predicate: (r) => r.osi === osi },
  { name: 'premium >= 100k', hints: { ranges: { PREMIUM: [100_000, null] } }, window: null, predicate: (r) => r.premium >= 100_000 },
  { name: 'unusual', hints: { unusualOnly: true }, window: null, predicate: (r) => r.isUnusual },
  { name: 'a window in the oldest session', hints: {}, window: { startMs: open1 + 20_000, endMs: open1 + 90_000 }, predicate: () => true },
  {
    name: 'tickers + size range + puts',
    hints: { tickers: ['AAPL', 'TSLA', 'AMD'], ranges: { SIZE: [5, 250] } },
    window: null,
    predicate: (r) => ['AAPL', 'TSLA', 'AMD'].includes(r.ticker) && r.size >= 5 && r.size <= 250 && r.contractType === 'PUT',
  },
];

function brute(rows: OrderFlowRow[], c: Case, field: Sortable, descending: boolean): OrderFlowRow[] {
  const v = valueOf(field);
  const out = rows.filter((r) => (!c.window || (r.tradeTime >= c.window.startMs && r.tradeTime < c.window.endMs)) && c.predicate(r));
  out.sort((a, b) => compareKeys(encodeSortKey(v(a)), a.rowKey, encodeSortKey(v(b)), b.rowKey) * (descending ? -1 : 1));
  return out;
}

function query(view: string, c: Case, field: Sortable, descending: boolean, size: number): OrderFlowPageQuery<OrderFlowRow> {
  return {
    view,
    version: 1,
    sessions: SESSIONS,
    window: c.window,
    predicate: c.predicate,
    hints: c.hints,
    sort: { field, descending, value: valueOf(field) },
    after: null,
    size,
  };
}

async function walk(prefix: string, q: OrderFlowPageQuery<OrderFlowRow>, opts: OrderFlowReadOptions = {}): Promise<OrderFlowRow[]> {
  const { rows } = await walkPages<OrderFlowRow, { sortKey: string; rowKey: string }>(
    async (after) => {
      const res = await readOrderFlowPage(redis, prefix, { ...q, after }, opts);
      return { rows: res.rows, next: res.next };
    },
    { size: q.size },
  );
  return rows;
}

const keysOf = (rows: { rowKey: string }[]) => rows.map((r) => r.rowKey);

describe('order flow read from both tiers equals brute force', () => {
  it('whole rows, exactly, across the hot/warm boundary (unconsolidated and consolidated)', async () => {
    const c = CASES[0];
    expect(await walk(WARM, query(ORDER_FLOW_PRINTS_VIEW, c, 'PREMIUM', true, 50))).toEqual(brute(prints, c, 'PREMIUM', true));
    expect(await walk(WARM, query(ORDER_FLOW_CONSOLIDATED_VIEW, c, 'TRADE_TIME', true, 20))).toEqual(brute(consolidated, c, 'TRADE_TIME', true));
  });

  for (const c of CASES) {
    it(`${c.name}: every sort, both directions, sizes 1, 7, 50, each plan`, async () => {
      for (const field of SORTS) {
        for (const descending of [false, true]) {
          const expected = keysOf(brute(prints, c, field, descending));
          // Walks of size 1 over the whole view are quadratic in its rows: filtered cases only.
          for (const size of c.name === 'everything' ? [7, 50] : [1, 7, 50]) {
            for (const force of [undefined, 'index', 'candidates'] as const) {
              if ((size === 1 && force !== 'index') || (size === 50 && force !== undefined)) continue;
              const rows = await walk(WARM, query(ORDER_FLOW_PRINTS_VIEW, c, field, descending, size), { force });
              expect({ field, descending, size, force, rows: keysOf(rows) }).toEqual({ field, descending, size, force, rows: expected });
            }
          }
        }
      }
    });
  }

  it('statistics scanned over both tiers equal brute force, and the counters agree', async () => {
    for (const c of CASES) {
      const sums = new Map<string, number>();
      const add = (f: string, v: number) => sums.set(f, (sums.get(f) ?? 0) + v);
      for (const r of brute(prints, c, 'TRADE_TIME', false)) {
        add(statField(r.contractType, r.tradeSideCode, 'p'), premiumCents(r.premium));
        add(statField(r.contractType, r.tradeSideCode, 'n'), 1);
        add(statField(r.contractType, r.tradeSideCode, 'v'), r.size);
      }
      const q = { view: ORDER_FLOW_PRINTS_VIEW, version: 1, sessions: SESSIONS, window: c.window, predicate: c.predicate, hints: c.hints };
      expect(await readOrderFlowStatistics(redis, WARM, q, { force: 'scan' })).toEqual(statisticsFromCounters(sums));
      if (['everything', 'two tickers', 'premium >= 100k'].includes(c.name))
        expect(await readOrderFlowStatistics(redis, WARM, { ...q, countersFilter: true }, { force: 'counters' })).toEqual(statisticsFromCounters(sums));
    }
  });

  it('a ticker page of a warm session alone', async () => {
    const c = { ...CASES[1], hints: { tickers: ['SPY'] }, predicate: (r: OrderFlowRow) => r.ticker === 'SPY' };
    const q = { ...query(ORDER_FLOW_PRINTS_VIEW, c, 'TRADE_TIME', true, 3), sessions: [SESSIONS[0]] };
    const page = await readOrderFlowPage(redis, WARM, q);
    expect(keysOf(page.rows)).toEqual(
      keysOf(
        brute(prints, c, 'TRADE_TIME', true)
          .filter((r) => r.sessionDate === SESSIONS[0])
          .slice(0, 3),
      ),
    );
  });
});

describe('a session frozen before its block metadata was packed', () => {
  it('reads the same from the older hash of metadata by block id', async () => {
    const c = CASES[6];
    const expected = keysOf(brute(prints, c, 'SIZE', true));
    const packr = new Packr({ useRecords: false });
    const restore: [WarmKeys, string, Buffer, string][] = [];
    for (let p = 0; p < MARKET_PARTITIONS; p++) {
      const w = new WarmKeys(new PartitionKeys(WARM, ORDER_FLOW_PRINTS_VIEW, 1, p));
      for (const d of SESSIONS) {
        const packed = await redis.getBuffer(w.metas(d));
        if (!packed) continue;
        const stamp = (await redis.hget(w.tier, warmField(d)))!;
        restore.push([w, d, packed, stamp]);
        const metas = unpackSessionMetas(packed);
        await redis.hset(w.metaHash(d), ...metas.flatMap((m) => [m.id, packr.pack([m.blockKey, m.count, m.min, m.max])]));
        await redis.del(w.metas(d));
        // Another stamp, so that the reader does not take the metadata it decoded before from its cache.
        await redis.hset(w.tier, warmField(d), `${stamp}-hash`);
      }
    }
    expect(restore.length).toBeGreaterThan(4);
    try {
      expect(keysOf(await walk(WARM, query(ORDER_FLOW_PRINTS_VIEW, c, 'SIZE', true, 7)))).toEqual(expected);
    } finally {
      for (const [w, d, packed, stamp] of restore) {
        await redis.set(w.metas(d), packed);
        await redis.del(w.metaHash(d));
        await redis.hset(w.tier, warmField(d), stamp);
      }
    }
  });
});

// --- equity prints through the table engine ------------------------------------------------------

describe('equity prints read from both tiers equal brute force', () => {
  const sorts = EQUITY_PRINTS_LAYOUT.sorts;
  const eqCases: {
    name: string;
    predicate: (r: EquityPrintRow) => boolean;
    warmBounds?: { blockKeys?: string[]; ranges?: Record<string, [number | null, number | null]> };
  }[] = [
    { name: 'everything', predicate: () => true },
    { name: 'one ticker', predicate: (r) => r.ticker === 'TSLA', warmBounds: { blockKeys: ['TSLA'] } },
    { name: 'notional >= 100k', predicate: (r) => r.notionalValue >= 100_000, warmBounds: { ranges: { notional: [100_000, null] } } },
  ];
  for (const c of eqCases) {
    it(`${c.name}: every indexed sort, both directions, pages of 25 (and 1 when filtered)`, async () => {
      for (const s of sorts) {
        for (const descending of [false, true]) {
          const expected = eqRows
            .filter(c.predicate)
            .sort((a, b) => compareKeys(encodeSortKey(s.value(a)), a.id, encodeSortKey(s.value(b)), b.id) * (descending ? -1 : 1))
            .map((r) => r.id);
          for (const size of c.name === 'everything' ? [25] : [1, 25]) {
            for (const force of (size === 1 ? [undefined] : [undefined, 'candidates']) as TableReadOptions['force'][]) {
              const { rows } = await walkPages<EquityPrintRow, { sortKey: string; rowKey: string }>(
                async (after) =>
                  readTablePage(
                    redis,
                    WARM,
                    {
                      layout: EQUITY_PRINTS_LAYOUT,
                      version: 1,
                      partitions: MARKET_PARTITIONS,
                      segments: SESSIONS,
                      window: null,
                      predicate: c.predicate,
                      warmBounds: c.warmBounds,
                      sort: { suffix: s.suffix, descending, value: s.value },
                      after,
                      size,
                    },
                    { force },
                  ),
                { size },
              );
              expect({ sort: s.suffix, descending, size, ids: rows.map((r) => r.id) }).toEqual({ sort: s.suffix, descending, size, ids: expected });
            }
          }
        }
      }
    });
  }

  it('a scan visits every row of both tiers once', async () => {
    const seen: string[] = [];
    await scanTable(
      redis,
      WARM,
      { layout: EQUITY_PRINTS_LAYOUT, version: 1, partitions: MARKET_PARTITIONS, segments: SESSIONS, window: null, predicate: () => true },
      (r) => seen.push(r.id),
    );
    expect(seen.sort()).toEqual(eqRows.map((r) => r.id).sort());
  });
});

// --- the endpoints over HTTP: a view with warm sessions answers as the one kept hot ------------

describe('the endpoints answer the same from either tier', () => {
  let hotApi: TestApi;
  let warmApi: TestApi;
  beforeAll(async () => {
    for (const prefix of [HOT, WARM])
      for (const view of [ORDER_FLOW_PRINTS_VIEW, ORDER_FLOW_CONSOLIDATED_VIEW, EQUITY_PRINTS_VIEW]) await redis.set(pointerKey(prefix, view), '1');
    hotApi = await startApi({ ...config, keyPrefix: HOT });
    warmApi = await startApi({ ...config, keyPrefix: WARM });
  });
  afterAll(async () => {
    await hotApi?.close();
    await warmApi?.close();
  });

  const all = { timeRange: { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-04T00:00:00Z' } };
  const CALLS: [string, Record<string, unknown>][] = [
    ['/v1/options/tool/order-flow/unconsolidated', { ...all, size: 40 }],
    ['/v1/options/tool/order-flow/unconsolidated', { sessionDate: SESSIONS[0], size: 15, filter: { tickers: ['SPY', 'QQQ'] }, includeStatistics: true }],
    [
      '/v1/options/tool/order-flow/unconsolidated',
      { ...all, size: 25, sort: { field: 'PREMIUM' }, filter: { premiumRange: { min: 50_000 } }, includeStatistics: true },
    ],
    [
      '/v1/options/tool/order-flow/unconsolidated',
      { sessionDate: SESSIONS[1], size: 30, filterExpression: { field: 'SIZE', operation: 'GREATER_THAN', value: 20 } },
    ],
    ['/v1/options/tool/order-flow/consolidated', { ...all, size: 10, includeComprisingTrades: true }],
    [
      '/v1/options/tool/order-flow/consolidated',
      { sessionDate: SESSIONS[0], size: 5, sort: { field: 'SIZE', direction: 'ASCENDING' }, includeStatistics: true },
    ],
    ['/v1/equities/tool/equity-prints', { ...all, size: 60 }],
    ['/v1/equities/tool/equity-prints', { sessionDate: SESSIONS[0], size: 20, filter: { tickers: ['TSLA'] }, sort: { field: 'NOTIONAL_VALUE' } }],
  ];
  it.each(CALLS)('%s %j: every page equal, walked to its end', async (path, body) => {
    const hot = await walkApi(hotApi, path, body);
    const warm = await walkApi(warmApi, path, body);
    expect(hot.rows.length).toBeGreaterThan(0);
    expect(warm).toEqual(hot);
    if (body.includeStatistics) {
      const [a, b] = await Promise.all([hotApi.post(path, body), warmApi.post(path, body)]);
      expect(b.json.statistics).toEqual(a.json.statistics);
    }
  });
});

// --- the layout a replay ends with ----------------------------------------------------------------

describe('the tiers a replay ends with', () => {
  it('depend on the events only, not on how they were cut into chunks (quiet offsets at least the chunk size)', async () => {
    const snapshots = [];
    for (const [i, chunk] of [40, 97, 1].entries()) {
      const prefix = `${config.keyPrefix}:chunks${i}`;
      await withTierEnv(1, () => projectDirect(redis, prefix, 1, equityPrintsProjection, [{ spec: EQ_SPEC, events: eqEvents }], 'in-turn', chunk), 100);
      snapshots.push(await snapshotView(redis, prefix, EQUITY_PRINTS_VIEW, 1));
    }
    // Older sessions moved during the replay (the quiet rule), not all left hot.
    expect(Object.keys(snapshots[0]).some((k) => k.endsWith(':wb'))).toBe(true);
    expect(snapshots[1]).toEqual(snapshots[0]);
    expect(snapshots[2]).toEqual(snapshots[0]);
  });
});

// --- late data: back to the hot tier, and warm again once quiet ------------------------------------

describe('a late event for a warm session', () => {
  it('moves the session back to the hot tier before it is written, and the next quiet chunk moves it back', async () => {
    const late = fixture.prints.find((e) => e.sessionDate === SESSIONS[0])!;
    const newest = fixture.prints.find((e) => e.sessionDate === SESSIONS[2] && partitionOfTicker(e.ticker) === partitionOfTicker(late.ticker))!;
    const p = partitionOfTicker(late.ticker);
    const keys = new PartitionKeys(WARM, ORDER_FLOW_PRINTS_VIEW, 1, p);
    const tierKey = new WarmKeys(keys).tier;
    expect(await redis.hget(tierKey, warmField(SESSIONS[0]))).not.toBeNull();
    const applied = Number(await redis.hget(keys.offsets, PRINTS_SPEC.name));
    // The same print again (a redelivery at a later offset): the row is unchanged.
    const again = { topic: PRINTS_SPEC.name, partition: p, offset: applied + 1, key: late.ticker, value: late as never };
    await withTierEnv(1, () => applyChunk(orderFlowPrintsProjection, keys, [again]));
    expect(await redis.hget(tierKey, warmField(SESSIONS[0]))).toBeNull();
    expect(await redis.exists(new TableKeys(keys).rows(SESSIONS[0]))).toBe(1);
    const c = CASES[0];
    expect(keysOf(await walk(WARM, query(ORDER_FLOW_PRINTS_VIEW, c, 'TRADE_TIME', true, 50)))).toEqual(keysOf(brute(prints, c, 'TRADE_TIME', true)));
    // A chunk of the newest session only: the old one is quiet again and moves back.
    const next = { topic: PRINTS_SPEC.name, partition: p, offset: applied + 2, key: newest.ticker, value: newest as never };
    await withTierEnv(1, () => applyChunk(orderFlowPrintsProjection, keys, [next]));
    expect(await redis.hget(tierKey, warmField(SESSIONS[0]))).not.toBeNull();
    expect(await redis.exists(new TableKeys(keys).rows(SESSIONS[0]))).toBe(0);
    expect(await walk(WARM, query(ORDER_FLOW_PRINTS_VIEW, c, 'PREMIUM', false, 50))).toEqual(brute(prints, c, 'PREMIUM', false));
  });
});

function partitionOfTicker(t: string): number {
  return partitionOf(t, MARKET_PARTITIONS);
}

async function applyChunk(
  projection: Projection,
  keys: PartitionKeys,
  events: { topic: string; partition: number; offset: number; key: string; value: never }[],
): Promise<void> {
  const topic = events[0].topic;
  const applied = Number(await redis.hget(keys.offsets, topic));
  const oiApplied = await redis.hget(keys.offsets, OPEN_INTEREST_SPEC.name);
  const ops = await projection.project(events, keys, redis);
  const res = await applyAtomically(redis, keys.offsets, topic, applied, events[events.length - 1].offset, ops, [
    [OPEN_INTEREST_SPEC.name, oiApplied === null ? -1 : Number(oiApplied)],
  ]);
  expect(res.applied).toBe(true);
}

describe('a move back to the hot tier', () => {
  it('restores the session key for key as it was projected (rows, indexes, comprising trades, open-interest join)', async () => {
    const layout = orderFlowLayout(ORDER_FLOW_CONSOLIDATED_VIEW);
    let thawed = 0;
    for (let p = 0; p < MARKET_PARTITIONS; p++) {
      const keys = new PartitionKeys(WARM, ORDER_FLOW_CONSOLIDATED_VIEW, 1, p);
      if ((await redis.hget(new WarmKeys(keys).tier, warmField(SESSIONS[0]))) === null) continue;
      await thawSession(redis, layout, keys, SESSIONS[0]);
      thawed++;
    }
    expect(thawed).toBeGreaterThan(3);
    const session = (snap: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(snap).filter(([k]) => k.includes(`:${SESSIONS[0]}:`) || k.endsWith(`:oi:${SESSIONS[0]}`)));
    const hot = session(await snapshotView(redis, HOT, ORDER_FLOW_CONSOLIDATED_VIEW, 1));
    expect(Object.keys(hot).some((k) => k.endsWith(':ct'))).toBe(true);
    expect(Object.keys(hot).some((k) => k.endsWith(`:oi:${SESSIONS[0]}`))).toBe(true);
    expect(Object.keys(hot).some((k) => k.includes(`:oi:${SESSIONS[0]}:`))).toBe(true);
    expect(session(await snapshotView(redis, WARM, ORDER_FLOW_CONSOLIDATED_VIEW, 1))).toEqual(hot);
  });
});

describe('a session with open interest and no rows yet', () => {
  const before = fixture.prints.filter((e) => e.sessionDate !== SESSIONS[0]);
  const s0 = fixture.prints.filter((e) => e.sessionDate === SESSIONS[0]);
  const layout = orderFlowLayout(ORDER_FLOW_PRINTS_VIEW) as TableLayout<never>;

  it('moves its open-interest join alone once a newer session is hot, and nothing else', async () => {
    const prefix = `${config.keyPrefix}:oi-only`;
    await withTierEnv(1, () =>
      projectDirect(redis, prefix, 1, orderFlowPrintsProjection, [
        { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
        { spec: PRINTS_SPEC, events: before },
      ]),
    );
    let moved = 0;
    for (let p = 0; p < MARKET_PARTITIONS; p++) {
      const keys = new PartitionKeys(prefix, ORDER_FLOW_PRINTS_VIEW, 1, p);
      const k = orderFlowKeys(keys);
      if (!(await redis.zrange(k.openInterestSessions, 0, -1)).includes(SESSIONS[0])) continue;
      expect(await redis.zrange(k.sessions, 0, -1)).not.toContain(SESSIONS[0]);
      expect(await redis.hget(new WarmKeys(keys).tier, warmField(SESSIONS[0]))).toBe('0');
      expect(await keysMatching(redis, `${keys.key('oi', SESSIONS[0])}*`)).toEqual([]);
      expect(await redis.exists(new WarmKeys(keys).state(SESSIONS[0], 'oi'))).toBe(1);
      moved++;
    }
    expect(moved).toBeGreaterThan(3);
  });

  it("makes the oldest hot session old: a new session's open interest, before its first print, moves it", async () => {
    const prefix = `${config.keyPrefix}:oi-moves`;
    const early = (e: { sessionDate: string }) => e.sessionDate !== SESSIONS[2];
    await withTierEnv(2, () =>
      projectDirect(redis, prefix, 1, orderFlowPrintsProjection, [
        { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest.filter(early) },
        { spec: PRINTS_SPEC, events: fixture.prints.filter(early) },
      ]),
    );
    // A partition with rows of the oldest session, and the newest session's open interest.
    const oi = fixture.openInterest.find(
      (e) =>
        e.sessionDate === SESSIONS[2] &&
        fixture.prints.some((r) => r.sessionDate === SESSIONS[0] && partitionOfTicker(r.ticker) === partitionOfTicker(e.ticker)),
    )!;
    const p = partitionOfTicker(oi.ticker);
    const keys = new PartitionKeys(prefix, ORDER_FLOW_PRINTS_VIEW, 1, p);
    const tierOf = (d: string) => redis.hget(new WarmKeys(keys).tier, warmField(d));
    expect([await tierOf(SESSIONS[0]), await tierOf(SESSIONS[1])]).toEqual([null, null]); // two sessions, both hot
    const applied = Number(await redis.hget(keys.offsets, OPEN_INTEREST_SPEC.name));
    const printsApplied = Number(await redis.hget(keys.offsets, PRINTS_SPEC.name));
    const chunk = [{ topic: OPEN_INTEREST_SPEC.name, partition: p, offset: applied + 1, key: oi.ticker, value: oi as never }];
    const ops = await withTierEnv(2, () => orderFlowPrintsProjection.project(chunk, keys, redis));
    expect((await applyAtomically(redis, keys.offsets, OPEN_INTEREST_SPEC.name, applied, applied + 1, ops, [[PRINTS_SPEC.name, printsApplied]])).applied).toBe(
      true,
    );
    expect(await tierOf(SESSIONS[0])).toMatch(/^[1-9]\d*:/); // warm, with blocks
    expect(await tierOf(SESSIONS[1])).toBeNull();
    expect(await redis.exists(new TableKeys(keys).rows(SESSIONS[0]))).toBe(0);
    expect(await tierOf(SESSIONS[2])).toBeNull(); // the new session stays hot, its join unpacked
  });

  it('counts one session of open interest ahead of the rows at most, so the newest hot - 1 sessions with rows stay hot', async () => {
    const prefix = `${config.keyPrefix}:oi-ahead`;
    const early = (e: { sessionDate: string }) => e.sessionDate !== SESSIONS[2];
    // Open interest of the newest session and of one after it; rows of the two before.
    const later = fixture.openInterest.filter((e) => e.sessionDate === SESSIONS[2]).map((e) => ({ ...e, sessionDate: '2024-05-09' }));
    await withTierEnv(3, () =>
      projectDirect(redis, prefix, 1, orderFlowPrintsProjection, [
        { spec: OPEN_INTEREST_SPEC, events: [...fixture.openInterest, ...later] },
        { spec: PRINTS_SPEC, events: fixture.prints.filter(early) },
      ]),
    );
    let checked = 0;
    for (let p = 0; p < MARKET_PARTITIONS; p++) {
      const keys = new PartitionKeys(prefix, ORDER_FLOW_PRINTS_VIEW, 1, p);
      if (!(await redis.zrange(orderFlowKeys(keys).sessions, 0, -1)).includes(SESSIONS[0])) continue;
      // Counted: the two sessions with rows and 2024-05-09, not SESSIONS[2] as well.
      expect(await redis.hget(new WarmKeys(keys).tier, warmField(SESSIONS[0]))).toBeNull();
      expect(await redis.hget(new WarmKeys(keys).tier, warmField(SESSIONS[2]))).toBeNull();
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });

  it('gets it back when its rows arrive: the rows join their open interest, and the view ends as if they had come in order', async () => {
    const prefix = `${config.keyPrefix}:oi-first`;
    await withTierEnv(1, () =>
      projectDirect(redis, prefix, 1, orderFlowPrintsProjection, [
        { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
        { spec: PRINTS_SPEC, events: [...before, ...s0] },
      ]),
    );
    await settle(prefix, layout);
    expect(await viewContents(redis, prefix, ORDER_FLOW_PRINTS_VIEW, 1)).toEqual(await viewContents(redis, WARM, ORDER_FLOW_PRINTS_VIEW, 1));
    // The rows of that session joined a non-zero open interest somewhere (the check above would
    // not tell a join against nothing if every value were 0).
    expect(prints.some((r) => r.sessionDate === SESSIONS[0] && r.openInterest > 0)).toBe(true);
  });
});

// --- last: it adds a row to the warm view's oldest session, which the tests above compare --------------

describe('a warm session frozen again', () => {
  it('frozen again with a new row, it reads anew: the readers key decoded metadata by the tier field, which changes', async () => {
    const late = fixture.prints.find((e) => e.sessionDate === SESSIONS[0])!;
    const p = partitionOfTicker(late.ticker);
    const keys = new PartitionKeys(WARM, ORDER_FLOW_PRINTS_VIEW, 1, p);
    const tierKey = new WarmKeys(keys).tier;
    const c = { ...CASES[1], hints: { tickers: [late.ticker] }, predicate: (r: OrderFlowRow) => r.ticker === late.ticker };
    const one = { ...query(ORDER_FLOW_PRINTS_VIEW, c, 'TRADE_TIME', true, 500), sessions: [SESSIONS[0]] };
    // A premium no row of the session reaches: its blocks' metadata rule them out.
    const big = {
      ...one,
      hints: { tickers: [late.ticker], ranges: { PREMIUM: [5e8, null] } },
      predicate: (r: OrderFlowRow) => r.ticker === late.ticker && r.premium >= 5e8,
    } as typeof one;
    const before = keysOf((await readOrderFlowPage(redis, WARM, one)).rows); // decodes and caches the metadata
    expect(keysOf((await readOrderFlowPage(redis, WARM, big)).rows)).toEqual([]);
    const stampBefore = await redis.hget(tierKey, warmField(SESSIONS[0]));
    expect(stampBefore).toMatch(/^\d+:/);
    // A new print of that ticker and session (a new rowKey), then a chunk of the newest session.
    const applied = Number(await redis.hget(keys.offsets, PRINTS_SPEC.name));
    const added = {
      ...late,
      rowKey: `${late.rowKey.slice(0, 2)}zzzzzzzz`,
      id: 'f0000000-0000-4000-8000-000000000001',
      tradeTime: late.tradeTime + 1,
      premium: 987_654_321,
    };
    const newest = fixture.prints.find((e) => e.sessionDate === SESSIONS[2] && partitionOfTicker(e.ticker) === p)!;
    await withTierEnv(1, () =>
      applyChunk(orderFlowPrintsProjection, keys, [{ topic: PRINTS_SPEC.name, partition: p, offset: applied + 1, key: late.ticker, value: added as never }]),
    );
    await withTierEnv(1, () =>
      applyChunk(orderFlowPrintsProjection, keys, [{ topic: PRINTS_SPEC.name, partition: p, offset: applied + 2, key: newest.ticker, value: newest as never }]),
    );
    const stampAfter = await redis.hget(tierKey, warmField(SESSIONS[0]));
    expect(stampAfter).toMatch(/^\d+:/);
    expect(stampAfter).not.toEqual(stampBefore);
    const after = keysOf((await readOrderFlowPage(redis, WARM, one)).rows);
    expect(before.length).toBeLessThan(500); // the page holds the ticker's whole session
    expect([...after].sort()).toEqual([...before, added.rowKey].sort());
    // Read with the metadata cached before, the block would still be ruled out.
    expect(keysOf((await readOrderFlowPage(redis, WARM, big)).rows)).toEqual([added.rowKey]);
  });
});

describe('a warm session frozen again with the same blocks but another row', () => {
  it('reads the row as it is now: the stamp that keys decoded rows digests the blocks themselves', async () => {
    const layout = orderFlowLayout(ORDER_FLOW_PRINTS_VIEW);
    const target = prints.find((r) => r.sessionDate === SESSIONS[0] && r.ticker === 'AAPL')!;
    const keys = new PartitionKeys(WARM, ORDER_FLOW_PRINTS_VIEW, 1, partitionOfTicker(target.ticker));
    const tierKey = new WarmKeys(keys).tier;
    const c = { ...CASES[1], hints: { tickers: [target.ticker] }, predicate: (r: OrderFlowRow) => r.ticker === target.ticker };
    const page = { ...query(ORDER_FLOW_PRINTS_VIEW, c, 'TRADE_TIME', true, 500), sessions: [SESSIONS[0]] };
    const exchangeOf = async () => (await readOrderFlowPage(redis, WARM, page)).rows.find((r) => r.rowKey === target.rowKey)!.exchange;
    const was = await exchangeOf(); // decodes and caches the blocks' rows
    const stampBefore = await redis.hget(tierKey, warmField(SESSIONS[0]));
    // The row's exchange changed in place, no sort value: the blocks' ids and metadata stay the same.
    await thawSession(redis, layout, keys, SESSIONS[0]);
    const rowsKey = new TableKeys(keys).rows(SESSIONS[0]);
    const stored = (await redis.hgetBuffer(rowsKey, target.rowKey))!;
    const other = was === 'CBOE' ? 'MIAX' : 'CBOE';
    await redis.hset(rowsKey, target.rowKey, layout.encode({ ...layout.decode(stored, target.rowKey, SESSIONS[0]), exchange: other }));
    await settleWarmTier(redis, layout, keys, 1);
    const stampAfter = await redis.hget(tierKey, warmField(SESSIONS[0]));
    expect(stampAfter).toMatch(/^\d+:.+:b$/);
    expect(stampAfter!.split(':')[0]).toBe(stampBefore!.split(':')[0]);
    expect(stampAfter).not.toBe(stampBefore);
    expect(await exchangeOf()).toBe(other);
  });
});
