import { topicFor } from '../../schemas/catalog';
import { OI_CHANGE_FIELDS } from '../../api/fields/open-interest';
import { openInterestProjection } from '../../projections/open-interest/projection';
import { CHANGE_SESSIONS, OPEN_INTEREST_VIEW } from '../../services/views/open-interest';
import { testConfig } from '../support/env';
import { walkApi } from '../support/cursor-walk';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline, snapshotView } from '../support/pipeline';
import { expectProblem } from '../support/problem';
import { describeTableConformance } from '../support/table-conformance';
import { OI_TICKERS, changeOracle, changeRowsOf, openInterestFixture, type OiFixture } from '../support/open-interest-data';
import { expectEqual } from '../support/expect-equal';
import { expectDocumentedResponse } from '../support/response-schema';
import { osiSymbol } from '../../services/domain/osi';
import { nyLocalToEpochMs, previousTradingDay } from '../../services/domain/calendar';
import { openInterestByExpiration } from '../../api/endpoints/options/open-interest-by-expiration';
import { openInterestByStrike } from '../../api/endpoints/options/open-interest-by-strike';
import { maxPainOverTime } from '../../api/endpoints/options/max-pain-over-time';

/**
 * open-interest-change, open-interest-over-time, max-pain, open-interest-by-expiration,
 * open-interest-by-strike and max-pain-over-time over HTTP, against the open-interest view
 * projected from real Kafka events: a long history published newest first (as the backfill
 * does), answers checked against brute force over the same events.
 */

const CHANGE = '/v1/options/tool/open-interest-change';
const OVER_TIME = '/v1/options/tool/open-interest-over-time';
const MAX_PAIN = '/v1/options/tool/max-pain';
const BY_EXP = '/v1/options/tool/open-interest-by-expiration';
const BY_STRIKE = '/v1/options/tool/open-interest-by-strike';
const MP_OVER_TIME = '/v1/options/tool/max-pain-over-time';
const SESSIONS = 400;
const config = testConfig('oi');
const fx: OiFixture = openInterestFixture(SESSIONS, '2026-11-20');
const LATEST = fx.sessions[SESSIONS - 1];
const PAST = fx.sessions[SESSIONS - 3];
/**
 * A ticker published in one session only (not the latest), with one expiration whose every
 * contract has 0 open interest (no max pain) beside one that has some: added to the fixture, so
 * every oracle sees it. Within the change window: a partition keeps change rows for its own newest
 * sessions, so an older lone session would hold rows where the window test expects none.
 */
const SPARSE = { ticker: 'ZRO', session: fx.sessions[SESSIONS - 8], empty: '2030-01-18', live: '2030-02-15' };
for (const [exp, ois] of [
  [SPARSE.empty, [0, 0, 0, 0]],
  [SPARSE.live, [30, 0, 10, 20]],
] as const) {
  [40, 45].forEach((strike, i) => {
    (['CALL', 'PUT'] as const).forEach((right, j) => {
      fx.openInterest.push({
        osi: osiSymbol(SPARSE.ticker, exp, right, strike),
        ticker: SPARSE.ticker,
        expirationDate: exp,
        strikePrice: strike,
        contractType: right,
        sessionDate: SPARSE.session,
        openInterest: ois[2 * i + j],
        time: nyLocalToEpochMs(SPARSE.session, 7, 0),
      });
    });
  });
}
let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  const projector = pipe.newProjector(config.keyPrefix, openInterestProjection);
  await projector.start();
  for (let i = 0; i < fx.openInterest.length; i += 4_000) await pipe.producer.send(topicFor('open-interest')!, fx.openInterest.slice(i, i + 4_000) as never);
  await pipe.producer.send(topicFor('underlying-price')!, fx.prices as never);
  await pipe.waitCaughtUp(1, config.keyPrefix, 170_000, openInterestProjection);
  // A republication of one ticker's session, projected in a later chunk: every total counts it once.
  await pipe.producer.send(topicFor('open-interest')!, fx.openInterest.filter((e) => e.ticker === SPARSE.ticker) as never);
  await pipe.waitCaughtUp(1, config.keyPrefix, 60_000, openInterestProjection);
  api = await startApi(config);
}, 180_000);

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

/** A view version's keys and contents without the bookkeeping (applied offsets). */
async function viewState(p: TestPipeline, prefix: string): Promise<Record<string, unknown>> {
  const snap = await snapshotView(p.redis, prefix, OPEN_INTEREST_VIEW, 1);
  return Object.fromEntries(Object.entries(snap).filter(([k]) => !k.endsWith(':offsets')));
}

describe('the projection', () => {
  it('gives the same view whatever order the sessions arrive in (oldest first here, newest first above)', async () => {
    const other = await openPipeline(testConfig('oi-asc'));
    try {
      const projector = other.newProjector(other.config.keyPrefix, openInterestProjection);
      await projector.start();
      const oldestFirst = [...fx.openInterest].sort((a, b) => (a.sessionDate < b.sessionDate ? -1 : a.sessionDate > b.sessionDate ? 1 : 0));
      for (let i = 0; i < oldestFirst.length; i += 4_000) await other.producer.send(topicFor('open-interest')!, oldestFirst.slice(i, i + 4_000) as never);
      await other.producer.send(topicFor('underlying-price')!, fx.prices as never);
      await other.waitCaughtUp(1, other.config.keyPrefix, 170_000, openInterestProjection);
      const [a, b] = await Promise.all([viewState(pipe, config.keyPrefix), viewState(other, other.config.keyPrefix)]);
      expect(Object.keys(a).length).toBeGreaterThan(100);
      expectEqual(b, a);
    } finally {
      await other.close();
    }
  }, 180_000);
});

describeTableConformance('open-interest-change', () => ({
  path: CHANGE,
  api: () => api,
  fields: OI_CHANGE_FIELDS,
  maxSize: 100,
  base: { sessionDate: PAST },
  sortBase: { sessionDate: PAST, filter: { tickers: 'SPY' } },
  oracle: (body) => changeOracle(fx, body),
  sortable: true,
}));

describe('open-interest-change', () => {
  it('defaults to the latest published session, createdTime descending', async () => {
    const { rows } = await walkApi(api, CHANGE, { size: 100 });
    expect(rows).toEqual(changeOracle(fx, {}));
    expect(rows[0].sessionDate).toBe(LATEST);
  });

  it('every session of the window compares with the session before it, even though history arrived newest first', async () => {
    for (const s of [fx.sessions[SESSIONS - CHANGE_SESSIONS], fx.sessions[SESSIONS - 10]]) {
      const { rows } = await walkApi(api, CHANGE, { size: 100, sessionDate: s });
      expect(rows).toEqual(changeOracle(fx, { sessionDate: s }));
    }
    // New listings (a Friday not listed the session before) have previous 0 and no percent change.
    const window = fx.sessions.slice(SESSIONS - CHANGE_SESSIONS + 1);
    const listedBefore = (s: string) => new Set(changeRowsOf(fx, fx.sessions[fx.sessions.indexOf(s) - 1]).map((r) => r.id.split('-')[0]));
    const s = window.find((d) => changeRowsOf(fx, d).some((r) => !listedBefore(d).has(r.id.split('-')[0])))!;
    const { rows } = await walkApi(api, CHANGE, { size: 100, sessionDate: s, filter: { ticker: 'SPY' } });
    const fresh = rows.filter((r) => !listedBefore(s).has(r.id.split('-')[0]));
    expect(fresh.length).toBe(24 / 3);
    for (const r of fresh) expect([r.previousOpenInterest, r.percentChangeInOpenInterest, r.changeInOpenInterest]).toEqual([0, null, r.currentOpenInterest]);
  });

  it('a session older than the newest kept ones is a 422 OpenInterestChangesNotKept naming it and the oldest kept', async () => {
    const old = fx.sessions[SESSIONS - CHANGE_SESSIONS - 1];
    const res = await api.post(CHANGE, { sessionDate: old });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({
      status: 422,
      code: 'OpenInterestChangesNotKept',
      category: 'data-unavailable',
    });
    for (const part of [old, fx.sessions[SESSIONS - CHANGE_SESSIONS]]) expect(res.json.detail).toContain(part);
  });

  it('filters: contract type, strikes, expirations, the integer and fractional ranges, an expression', async () => {
    const all = changeRowsOf(fx, PAST);
    const exp = all[0].expirationDate;
    const cases: [Record<string, unknown>, (r: (typeof all)[number]) => boolean][] = [
      [{ contractType: 'put', tickers: ['AAPL', 'QQQ'] }, (r) => r.contractType === 'PUT' && (r.ticker === 'AAPL' || r.ticker === 'QQQ')],
      [{ strikePrices: [202.5, 500] }, (r) => r.strikePrice === 202.5 || r.strikePrice === 500],
      [{ strikePriceRange: { min: 250, max: 402.5 } }, (r) => r.strikePrice >= 250 && r.strikePrice <= 402.5],
      [{ expirationDate: exp }, (r) => r.expirationDate === exp],
      [{ expirationDateRange: { startDate: exp } }, (r) => r.expirationDate >= exp],
      [{ previousOpenInterestRange: { min: 100, max: 300 } }, (r) => r.previousOpenInterest >= 100 && r.previousOpenInterest <= 300],
      [{ currentOpenInterestRange: { max: 50 } }, (r) => r.currentOpenInterest <= 50],
      [{ changeInOpenInterestRange: { min: -100, max: 100 } }, (r) => r.changeInOpenInterest >= -100 && r.changeInOpenInterest <= 100],
      [{ percentChangeInOpenInterestRange: { min: 0.5 } }, (r) => r.percentChangeInOpenInterest !== null && r.percentChangeInOpenInterest >= 0.5],
    ];
    for (const [filter, keep] of cases) {
      const { rows } = await walkApi(api, CHANGE, { sessionDate: PAST, size: 100, sort: { field: 'ID', direction: 'ASCENDING' }, filter });
      const want = all
        .filter(keep)
        .map((r) => r.id)
        .sort();
      expect(want.length).toBeGreaterThan(0);
      expect({ filter, ids: rows.map((r) => r.id) }).toEqual({ filter, ids: want });
    }
    const expr = await walkApi(api, CHANGE, {
      sessionDate: PAST,
      size: 100,
      sort: { field: 'CHANGE_IN_OPEN_INTEREST', direction: 'DESCENDING' },
      filterExpression: {
        conjunction: 'AND',
        filters: [
          { field: 'ticker', operation: '=', value: 'TSLA' },
          { field: 'changeInOpenInterest', operation: '>', value: 0 },
        ],
      },
    });
    expect(expr.rows.map((r) => r.id)).toEqual(
      changeOracle(fx, { sessionDate: PAST, filter: { tickers: 'TSLA' }, sort: { field: 'CHANGE_IN_OPEN_INTEREST', direction: 'DESCENDING' } })
        .filter((r) => (r.changeInOpenInterest as number) > 0)
        .map((r) => r.id),
    );
  });

  it.each([
    [{ timeRange: { startTime: '2026-11-19T14:30:00Z', endTime: '2026-11-19T20:00:00Z' } }, 'timeRange'],
    [{ snapshotTime: '2026-11-19T15:00:00Z' }, 'snapshotTime'],
    [{ aggregationPeriod: '1d' }, 'aggregationPeriod'],
    [{ sessionDate: '2026-11-21' }, 'sessionDate'],
    [{ sessionDate: '19-11-2026' }, 'sessionDate'],
    [{ filter: { strikePrices: 500, strikePriceRange: { min: 1 } } }, 'filter.strikePriceRange'],
    [{ filter: { expirationDates: '2026-12-18', expirationDateRange: { startDate: '2026-12-01' } } }, 'filter.expirationDateRange'],
    [{ filter: { previousOpenInterestRange: { min: 1.5 } } }, 'filter.previousOpenInterestRange.min'],
    [{ filter: { changeInOpenInterestRange: { min: 'many' } } }, 'filter.changeInOpenInterestRange.min'],
    [{ filter: { currentOpenInterestRange: { min: 10, max: 5 } } }, 'filter.currentOpenInterestRange'],
    [{ filter: { contractTypes: 'STRADDLE' } }, 'filter.contractTypes'],
    [{ filter: { sectors: 'ENERGY' } }, 'filter.sectors'],
    [{ sort: { field: 'PREMIUM', direction: 'ASCENDING' } }, 'sort.field'],
    [{ filterExpression: { conjunction: 'AND', filters: [{ field: 'VOLUME', operation: '>', value: 1 }] } }, 'filterExpression.filters[0].field'],
  ])('%j is a 400 naming %s', async (body, field) => {
    expectProblem(await api.post(CHANGE, body), 400, field);
  });
});

describe('open-interest-over-time', () => {
  it('spans every session, ascending, with the ticker totals', async () => {
    const res = await api.post(OVER_TIME, { filter: { ticker: 'SPY' } });
    expect(res.status).toBe(200);
    const want: Record<string, { callOpenInterest: number; putOpenInterest: number }> = {};
    for (const s of fx.sessions) want[s] = { callOpenInterest: 0, putOpenInterest: 0 };
    for (const e of fx.openInterest)
      if (e.ticker === 'SPY') want[e.sessionDate][e.contractType === 'CALL' ? 'callOpenInterest' : 'putOpenInterest'] += e.openInterest;
    expect(Object.keys(res.json.data)).toEqual(fx.sessions);
    expect(res.json.data).toEqual(want);
  });

  it('agrees with the sum of the open-interest-change rows of the same session', async () => {
    const series = (await api.post(OVER_TIME, { filter: { tickers: 'aapl' } })).json.data;
    for (const s of [LATEST, PAST, fx.sessions[SESSIONS - CHANGE_SESSIONS]]) {
      const { rows } = await walkApi(api, CHANGE, { sessionDate: s, size: 100, filter: { ticker: 'AAPL' } });
      const sum = (t: string) => rows.filter((r) => r.contractType === t).reduce((a, r) => a + r.currentOpenInterest, 0);
      expect(rows.length).toBeGreaterThan(0);
      expect(series[s]).toEqual({ callOpenInterest: sum('CALL'), putOpenInterest: sum('PUT') });
    }
  });

  it('narrows to an expiration, a strike, or both; sessions where nothing matches are left out', async () => {
    const exp = fx.openInterest.find((e) => e.ticker === 'QQQ' && e.sessionDate === PAST)!.expirationDate;
    for (const filter of [{ expirationDate: exp }, { strikePrice: 402.5 }, { expirationDate: exp, strikePrice: 395 }]) {
      const res = await api.post(OVER_TIME, { filter: { ticker: 'QQQ', ...filter } });
      const want: Record<string, { callOpenInterest: number; putOpenInterest: number }> = {};
      for (const e of fx.openInterest) {
        if (e.ticker !== 'QQQ') continue;
        if ('expirationDate' in filter && e.expirationDate !== filter.expirationDate) continue;
        if ('strikePrice' in filter && e.strikePrice !== filter.strikePrice) continue;
        const t = (want[e.sessionDate] ??= { callOpenInterest: 0, putOpenInterest: 0 });
        t[e.contractType === 'CALL' ? 'callOpenInterest' : 'putOpenInterest'] += e.openInterest;
      }
      const sessions = Object.keys(want).sort();
      expect(sessions.length).toBeGreaterThan(0);
      expect(Object.keys(res.json.data)).toEqual(sessions);
      expect(res.json.data).toEqual(want);
    }
  });

  it('a ticker without open interest has empty data', async () => {
    expect((await api.post(OVER_TIME, { filter: { ticker: 'ZZZZ' } })).json).toEqual({ data: {} });
  });

  it.each([
    [{}, 'filter'],
    [{ filter: {} }, 'filter.ticker'],
    [{ filter: { ticker: 'SPY', strikePrice: 0 } }, 'filter.strikePrice'],
    [{ filter: { ticker: 'SPY', strikePrice: -5 } }, 'filter.strikePrice'],
    [{ filter: { ticker: 'SPY', strikePrices: -5 } }, 'filter.strikePrices'],
    [{ filter: { ticker: 'SPY', expirationDate: 'soon' } }, 'filter.expirationDate'],
    [{ filter: { ticker: 'SPY', contractType: 'CALL' } }, 'filter.contractType'],
    [{ filter: { ticker: ['SPY', 'QQQ'] } }, 'filter.ticker'],
    [{ filter: { ticker: 'SPY' }, sessionDate: '2026-11-19' }, 'sessionDate'],
    [{ filter: { ticker: 'SPY' }, timeRange: { startTime: '2026-11-19T14:30:00Z', endTime: '2026-11-19T20:00:00Z' } }, 'timeRange'],
    [{ filter: { ticker: 'SPY' }, snapshotTime: '2026-11-19T15:00:00Z' }, 'snapshotTime'],
    [{ filter: { ticker: 'SPY' }, filterExpression: { conjunction: 'AND', filters: [] } }, 'filterExpression'],
    [{ filter: { ticker: 'SPY' }, aggregationPeriod: '1d' }, 'aggregationPeriod'],
    [{ filter: { ticker: 'SPY' }, includes: ['TICKER'] }, 'includes'],
    [{ filter: { ticker: 'SPY' }, size: 10 }, 'size'],
    [{ filter: { ticker: 'SPY' }, searchAfter: ['a', 'b'] }, 'searchAfter'],
  ])('%j is a 400 naming %s', async (body, field) => {
    expectProblem(await api.post(OVER_TIME, body), 400, field);
  });
});

/** Brute force: for each strike as settlement, what every call and put writer would owe there. */
function maxPainOracle(ticker: string, exp: string, session: string) {
  const chain = fx.openInterest.filter((e) => e.ticker === ticker && e.expirationDate === exp && e.sessionDate === session);
  const strikes = [...new Set(chain.map((e) => e.strikePrice))].sort((a, b) => a - b);
  const data: Record<string, { callIntrinsicValue: number; putIntrinsicValue: number }> = {};
  let best: [number, number] | null = null;
  for (const k of strikes) {
    const call = chain.filter((e) => e.contractType === 'CALL').reduce((a, e) => a + e.openInterest * Math.max(0, k - e.strikePrice) * 100, 0);
    const put = chain.filter((e) => e.contractType === 'PUT').reduce((a, e) => a + e.openInterest * Math.max(0, e.strikePrice - k) * 100, 0);
    data[Number.isInteger(k) ? `${k}.0` : String(k)] = { callIntrinsicValue: call, putIntrinsicValue: put };
    if (!best || call + put < best[1]) best = [k, call + put];
  }
  return { data, maxPainStrikePrice: best![0] };
}

describe('max-pain', () => {
  const closeOf = (ticker: string, session: string) => fx.prices.filter((p) => p.ticker === ticker && p.sessionDate === session).at(-1)!.price;

  it('a past session: every strike ascending, the strike where writers owe least, the closing price', async () => {
    for (const ticker of Object.keys(OI_TICKERS)) {
      const session = fx.sessions[100];
      const exp = fx.openInterest.find((e) => e.ticker === ticker && e.sessionDate === session)!.expirationDate;
      const res = await api.post(MAX_PAIN, { sessionDate: session, filter: { ticker, expirationDate: exp } });
      expect(res.status).toBe(200);
      const want = maxPainOracle(ticker, exp, session);
      expect(Object.keys(res.json.data)).toEqual(Object.keys(want.data));
      expect(res.json).toEqual({ ...want, stockPrice: closeOf(ticker, session) });
    }
  });

  it('defaults to the latest published session, priced at its latest trade before the close', async () => {
    const exp = fx.openInterest.find((e) => e.ticker === 'SPY' && e.sessionDate === LATEST)!.expirationDate;
    const res = await api.post(MAX_PAIN, { filter: { tickers: 'spy', expirationDate: exp } });
    expect(res.json).toEqual({ ...maxPainOracle('SPY', exp, LATEST), stockPrice: closeOf('SPY', LATEST) });
    expect(fx.prices.filter((p) => p.ticker === 'SPY' && p.sessionDate === LATEST).at(-1)!.kind).toBe('TICK');
  });

  it('no price for the session: 422 StockPriceNotFound naming ticker, session and expiration', async () => {
    const { ticker, session } = fx.priceless;
    const exp = fx.openInterest.find((e) => e.ticker === ticker && e.sessionDate === session)!.expirationDate;
    const res = await api.post(MAX_PAIN, { sessionDate: session, filter: { ticker, expirationDate: exp } });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ status: 422, code: 'StockPriceNotFound', category: 'data-unavailable' });
    for (const part of [ticker, session, exp]) expect(res.json.detail).toContain(part);
  });

  it('no open interest for ticker, session and expiration: 422 EmptyOpenInterest naming all three', async () => {
    for (const [ticker, exp, session] of [
      ['SPY', '2030-01-18', PAST],
      ['ZZZZ', '2026-12-18', PAST],
      ['SPY', fx.openInterest.find((e) => e.sessionDate === LATEST)!.expirationDate, fx.sessions[0]],
    ]) {
      const res = await api.post(MAX_PAIN, { sessionDate: session, filter: { ticker, expirationDate: exp } });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({ status: 422, code: 'EmptyOpenInterest', category: 'data-unavailable' });
      for (const part of [ticker, session, exp]) expect(res.json.detail).toContain(part);
    }
  });

  it.each([
    [{}, 'filter'],
    [{ filter: { expirationDate: '2026-12-18' } }, 'filter.ticker'],
    [{ filter: { ticker: 'SPY' } }, 'filter.expirationDate'],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-13-01' } }, 'filter.expirationDate'],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-12-18', strikePrice: 500 } }, 'filter.strikePrice'],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-12-18' }, sessionDate: '2026-11-22' }, 'sessionDate'],
    [
      { filter: { ticker: 'SPY', expirationDate: '2026-12-18' }, timeRange: { startTime: '2026-11-19T14:30:00Z', endTime: '2026-11-19T20:00:00Z' } },
      'timeRange',
    ],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-12-18' }, snapshotTime: '2026-11-19T15:00:00Z' }, 'snapshotTime'],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-12-18' }, filterExpression: { conjunction: 'AND', filters: [] } }, 'filterExpression'],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-12-18' }, aggregationPeriod: '1d' }, 'aggregationPeriod'],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-12-18' }, excludes: ['TICKER'] }, 'excludes'],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-12-18' }, size: 10 }, 'size'],
  ])('%j is a 400 naming %s', async (body, field) => {
    expectProblem(await api.post(MAX_PAIN, body), 400, field);
  });
});

// --- open-interest-by-expiration, open-interest-by-strike, max-pain-over-time --------------------------

type Totals = { callOpenInterest: number; putOpenInterest: number };

/** Brute force: the session's events of the ticker summed by a key, keys ascending. */
function oiOracle(ticker: string, session: string, keyOf: (e: (typeof fx.openInterest)[number]) => string | null, order: (a: string, b: string) => number) {
  const by = new Map<string, Totals>();
  for (const e of fx.openInterest) {
    if (e.ticker !== ticker || e.sessionDate !== session) continue;
    const key = keyOf(e);
    if (key === null) continue;
    const t = by.get(key) ?? { callOpenInterest: 0, putOpenInterest: 0 };
    by.set(key, t);
    t[e.contractType === 'CALL' ? 'callOpenInterest' : 'putOpenInterest'] += e.openInterest;
  }
  return Object.fromEntries([...by].sort(([a], [b]) => order(a, b)));
}
const byDate = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byNumber = (a: string, b: string) => Number(a) - Number(b);
const strikeOf = (k: number) => (Number.isInteger(k) ? `${k}.0` : String(k));
const expirationOracle = (ticker: string, session: string, strike?: number) =>
  oiOracle(ticker, session, (e) => (strike === undefined || e.strikePrice === strike ? e.expirationDate : null), byDate);
const strikeOracle = (ticker: string, session: string, exp?: string) =>
  oiOracle(ticker, session, (e) => (exp === undefined || e.expirationDate === exp ? strikeOf(e.strikePrice) : null), byNumber);
/** Per expiration with some open interest, the brute-force max-pain strike. */
function maxPainOverTimeOracle(ticker: string, session: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [exp, t] of Object.entries(expirationOracle(ticker, session)))
    if (t.callOpenInterest + t.putOpenInterest > 0) out[exp] = maxPainOracle(ticker, exp, session).maxPainStrikePrice;
  return out;
}
const sum = (data: Record<string, Totals>) =>
  Object.values(data).reduce(
    (a, t) => ({ callOpenInterest: a.callOpenInterest + t.callOpenInterest, putOpenInterest: a.putOpenInterest + t.putOpenInterest }),
    {
      callOpenInterest: 0,
      putOpenInterest: 0,
    },
  );
const CHECKED_SESSIONS = [LATEST, PAST, fx.sessions[200], fx.sessions[0]];

describe('open-interest-by-expiration', () => {
  it('every expiration of the session ascending, exact against brute force, for every ticker and several sessions', async () => {
    for (const ticker of Object.keys(OI_TICKERS))
      for (const session of CHECKED_SESSIONS) {
        const res = await api.post(BY_EXP, { sessionDate: session, filter: { ticker } });
        expect(res.status).toBe(200);
        expectDocumentedResponse(openInterestByExpiration, res.json);
        const want = expirationOracle(ticker, session);
        expect(Object.keys(want).length).toBe(3);
        expect(Object.keys(res.json.data)).toEqual(Object.keys(want));
        expect({ ticker, session, data: res.json.data }).toEqual({ ticker, session, data: want });
      }
  });

  it('filter.strikePrice narrows to one strike (a fractional one too); expirations not listing it are left out', async () => {
    for (const [ticker, strike] of [
      ['SPY', 500],
      ['AAPL', 202.5],
      ['QQQ', 395],
    ] as const) {
      const res = await api.post(BY_EXP, { sessionDate: PAST, filter: { ticker, strikePrice: strike } });
      const want = expirationOracle(ticker, PAST, strike);
      expect(Object.keys(want).length).toBe(3);
      expect(res.json).toEqual({ data: want });
    }
    expect((await api.post(BY_EXP, { sessionDate: PAST, filter: { ticker: 'SPY', strikePrice: 501 } })).json).toEqual({ data: {} });
  });

  it("defaults to the ticker's latest published session", async () => {
    expect((await api.post(BY_EXP, { filter: { ticker: 'TSLA' } })).json).toEqual({ data: expirationOracle('TSLA', LATEST) });
    // A ticker published in one old session only: that session is its latest.
    expect((await api.post(BY_EXP, { filter: { ticker: SPARSE.ticker } })).json).toEqual({ data: expirationOracle(SPARSE.ticker, SPARSE.session) });
  });

  it('an expiration whose contracts all have 0 open interest is listed with zeros', async () => {
    const res = await api.post(BY_EXP, { sessionDate: SPARSE.session, filter: { ticker: SPARSE.ticker } });
    expect(res.json.data).toEqual({
      [SPARSE.empty]: { callOpenInterest: 0, putOpenInterest: 0 },
      [SPARSE.live]: { callOpenInterest: 40, putOpenInterest: 20 },
    });
  });

  it('no open interest (unknown ticker, a session before the history) gives empty data', async () => {
    expect((await api.post(BY_EXP, { filter: { ticker: 'ZZZZ' } })).json).toEqual({ data: {} });
    expect((await api.post(BY_EXP, { sessionDate: previousTradingDay(fx.sessions[0]), filter: { ticker: 'SPY' } })).json).toEqual({ data: {} });
  });
});

describe('open-interest-by-strike', () => {
  it('every strike of the session ascending ("215.0" keys), summed over expirations, exact against brute force', async () => {
    for (const ticker of Object.keys(OI_TICKERS))
      for (const session of CHECKED_SESSIONS) {
        const res = await api.post(BY_STRIKE, { sessionDate: session, filter: { ticker } });
        expect(res.status).toBe(200);
        expectDocumentedResponse(openInterestByStrike, res.json);
        const want = strikeOracle(ticker, session);
        expect(Object.keys(want).length).toBe(4);
        expect(Object.keys(res.json.data)).toEqual(Object.keys(want));
        expect({ ticker, session, data: res.json.data }).toEqual({ ticker, session, data: want });
      }
    expect(Object.keys((await api.post(BY_STRIKE, { sessionDate: PAST, filter: { ticker: 'AAPL' } })).json.data)).toEqual(['195.0', '200.0', '202.5', '205.0']);
  });

  it('filter.expirationDate narrows to one expiration; an expiration not listed gives empty data', async () => {
    for (const ticker of ['SPY', 'TSLA']) {
      const exps = Object.keys(expirationOracle(ticker, PAST));
      for (const exp of exps)
        expect((await api.post(BY_STRIKE, { sessionDate: PAST, filter: { ticker, expirationDate: exp } })).json).toEqual({
          data: strikeOracle(ticker, PAST, exp),
        });
    }
    expect((await api.post(BY_STRIKE, { sessionDate: PAST, filter: { ticker: 'SPY', expirationDate: '2030-01-18' } })).json).toEqual({ data: {} });
  });

  it("defaults to the ticker's latest published session; no open interest gives empty data", async () => {
    expect((await api.post(BY_STRIKE, { filter: { ticker: 'QQQ' } })).json).toEqual({ data: strikeOracle('QQQ', LATEST) });
    expect((await api.post(BY_STRIKE, { filter: { ticker: SPARSE.ticker } })).json).toEqual({ data: strikeOracle(SPARSE.ticker, SPARSE.session) });
    expect((await api.post(BY_STRIKE, { filter: { ticker: 'ZZZZ' } })).json).toEqual({ data: {} });
  });
});

describe('max-pain-over-time', () => {
  it('per expiration ascending, the brute-force max-pain strike of the session', async () => {
    for (const ticker of Object.keys(OI_TICKERS))
      for (const session of CHECKED_SESSIONS) {
        const res = await api.post(MP_OVER_TIME, { sessionDate: session, filter: { ticker } });
        expect(res.status).toBe(200);
        expectDocumentedResponse(maxPainOverTime, res.json);
        const want = maxPainOverTimeOracle(ticker, session);
        expect(Object.keys(want).length).toBe(3);
        expect(Object.keys(res.json.data)).toEqual(Object.keys(want));
        expect({ ticker, session, data: res.json.data }).toEqual({ ticker, session, data: want });
      }
  });

  it('leaves out an expiration without open interest; none at all gives {} (200)', async () => {
    const res = await api.post(MP_OVER_TIME, { filter: { ticker: SPARSE.ticker } });
    // Strike 40: calls owe 0, puts (45 - 40) x 20 x 100 = 10,000; strike 45: calls (45 - 40) x 30 x 100 = 15,000.
    expect(res.json).toEqual({ data: { [SPARSE.live]: 40 } });
    expect(maxPainOverTimeOracle(SPARSE.ticker, SPARSE.session)).toEqual(res.json.data);
    for (const body of [{ filter: { ticker: 'ZZZZ' } }, { sessionDate: previousTradingDay(fx.sessions[0]), filter: { ticker: 'SPY' } }]) {
      const empty = await api.post(MP_OVER_TIME, body);
      expect([empty.status, empty.json]).toEqual([200, { data: {} }]);
    }
  });

  it('defaults to the latest published session', async () => {
    expect((await api.post(MP_OVER_TIME, { filter: { ticker: 'SPY' } })).json).toEqual({ data: maxPainOverTimeOracle('SPY', LATEST) });
  });
});

describe('agreement between the open-interest endpoints', () => {
  it('by-strike and by-expiration sums equal the open-interest-over-time total of the session', async () => {
    for (const ticker of [...Object.keys(OI_TICKERS), SPARSE.ticker]) {
      const series = (await api.post(OVER_TIME, { filter: { ticker } })).json.data as Record<string, Totals>;
      const sessions = ticker === SPARSE.ticker ? [SPARSE.session] : [...CHECKED_SESSIONS, fx.sessions[SESSIONS - CHANGE_SESSIONS - 5]];
      for (const session of sessions) {
        const [byExp, byStrike] = await Promise.all([
          api.post(BY_EXP, { sessionDate: session, filter: { ticker } }),
          api.post(BY_STRIKE, { sessionDate: session, filter: { ticker } }),
        ]);
        expect(series[session]).toBeDefined();
        expect({ ticker, session, byExpiration: sum(byExp.json.data), byStrike: sum(byStrike.json.data) }).toEqual({
          ticker,
          session,
          byExpiration: series[session],
          byStrike: series[session],
        });
      }
    }
  });

  it('narrowed: by-expiration at a strike sums to over-time at that strike; by-strike of an expiration to over-time of that expiration', async () => {
    const exp = Object.keys(expirationOracle('QQQ', PAST))[1];
    const atStrike = (await api.post(OVER_TIME, { filter: { ticker: 'QQQ', strikePrice: 402.5 } })).json.data[PAST];
    const ofExp = (await api.post(OVER_TIME, { filter: { ticker: 'QQQ', expirationDate: exp } })).json.data[PAST];
    expect(sum((await api.post(BY_EXP, { sessionDate: PAST, filter: { ticker: 'QQQ', strikePrice: 402.5 } })).json.data)).toEqual(atStrike);
    expect(sum((await api.post(BY_STRIKE, { sessionDate: PAST, filter: { ticker: 'QQQ', expirationDate: exp } })).json.data)).toEqual(ofExp);
  });

  it("max-pain-over-time of each expiration equals max-pain's maxPainStrikePrice", async () => {
    for (const ticker of Object.keys(OI_TICKERS))
      for (const session of [LATEST, PAST, fx.sessions[100]]) {
        const series = (await api.post(MP_OVER_TIME, { sessionDate: session, filter: { ticker } })).json.data as Record<string, number>;
        expect(Object.keys(series).length).toBe(3);
        for (const [exp, strike] of Object.entries(series)) {
          const mp = await api.post(MAX_PAIN, { sessionDate: session, filter: { ticker, expirationDate: exp } });
          expect(mp.status).toBe(200);
          expect({ ticker, session, exp, strike }).toEqual({ ticker, session, exp, strike: mp.json.maxPainStrikePrice });
        }
      }
  });
});

describe('the required ticker of the new open-interest endpoints', () => {
  it.each([BY_EXP, BY_STRIKE, MP_OVER_TIME])('%s: ticker or tickers, a scalar or a one-element list, give the same answer', async (path) => {
    const answers = [];
    for (const filter of [{ ticker: 'AAPL' }, { ticker: ['AAPL'] }, { tickers: 'aapl' }, { tickers: ['AAPL'] }]) {
      const res = await api.post(path, { sessionDate: PAST, filter });
      expect(res.status).toBe(200);
      answers.push(res.json);
    }
    expect(Object.keys(answers[0].data).length).toBeGreaterThan(0);
    for (const a of answers.slice(1)) expect(a).toEqual(answers[0]);
  });
});

describe('bad requests to the new open-interest endpoints', () => {
  const window = { startTime: '2026-11-19T14:30:00Z', endTime: '2026-11-19T20:00:00Z' };
  const common = (extra: Record<string, unknown>): [Record<string, unknown>, string][] => [
    [{}, 'filter'],
    [{ filter: {} }, 'filter.ticker'],
    [{ filter: { ticker: ['SPY', 'QQQ'] } }, 'filter.ticker'],
    [{ filter: { tickers: ['SPY', 'QQQ'] } }, 'filter.ticker'],
    [{ filter: { ticker: 'SPY', tickers: 'QQQ' } }, 'filter.tickers'],
    [{ filter: { ticker: 'SPY', contractType: 'CALL' } }, 'filter.contractType'],
    [{ filter: { ticker: 'SPY', ...extra } }, `filter.${Object.keys(extra)[0]}`],
    [{ filter: { ticker: 'SPY' }, timeRange: window }, 'timeRange'],
    [{ filter: { ticker: 'SPY' }, sessionDate: PAST, timeRange: window }, 'timeRange'],
    [{ filter: { ticker: 'SPY' }, snapshotTime: '2026-11-19T15:00:00Z' }, 'snapshotTime'],
    [{ filter: { ticker: 'SPY' }, sessionDate: '2026-11-22' }, 'sessionDate'],
    [{ filter: { ticker: 'SPY' }, sessionDate: '19-11-2026' }, 'sessionDate'],
    [{ filter: { ticker: 'SPY' }, filterExpression: { conjunction: 'AND', filters: [] } }, 'filterExpression'],
    [{ filter: { ticker: 'SPY' }, aggregationPeriod: '1d' }, 'aggregationPeriod'],
    [{ filter: { ticker: 'SPY' }, size: 10 }, 'size'],
  ];
  it.each([
    ...common({ expirationDate: '2026-12-18' }),
    [{ filter: { ticker: 'SPY', strikePrice: 0 } }, 'filter.strikePrice'],
    [{ filter: { ticker: 'SPY', strikePrice: -5 } }, 'filter.strikePrice'],
    [{ filter: { ticker: 'SPY', strikePrices: -2.5 } }, 'filter.strikePrices'],
    [{ filter: { ticker: 'SPY', strikePrice: 'high' } }, 'filter.strikePrice'],
    [{ filter: { ticker: 'SPY', strikePrice: [500, 505] } }, 'filter.strikePrice'],
  ])('by-expiration: %j is a 400 naming %s', async (body, field) => {
    expectProblem(await api.post(BY_EXP, body), 400, field);
  });
  it.each([
    ...common({ strikePrice: 500 }),
    [{ filter: { ticker: 'SPY', expirationDate: 'soon' } }, 'filter.expirationDate'],
    [{ filter: { ticker: 'SPY', expirationDate: '2026-13-01' } }, 'filter.expirationDate'],
    [{ filter: { ticker: 'SPY', expirationDates: ['2026-12-18', '2026-12-24'] } }, 'filter.expirationDates'],
  ])('by-strike: %j is a 400 naming %s', async (body, field) => {
    expectProblem(await api.post(BY_STRIKE, body), 400, field);
  });
  it.each([...common({ expirationDate: '2026-12-18' }), [{ filter: { ticker: 'SPY', strikePrice: 500 } }, 'filter.strikePrice']])(
    'max-pain-over-time: %j is a 400 naming %s',
    async (body, field) => {
      expectProblem(await api.post(MP_OVER_TIME, body), 400, field);
    },
  );
});
