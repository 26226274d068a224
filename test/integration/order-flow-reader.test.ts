import type { RedisClient as Redis } from '../../services/redis/client';
import { createRedis } from '../../services/redis/client';
import { sessionBounds } from '../../services/domain/calendar';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import {
  ORDER_FLOW_CONSOLIDATED_VIEW,
  ORDER_FLOW_PRINTS_VIEW,
  SORT_INDEXES,
  compareKeys,
  encodeSortKey,
  premiumCents,
  statField,
  statisticsFromCounters,
  type IndexedSort,
  type OrderFlowRow,
} from '../../services/views/order-flow';
import {
  CANDIDATE_THRESHOLD,
  MAX_COMBOS,
  orderFlowSessions,
  readComprisingTrades,
  readOrderFlowPage,
  readOrderFlowStatistics,
  type OrderFlowHints,
  type OrderFlowPage,
  type OrderFlowPageQuery,
  type OrderFlowQuery,
  type OrderFlowReadOptions,
} from '../../api/views/order-flow';
import type { TimeWindow } from '../../api/request/time';
import { ViewPointers } from '../../api/views/pointer';
import { pointerKey } from '../../services/views/keys';
import { walkPages } from '../support/cursor-walk';
import { testConfig } from '../support/env';
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
 * The order-flow reader against real Redis, on rows written by the projections' own logic:
 * every plan (A index walk, B small candidate set, C unindexed sort) must give exactly the
 * brute-force answer — every matching row once, in (sort value, rowKey) order, both directions,
 * across sessions and partitions, however many rows tie — and statistics must equal brute-force
 * sums on both the counter and the scan path.
 */

const config = testConfig('ofr');
const prefix = config.keyPrefix;
const SESSIONS = ['2024-05-01', '2024-05-02'];
const fixture = orderFlowFixture({ sessions: SESSIONS, printsPerSession: 200, seed: 11 });
const prints = expectedPrintRows(fixture);
const consolidated = expectedConsolidatedRows(fixture);
let redis: Redis;

beforeAll(async () => {
  redis = createRedis(config.viewsRedisUrl);
  await projectDirect(redis, prefix, 1, orderFlowPrintsProjection, [
    { spec: PRINTS_SPEC, events: fixture.prints },
    { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
  ]);
  await projectDirect(redis, prefix, 1, orderFlowConsolidatedProjection, [
    { spec: CONSOLIDATED_SPEC, events: fixture.consolidated },
    { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
  ]);
});
afterAll(() => redis.disconnect());

type Sortable = IndexedSort | 'IMPLIED_VOLATILITY' | 'TICKER';
const SORTS: Sortable[] = ['TRADE_TIME', 'PREMIUM', 'SIZE', 'VOLUME', 'DTE', 'STRIKE_PRICE', 'IMPLIED_VOLATILITY', 'TICKER'];
const valueOf = (field: Sortable) => (r: OrderFlowRow) =>
  field === 'IMPLIED_VOLATILITY' ? r.impliedVolatility : field === 'TICKER' ? r.ticker : SORT_INDEXES[field].value(r);

interface Case {
  name: string;
  hints: OrderFlowHints;
  window: TimeWindow | null;
  predicate: (r: OrderFlowRow) => boolean;
  sessions?: string[];
}

const open1 = sessionBounds(SESSIONS[0])!.open;
const open2 = sessionBounds(SESSIONS[1])!.open; // once: the predicates run for every row scanned
const osi = fixture.prints[5].osi;
const CASES: Case[] = [
  { name: 'everything', hints: {}, window: null, predicate: () => true },
  { name: 'two tickers', hints: { tickers: ['SPY', 'NVDA'] }, window: null, predicate: (r) => r.ticker === 'SPY' || r.ticker === 'NVDA' },
  { name: 'one contract', hints: { osi }, window: null, predicate: (r) => r.osi === osi },
  { name: 'premium >= 100k', hints: { ranges: { PREMIUM: [100_000, null] } }, window: null, predicate: (r) => r.premium >= 100_000 },
  { name: 'unusual', hints: { unusualOnly: true }, window: null, predicate: (r) => r.isUnusual },
  { name: 'a time window', hints: {}, window: { startMs: open1 + 20_000, endMs: open1 + 60_000 }, predicate: () => true },
  {
    name: 'tickers + size range + puts (not a hint)',
    hints: { tickers: ['AAPL', 'TSLA', 'AMD'], ranges: { SIZE: [5, 250] } },
    window: null,
    predicate: (r) => ['AAPL', 'TSLA', 'AMD'].includes(r.ticker) && r.size >= 5 && r.size <= 250 && r.contractType === 'PUT',
  },
  {
    // The fixture's sectors ('Technology', 'ETF') are outside the spec's list: the combination
    // index files them under its last sector, and the reader must still find them.
    name: 'combination: puts at or above the ask, premium >= 100k, one sector',
    hints: { contractTypes: ['PUT'], tradeSides: ['ASK', 'ABOVE_ASK'], sectors: ['Technology'], ranges: { PREMIUM: [100_000, null] } },
    window: null,
    predicate: (r) => r.contractType === 'PUT' && ['ASK', 'ABOVE_ASK'].includes(r.tradeSideCode) && r.sector === 'Technology' && r.premium >= 100_000,
  },
  {
    name: 'combination: calls below $200k on the bid side, two sectors',
    hints: { contractTypes: ['CALL'], tradeSides: ['BID', 'BELOW_BID'], sectors: ['ETF', 'TECHNOLOGY'], ranges: { PREMIUM: [null, 200_000] } },
    window: null,
    predicate: (r) =>
      r.contractType === 'CALL' && ['BID', 'BELOW_BID'].includes(r.tradeSideCode) && ['ETF', 'TECHNOLOGY'].includes(r.sector) && r.premium <= 200_000,
  },
  {
    name: 'one session, premium range and window',
    sessions: [SESSIONS[1]],
    hints: { ranges: { PREMIUM: [1_000, 200_000], TRADE_TIME: [null, open2 + 70_000] } },
    window: { startMs: open2 + 10_000, endMs: open2 + 90_000 },
    predicate: (r) => r.premium >= 1_000 && r.premium <= 200_000 && r.tradeTime <= open2 + 70_000,
  },
];

function brute(rows: OrderFlowRow[], c: Case, field: Sortable, descending: boolean): OrderFlowRow[] {
  const sessions = c.sessions ?? SESSIONS;
  const v = valueOf(field);
  const out = rows.filter(
    (r) => sessions.includes(r.sessionDate) && (!c.window || (r.tradeTime >= c.window.startMs && r.tradeTime < c.window.endMs)) && c.predicate(r),
  );
  out.sort((a, b) => compareKeys(encodeSortKey(v(a)), a.rowKey, encodeSortKey(v(b)), b.rowKey) * (descending ? -1 : 1));
  return out;
}

function statsQuery(view: string, c: Case, countersFilter = false): OrderFlowQuery<OrderFlowRow> {
  return { view, version: 1, sessions: c.sessions ?? SESSIONS, window: c.window, predicate: c.predicate, hints: c.hints, countersFilter };
}

function query(view: string, c: Case, field: Sortable, descending: boolean, size: number): OrderFlowPageQuery<OrderFlowRow> {
  return { ...statsQuery(view, c), sort: { field, descending, value: valueOf(field) }, after: null, size };
}

/** Walks every page; checks page sizes and that only the last page lacks a cursor. */
async function walk(q: OrderFlowPageQuery<OrderFlowRow>, opts: OrderFlowReadOptions = {}): Promise<{ rows: OrderFlowRow[]; plans: Set<string> }> {
  const plans = new Set<string>();
  const { rows } = await walkPages<OrderFlowRow, { sortKey: string; rowKey: string }>(
    async (after) => {
      const res: OrderFlowPage<OrderFlowRow> = await readOrderFlowPage(redis, prefix, { ...q, after }, { ...opts, onPlan: (p) => plans.add(p) });
      return { rows: res.rows, next: res.next };
    },
    { size: q.size },
  );
  return { rows, plans };
}

const keysOf = (rows: OrderFlowRow[]) => rows.map((r) => r.rowKey);

describe('paging: every plan equals brute force', () => {
  it('the fixture has ties on every indexed field, nulls, several partitions and both sessions', () => {
    for (const s of Object.keys(SORT_INDEXES) as IndexedSort[]) {
      const distinct = new Set(prints.map((r) => SORT_INDEXES[s].value(r))).size;
      expect(distinct).toBeLessThan(prints.length * (s === 'VOLUME' ? 0.75 : 0.5));
    }
    expect(prints.some((r) => r.impliedVolatility === null)).toBe(true);
    expect(new Set(prints.map((r) => r.rowKey.slice(0, 2))).size).toBeGreaterThanOrEqual(4);
    expect(prints.filter((r) => r.isUnusual).length).toBeGreaterThan(10);
    expect(prints.filter((r) => r.premium >= 1_000_000).length).toBeGreaterThan(5);
  });

  it('whole view, every sort, both directions, pages of 7 and 50 (auto plan, and B forced)', async () => {
    const c = CASES[0];
    for (const field of SORTS) {
      for (const descending of [false, true]) {
        const expected = brute(prints, c, field, descending);
        for (const size of [7, 50]) {
          const auto = await walk(query(ORDER_FLOW_PRINTS_VIEW, c, field, descending, size));
          expect(keysOf(auto.rows)).toEqual(keysOf(expected));
          expect([...auto.plans]).toEqual([field in SORT_INDEXES ? `A x:${SORT_INDEXES[field as IndexedSort].suffix}` : 'C x:time']);
        }
        const b = await walk(query(ORDER_FLOW_PRINTS_VIEW, c, field, descending, 50), { force: 'candidates' });
        expect(keysOf(b.rows)).toEqual(keysOf(expected));
      }
    }
    // Rows come back complete and exact (open-interest flags included).
    const all = await walk(query(ORDER_FLOW_PRINTS_VIEW, c, 'PREMIUM', true, 50));
    expect(all.rows).toEqual(brute(prints, c, 'PREMIUM', true));
  });

  it('walks of a single page size 1 over the whole view end exactly at the last row', async () => {
    const c = CASES[0];
    const expected = brute(prints, c, 'SIZE', true);
    const w = await walk(query(ORDER_FLOW_PRINTS_VIEW, c, 'SIZE', true, 1));
    expect(keysOf(w.rows)).toEqual(keysOf(expected));
  });

  for (const c of CASES.slice(1)) {
    it(`${c.name}: plans A, B and C, every sort, both directions, sizes 1, 7, 50`, async () => {
      const plansSeen = new Set<string>();
      for (const field of SORTS) {
        for (const descending of [false, true]) {
          const expected = keysOf(brute(prints, c, field, descending));
          for (const size of [1, 7, 50]) {
            for (const force of [undefined, 'index', 'candidates'] as const) {
              // Auto is one of the other two. Walks of size 1 (a resume at every row, ties included)
              // are most of this file's time: plan B's only under SIZE (the most ties), as it sorts
              // its candidates in memory and resumes by the same key comparison under every sort,
              // which the pages of 7 walk for each.
              if (size === 1 && (force === undefined || (force === 'candidates' && field !== 'SIZE'))) continue;
              const w = await walk(query(ORDER_FLOW_PRINTS_VIEW, c, field, descending, size), { force });
              expect({ field, descending, size, force, rows: keysOf(w.rows) }).toEqual({ field, descending, size, force, rows: expected });
              for (const p of w.plans) plansSeen.add(p);
            }
          }
        }
      }
      expect([...plansSeen].some((p) => p.startsWith('A '))).toBe(true);
      expect([...plansSeen].some((p) => p.startsWith('B '))).toBe(true);
      expect([...plansSeen].some((p) => p.startsWith('C '))).toBe(true);
    });
  }

  it('a TRADE_TIME walk uses the narrowest by-time index of the hints', async () => {
    const plan = async (c: Case, opts: OrderFlowReadOptions = { force: 'index' }) => {
      const seen: string[] = [];
      await readOrderFlowPage(redis, prefix, query(ORDER_FLOW_PRINTS_VIEW, c, 'TRADE_TIME', true, 5), { ...opts, onPlan: (p) => seen.push(p) });
      return seen[0];
    };
    expect(await plan(CASES[1])).toBe('A tk');
    expect(await plan(CASES[2])).toBe('A os');
    expect(await plan(CASES[3])).toBe('A pt:100000');
    expect(await plan(CASES[4])).toBe('A un');
    expect(await plan(CASES.find((c) => c.name.startsWith('combination: puts'))!)).toBe('A cx');
    expect(await plan(CASES.find((c) => c.name.startsWith('combination: calls'))!)).toBe('A cx');
    // Any sector: 2 tiers x 1 type x 2 sides x 12 sectors = 48 sets, within MAX_COMBOS; with
    // every tier (no premium bound) 96 sets, over it: the combination index is not used.
    const calls = CASES.find((c) => c.name.startsWith('combination: calls'))!;
    expect(MAX_COMBOS).toBe(48);
    expect(await plan({ ...calls, hints: { ...calls.hints, sectors: undefined } })).toBe('A cx');
    expect(await plan({ ...calls, hints: { ...calls.hints, sectors: undefined, ranges: {} } })).toBe('A x:time');
    expect(await plan(CASES[0], {})).toBe('A x:time');
    // Auto: the contract's index is tiny, so the candidate set is read (for any sort).
    const seen: string[] = [];
    await readOrderFlowPage(redis, prefix, query(ORDER_FLOW_PRINTS_VIEW, CASES[2], 'PREMIUM', false, 5), { onPlan: (p) => seen.push(p) });
    expect(seen).toEqual(['B os']);
    // With a threshold below the set's size the planner walks the sort index instead.
    seen.length = 0;
    await readOrderFlowPage(redis, prefix, query(ORDER_FLOW_PRINTS_VIEW, CASES[1], 'PREMIUM', false, 5), {
      candidateThreshold: 10,
      onPlan: (p) => seen.push(p),
    });
    expect(seen).toEqual(['A x:premium']);
    expect(CANDIDATE_THRESHOLD).toBe(5_000);
  });

  it('walks the combination sets without counting when they are a subset of every other family', async () => {
    /** The plan and the counting commands (ZCARD, ZLEXCOUNT) a first page sends, with its rows. */
    const run = async (c: Case) => {
      const counts: string[] = [];
      const pipeline = redis.pipeline.bind(redis);
      const spy = jest.spyOn(redis, 'pipeline').mockImplementation(((...a: []) => {
        const p = pipeline(...a);
        for (const name of ['zcard', 'zlexcount'] as const) {
          const send = p[name].bind(p) as (...args: unknown[]) => typeof p;
          p[name] = ((...args: unknown[]) => {
            counts.push(name);
            return send(...args);
          }) as never;
        }
        return p;
      }) as typeof redis.pipeline);
      const seen: string[] = [];
      try {
        const page = await readOrderFlowPage(redis, prefix, query(ORDER_FLOW_PRINTS_VIEW, c, 'TRADE_TIME', true, 20), { onPlan: (p) => seen.push(p) });
        const expected = brute(prints, c, 'TRADE_TIME', true).slice(0, 20);
        expect(page.rows.map((r) => r.rowKey)).toEqual(expected.map((r) => r.rowKey));
      } finally {
        spy.mockRestore();
      }
      return { plan: seen[0], counted: counts.length };
    };
    const puts = CASES.find((c) => c.name.startsWith('combination: puts'))!;
    // Premium floor on a tier boundary (100k), nothing else: no counting.
    expect(await run(puts)).toEqual({ plan: 'A cx', counted: 0 });
    const anyPremium = {
      ...puts,
      hints: { ...puts.hints, ranges: {} },
      predicate: (r: OrderFlowRow) => r.contractType === 'PUT' && ['ASK', 'ABOVE_ASK'].includes(r.tradeSideCode) && r.sector === 'Technology',
    };
    expect(await run(anyPremium)).toEqual({ plan: 'A cx', counted: 0 });
    // A floor between tiers, a ceiling or a ticker may make another family smaller: counted.
    const between = {
      ...puts,
      hints: { ...puts.hints, ranges: { PREMIUM: [150_000, null] as [number, null] } },
      predicate: (r: OrderFlowRow) => puts.predicate(r) && r.premium >= 150_000,
    };
    expect((await run(between)).counted).toBeGreaterThan(0);
    const ceiling = {
      ...puts,
      hints: { ...puts.hints, ranges: { PREMIUM: [100_000, 900_000] as [number, number] } },
      predicate: (r: OrderFlowRow) => puts.predicate(r) && r.premium <= 900_000,
    };
    expect((await run(ceiling)).counted).toBeGreaterThan(0);
    const ticker = { ...puts, hints: { ...puts.hints, tickers: ['AAPL'] }, predicate: (r: OrderFlowRow) => puts.predicate(r) && r.ticker === 'AAPL' };
    expect((await run(ticker)).counted).toBeGreaterThan(0);
  });

  it('the consolidated view pages the last version of each trade, with its comprising trades', async () => {
    for (const field of ['TRADE_TIME', 'PREMIUM', 'SIZE', 'IMPLIED_VOLATILITY'] as Sortable[]) {
      for (const descending of [false, true]) {
        for (const c of [CASES[0], CASES[1], CASES[4]]) {
          const expected = brute(consolidated, c, field, descending);
          const w = await walk(query(ORDER_FLOW_CONSOLIDATED_VIEW, c, field, descending, 7));
          expect(w.rows).toEqual(expected);
        }
      }
    }
    const last = new Map(fixture.consolidated.map((e) => [e.rowKey, e]));
    const some = consolidated.slice(0, 60);
    const trades = await readComprisingTrades(redis, prefix, 1, some);
    for (const r of some) expect(trades.get(r.rowKey)).toEqual(last.get(r.rowKey)!.comprisingTrades);
  });

  it('sessions of a view', async () => {
    expect(await orderFlowSessions(redis, prefix, ORDER_FLOW_PRINTS_VIEW, 1)).toEqual(SESSIONS);
    expect(await orderFlowSessions(redis, prefix, ORDER_FLOW_CONSOLIDATED_VIEW, 1)).toEqual(SESSIONS);
    expect(await orderFlowSessions(redis, prefix, ORDER_FLOW_PRINTS_VIEW, 9)).toEqual([]);
  });

  it('the API caches a view pointer and a session list for its TTL, shares reads in flight, and does not cache a failure', async () => {
    const views = new ViewPointers(redis, prefix, 300);
    const pointer = pointerKey(prefix, 'cache-test');
    await redis.set(pointer, '4');
    expect(await views.version('cache-test')).toBe(4);
    await redis.set(pointer, '5');
    expect(await views.version('cache-test')).toBe(4); // within the TTL
    await new Promise((r) => setTimeout(r, 350));
    expect(await views.version('cache-test')).toBe(5);
    expect(await views.version('never-built')).toBeNull();

    let reads = 0;
    const read = async () => {
      reads++;
      return orderFlowSessions(redis, prefix, ORDER_FLOW_PRINTS_VIEW, 1);
    };
    // Ten concurrent requests that miss share one read.
    const lists = await Promise.all(Array.from({ length: 10 }, () => views.list('prints:1:sessions', read)));
    for (const l of lists) expect(l).toEqual(SESSIONS);
    expect(reads).toBe(1);
    expect(await views.list('prints:1:sessions', read)).toEqual(SESSIONS);
    expect(reads).toBe(1);
    await new Promise((r) => setTimeout(r, 350));
    await views.list('prints:1:sessions', read);
    expect(reads).toBe(2);
    // A failed read reaches the caller and is tried again by the next request.
    await expect(views.list('failing', async () => Promise.reject(new Error('redis away')))).rejects.toThrow('redis away');
    expect(await views.list('failing', async () => ['2024-05-01'])).toEqual(['2024-05-01']);
    await redis.del(pointer);
  });
});

describe('statistics equal brute force', () => {
  function bruteStats(rows: OrderFlowRow[], c: Case) {
    const m = new Map<string, number>();
    const add = (f: string, v: number) => m.set(f, (m.get(f) ?? 0) + v);
    for (const r of brute(rows, c, 'TRADE_TIME', false)) {
      add(statField(r.contractType, r.tradeSideCode, 'p'), premiumCents(r.premium));
      add(statField(r.contractType, r.tradeSideCode, 'n'), 1);
      add(statField(r.contractType, r.tradeSideCode, 'v'), r.size);
    }
    return statisticsFromCounters(m);
  }

  // Filters the counters answer: tickers, contract types, trade sides, sectors, a premium floor at a tier.
  const COUNTED: Case[] = [
    CASES[0],
    CASES[1],
    { ...CASES[1], hints: { tickers: ['QQQ'] }, predicate: (r: OrderFlowRow) => r.ticker === 'QQQ', sessions: [SESSIONS[1]] },
    {
      name: 'puts, premium >= 100k',
      hints: { contractTypes: ['PUT'], ranges: { PREMIUM: [100_000, null] } },
      window: null,
      predicate: (r) => r.contractType === 'PUT' && r.premium >= 100_000,
    },
    {
      name: 'two tickers, calls at or above the ask, premium >= 500k',
      hints: { tickers: ['SPY', 'NVDA'], contractTypes: ['CALL'], tradeSides: ['ASK', 'ABOVE_ASK'], ranges: { PREMIUM: [500_000, null] } },
      window: null,
      predicate: (r) =>
        ['SPY', 'NVDA'].includes(r.ticker) && r.contractType === 'CALL' && ['ASK', 'ABOVE_ASK'].includes(r.tradeSideCode) && r.premium >= 500_000,
    },
    {
      name: 'mid-market or bid, one session',
      sessions: [SESSIONS[1]],
      hints: { tradeSides: ['MID_MARKET', 'BID'] },
      window: null,
      predicate: (r) => ['MID_MARKET', 'BID'].includes(r.tradeSideCode),
    },
    {
      // The fixture's sectors are off the list ('Technology', 'ETF'): no row is TECHNOLOGY.
      name: 'a listed sector no row has, premium >= 1M',
      hints: { sectors: ['TECHNOLOGY'], ranges: { PREMIUM: [1_000_000, null] } },
      window: null,
      predicate: (r) => r.sector === 'TECHNOLOGY' && r.premium >= 1_000_000,
    },
  ];

  it('counters (whole sessions; tickers and the combination fields) and scans agree exactly', async () => {
    for (const [view, rows] of [
      [ORDER_FLOW_PRINTS_VIEW, prints],
      [ORDER_FLOW_CONSOLIDATED_VIEW, consolidated],
    ] as const) {
      for (const c of COUNTED) {
        const expected = bruteStats(rows, c);
        const plans: string[] = [];
        const viaCounters = await readOrderFlowStatistics(redis, prefix, statsQuery(view, c, true), { onPlan: (p) => plans.push(p) });
        const viaScan = await readOrderFlowStatistics(redis, prefix, statsQuery(view, c, true), { force: 'scan', onPlan: (p) => plans.push(p) });
        expect(plans[0]).toBe('counters');
        expect(plans[1]).toMatch(/^scan /);
        expect(viaCounters).toEqual(expected);
        expect(viaScan).toEqual(expected);
        expect(Object.keys(viaCounters.CALL)).toEqual(['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID']);
      }
      // Every case but the last (no TECHNOLOGY row) counts rows, so the sums compared are not all zero.
      const counted = (c: Case) => Object.values(bruteStats(rows, c)).flatMap((t) => Object.values(t).map((x) => x.tradeCount));
      expect(COUNTED.map((c) => counted(c).some((n) => n > 0))).toEqual([...COUNTED.slice(0, -1).map(() => true), false]);
    }
  });

  it('counters decline what they cannot answer exactly: a premium floor off the tiers, a ceiling, an off-list value', async () => {
    const declined: Case[] = [
      { name: 'premium >= 50k', hints: { ranges: { PREMIUM: [50_000, null] } }, window: null, predicate: (r) => r.premium >= 50_000 },
      { name: 'premium <= 100k', hints: { ranges: { PREMIUM: [null, 100_000] } }, window: null, predicate: (r) => r.premium <= 100_000 },
      { name: 'an off-list sector', hints: { sectors: ['Technology'] }, window: null, predicate: (r) => r.sector === 'Technology' },
      { name: 'a size range', hints: { ranges: { SIZE: [10, null] } }, window: null, predicate: (r) => r.size >= 10 },
      { name: 'a window', hints: { tickers: ['SPY'] }, window: CASES[5].window, predicate: (r) => r.ticker === 'SPY' },
    ];
    for (const c of declined) {
      const plans: string[] = [];
      const got = await readOrderFlowStatistics(redis, prefix, statsQuery(ORDER_FLOW_PRINTS_VIEW, c, true), { onPlan: (p) => plans.push(p) });
      expect([c.name, plans[0]]).toEqual([c.name, expect.stringMatching(/^scan /)]);
      expect(got).toEqual(bruteStats(prints, c));
    }
  });

  it('filtered queries scan the smallest candidate set', async () => {
    for (const c of CASES.slice(2)) {
      for (const [view, rows] of [
        [ORDER_FLOW_PRINTS_VIEW, prints],
        [ORDER_FLOW_CONSOLIDATED_VIEW, consolidated],
      ] as const) {
        const plans: string[] = [];
        const got = await readOrderFlowStatistics(redis, prefix, statsQuery(view, c), { onPlan: (p) => plans.push(p) });
        expect(plans[0]).toMatch(/^scan /);
        expect(got).toEqual(bruteStats(rows, c));
      }
    }
  });

  it('an empty result has every type and side at zero', async () => {
    const c: Case = { name: 'none', hints: { tickers: ['ZZZZ'] }, window: null, predicate: (r) => r.ticker === 'ZZZZ' };
    const s = await readOrderFlowStatistics(redis, prefix, statsQuery(ORDER_FLOW_PRINTS_VIEW, c, true));
    expect(s).toEqual(statisticsFromCounters(new Map()));
    expect(s.PUT.BELOW_BID).toEqual({ premium: 0, tradeCount: 0, volume: 0 });
  });
});
