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

/**
 * open-interest-change, open-interest-over-time and max-pain over HTTP, against the open-interest
 * view projected from real Kafka events: a long history published newest first (as the
 * backfill does), answers checked against brute force over the same events.
 */

const CHANGE = '/v1/options/tool/open-interest-change';
const OVER_TIME = '/v1/options/tool/open-interest-over-time';
const MAX_PAIN = '/v1/options/tool/max-pain';
const SESSIONS = 400;
const config = testConfig('oi');
const fx: OiFixture = openInterestFixture(SESSIONS, '2026-11-20');
const LATEST = fx.sessions[SESSIONS - 1];
const PAST = fx.sessions[SESSIONS - 3];
let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  const projector = pipe.newProjector(config.keyPrefix, openInterestProjection);
  await projector.start();
  for (let i = 0; i < fx.openInterest.length; i += 4_000) await pipe.producer.send(topicFor('open-interest')!, fx.openInterest.slice(i, i + 4_000) as never);
  await pipe.producer.send(topicFor('underlying-price')!, fx.prices as never);
  await pipe.waitCaughtUp(1, config.keyPrefix, 170_000, openInterestProjection);
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

describe('max-pain', () => {
  /** Brute force: for each strike as settlement, what every call and put writer would owe there. */
  function expected(ticker: string, exp: string, session: string) {
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
  const closeOf = (ticker: string, session: string) => fx.prices.filter((p) => p.ticker === ticker && p.sessionDate === session).at(-1)!.price;

  it('a past session: every strike ascending, the strike where writers owe least, the closing price', async () => {
    for (const ticker of Object.keys(OI_TICKERS)) {
      const session = fx.sessions[100];
      const exp = fx.openInterest.find((e) => e.ticker === ticker && e.sessionDate === session)!.expirationDate;
      const res = await api.post(MAX_PAIN, { sessionDate: session, filter: { ticker, expirationDate: exp } });
      expect(res.status).toBe(200);
      const want = expected(ticker, exp, session);
      expect(Object.keys(res.json.data)).toEqual(Object.keys(want.data));
      expect(res.json).toEqual({ ...want, stockPrice: closeOf(ticker, session) });
    }
  });

  it('defaults to the latest published session, priced at its latest trade before the close', async () => {
    const exp = fx.openInterest.find((e) => e.ticker === 'SPY' && e.sessionDate === LATEST)!.expirationDate;
    const res = await api.post(MAX_PAIN, { filter: { tickers: 'spy', expirationDate: exp } });
    expect(res.json).toEqual({ ...expected('SPY', exp, LATEST), stockPrice: closeOf('SPY', LATEST) });
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
