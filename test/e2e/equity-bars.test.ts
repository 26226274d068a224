import { topicFor } from '../../schemas/catalog';
import { darkPoolLevelsProjection } from '../../projections/equities/dark-pool-levels';
import { equityPrintsProjection } from '../../projections/equities/equity-prints';
import { stockPricesProjection } from '../../projections/equities/stock-prices';
import { darkFlow } from '../../api/endpoints/equities/dark-flow';
import { stockPriceOverTime } from '../../api/endpoints/equities/stock-price-over-time';
import { HISTORY_SAMPLE_CONDITION } from '../../services/domain/equity-prints';
import { fromDayNumber, nyLocalToEpochMs, sessionDateOf, toDayNumber } from '../../services/domain/calendar';
import { walkApi } from '../support/cursor-walk';
import { expectDocumentedResponse } from '../support/response-schema';
import { testConfig } from '../support/env';
import { equityPrintData, PRINT_TICKERS, type EquityPrintEventData } from '../support/equity-print-data';
import { rand } from '../support/table-oracle';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline } from '../support/pipeline';
import { expectProblem } from '../support/problem';

/**
 * POST /v1/equities/tool/dark-flow and /v1/equities/tool/stock-price-over-time over HTTP, against
 * views projected from real Kafka events by the real projections: every bucket equals a
 * brute-force oracle over the same events at several periods and windows (windows cutting
 * minutes included); dark-flow agrees with the equity-prints tape filtered to DARK_POOL, its
 * stockPrice with stock-price-over-time's close; high and low bound every price event of a bucket,
 * open and close are its first and last; the history sample is not counted; the four ticker
 * spellings give one answer; every bad input is a 400 naming it.
 */

const DARK = '/v1/equities/tool/dark-flow';
const PRICES = '/v1/equities/tool/stock-price-over-time';
const PRINTS = '/v1/equities/tool/equity-prints';
const config = testConfig('eqbars');

const TAPE = [
  { date: '2024-05-01', open: Date.UTC(2024, 4, 1, 13, 30) },
  { date: '2024-05-02', open: Date.UTC(2024, 4, 2, 13, 30) },
];
const HISTORY = { date: '2024-04-30', open: Date.UTC(2024, 3, 30, 13, 30) };
/** A later session with prices (official open and close) and no print: the newest priced session, the week's close. */
const LATE = { date: '2024-05-03', open: Date.UTC(2024, 4, 3, 13, 30) };
const closeOf = (open: number) => open + 390 * 60_000;

/** The tape, its prints spread over the first two hours of each session (ties kept). */
const stretch = (events: EquityPrintEventData[], sessions: readonly { open: number }[]) =>
  events.map((e) => {
    const open = sessions.find((s) => e.time >= s.open && e.time < s.open + 86_400_000)!.open;
    const time = open + (e.time - open) * 37;
    return { ...e, time, reportTime: time + (e.reportTime - e.time) };
  });
const tape = stretch(equityPrintData(TAPE, 600, 21), TAPE);
/** The history session's off-exchange sample: dark-pool-levels counts it, dark-flow does not. */
const historySample = stretch(equityPrintData([HISTORY], 200, 22), [HISTORY])
  .filter((e) => e.printType === 'DARK_POOL')
  .map((e) => ({ ...e, conditions: [...e.conditions, HISTORY_SAMPLE_CONDITION] }));

interface PriceEvent {
  ticker: string;
  sessionDate: string;
  time: number;
  price: number;
  kind: 'OPEN' | 'TICK' | 'CLOSE';
}

/** Prices: MSFT never priced; the others an official open and close per session, and ticks every 7 s for 2.5 h on tape sessions. */
const PRICED = PRINT_TICKERS.filter((t) => t !== 'MSFT');
const prices: PriceEvent[] = (() => {
  const r = rand(5);
  const out: PriceEvent[] = [];
  for (const [s, { date, open }] of [HISTORY, ...TAPE, LATE].entries()) {
    for (const [i, ticker] of PRICED.entries()) {
      let p = 100 + i * 50 + s;
      const at = (time: number, kind: PriceEvent['kind']) => out.push({ ticker, sessionDate: date, time, price: Math.round(p * 100) / 100, kind });
      at(open, 'OPEN');
      if (TAPE.some((t) => t.date === date))
        for (let t = open + 7_000; t < open + 150 * 60_000; t += 7_000) {
          p += (r() - 0.5) * 0.4;
          at(t, 'TICK');
        }
      p += (r() - 0.5) * 2;
      at(closeOf(open), 'CLOSE');
    }
  }
  return out;
})();

let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(topicFor('equity-print')!, [...historySample, ...tape] as never);
  await pipe.producer.send(topicFor('underlying-price')!, prices as never);
  await pipe.projectAll([equityPrintsProjection, darkPoolLevelsProjection, stockPricesProjection]);
  api = await startApi(config);
}, 180_000);

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

// ---- the oracle: buckets computed here from the events, independently of the API's bucketing ----

const CLOCK: Record<string, number> = { '1m': 60_000, '5m': 300_000, '15m': 900_000, '30m': 1_800_000, '1h': 3_600_000 };
function bucketOf(period: string, t: number): number {
  if (CLOCK[period]) return Math.floor(t / CLOCK[period]) * CLOCK[period];
  const d = sessionDateOf(t);
  if (period === '1d') return nyLocalToEpochMs(d, 0, 0);
  const day = toDayNumber(d);
  return nyLocalToEpochMs(fromDayNumber(day - ((((day + 3) % 7) + 7) % 7)), 0, 0);
}

type Window = [number, number];
const dayOf = (date: string): Window => [nyLocalToEpochMs(date, 0, 0), nyLocalToEpochMs(fromDayNumber(toDayNumber(date) + 1), 0, 0)];
const iso = (ms: number) => new Date(ms).toISOString();
const inW = (w: Window, t: number) => t >= w[0] && t < w[1];

function priceOracle(ticker: string, w: Window, period: string) {
  const out = new Map<number, { openPrice: number; highPrice: number; lowPrice: number; closePrice: number; first: number; last: number }>();
  for (const e of prices) {
    if (e.ticker !== ticker || !inW(w, e.time)) continue;
    const b = bucketOf(period, e.time);
    const o = out.get(b);
    if (!o) out.set(b, { openPrice: e.price, highPrice: e.price, lowPrice: e.price, closePrice: e.price, first: e.time, last: e.time });
    else {
      if (e.time < o.first) [o.first, o.openPrice] = [e.time, e.price];
      if (e.time > o.last) [o.last, o.closePrice] = [e.time, e.price];
      o.highPrice = Math.max(o.highPrice, e.price);
      o.lowPrice = Math.min(o.lowPrice, e.price);
    }
  }
  return Object.fromEntries(
    [...out]
      .sort((a, b) => a[0] - b[0])
      .map(([b, { openPrice, highPrice, lowPrice, closePrice }]) => [String(b), { openPrice, highPrice, lowPrice, closePrice }]),
  );
}

function darkOracle(ticker: string, w: Window, period: string) {
  const out = new Map<number, { units: number; size: number; tradeCount: number }>();
  for (const e of tape) {
    if (e.ticker !== ticker || e.printType !== 'DARK_POOL' || !inW(w, e.time)) continue;
    const b = bucketOf(period, e.time);
    const o = out.get(b) ?? { units: 0, size: 0, tradeCount: 0 };
    o.units += Math.round(e.price * 10_000) * e.size;
    o.size += e.size;
    o.tradeCount += 1;
    out.set(b, o);
  }
  const closes = priceOracle(ticker, w, period);
  return Object.fromEntries(
    [...out]
      .sort((a, b) => a[0] - b[0])
      .map(([b, o]) => {
        const close = closes[String(b)]?.closePrice;
        return [String(b), { notionalValue: o.units / 10_000, size: o.size, ...(close !== undefined && { stockPrice: close }), tradeCount: o.tradeCount }];
      }),
  );
}

/** Requests of each shape: a session at two periods, windows cutting minutes (and sessions) at two periods. */
const CASES: { name: string; w: Window; body: (ticker: string) => Record<string, unknown>; period: string }[] = [
  ...['1m', '15m', '1h'].map((period) => ({
    name: `sessionDate ${period}`,
    w: dayOf(TAPE[0].date),
    period,
    body: (ticker: string) => ({ filter: { ticker }, sessionDate: TAPE[0].date, aggregationPeriod: period }),
  })),
  ...(['5m', '30m'] as const).map((period) => {
    const w: Window = [TAPE[1].open + 17 * 60_000 + 23_456, TAPE[1].open + 93 * 60_000 + 41_000];
    return {
      name: `window cutting minutes ${period}`,
      w,
      period,
      body: (ticker: string) => ({ filter: { ticker }, timeRange: { startTime: iso(w[0]), endTime: iso(w[1]) }, aggregationPeriod: period }),
    };
  }),
  ...(['1h', '1d'] as const).map((period) => {
    const w: Window = [HISTORY.open - 3_600_000, TAPE[1].open + 45 * 60_000 + 500];
    return {
      name: `window over three sessions ${period}`,
      w,
      period,
      body: (ticker: string) => ({ filter: { ticker }, timeRange: { startTime: iso(w[0]), endTime: iso(w[1]) }, aggregationPeriod: period }),
    };
  }),
  {
    name: 'window over a year 1w',
    w: [Date.UTC(2023, 3, 1), Date.UTC(2024, 4, 10)],
    period: '1w',
    body: (ticker: string) => ({
      filter: { ticker },
      timeRange: { startTime: '2023-04-01T00:00:00Z', endTime: '2024-05-10T00:00:00Z' },
      aggregationPeriod: '1w',
    }),
  },
  {
    name: 'window holding whole sessions 1d',
    w: [Date.UTC(2024, 3, 29), Date.UTC(2024, 4, 4)],
    period: '1d',
    body: (ticker: string) => ({
      filter: { ticker },
      timeRange: { startTime: '2024-04-29T00:00:00Z', endTime: '2024-05-04T00:00:00Z' },
      aggregationPeriod: '1d',
    }),
  },
];

describe('stock-price-over-time', () => {
  it.each(CASES.map((c) => [c.name, c]))('%s: every bucket equals the oracle over the price events', async (_, c) => {
    for (const ticker of ['AAPL', 'SPY', 'BRK.B', 'MSFT']) {
      const res = await api.post(PRICES, c.body(ticker));
      expect(res.status).toBe(200);
      expectDocumentedResponse(stockPriceOverTime, res.json);
      const want = priceOracle(ticker, c.w, c.period);
      if (ticker !== 'MSFT') expect(Object.keys(want).length).toBeGreaterThan(0);
      expect(res.json.data).toEqual(want);
      expect(Object.keys(res.json.data)).toEqual(Object.keys(want));
    }
  });

  it('high and low bound every price event of a bucket; open and close are its first and last events', async () => {
    for (const period of ['5m', '1h']) {
      const res = await api.post(PRICES, { filter: { ticker: 'TSLA' }, sessionDate: TAPE[1].date, aggregationPeriod: period });
      const buckets = Object.entries(res.json.data as Record<string, { openPrice: number; highPrice: number; lowPrice: number; closePrice: number }>);
      expect(buckets.length).toBeGreaterThan(2);
      for (const [start, bar] of buckets) {
        const evs = prices.filter((e) => e.ticker === 'TSLA' && bucketOf(period, e.time) === Number(start)).sort((a, b) => a.time - b.time);
        expect(evs.length).toBeGreaterThan(0);
        for (const e of evs) {
          expect(bar.highPrice).toBeGreaterThanOrEqual(e.price);
          expect(bar.lowPrice).toBeLessThanOrEqual(e.price);
        }
        expect(bar.openPrice).toBe(evs[0].price);
        expect(bar.closePrice).toBe(evs[evs.length - 1].price);
      }
    }
  });

  it('a history session (official open and close only) gives its open and close; no selector reads the newest priced session', async () => {
    const res = await api.post(PRICES, { filter: { ticker: 'SPY' }, sessionDate: HISTORY.date, aggregationPeriod: '1d' });
    const [open, close] = prices.filter((e) => e.ticker === 'SPY' && e.sessionDate === HISTORY.date);
    expect(res.json.data).toEqual({
      [String(nyLocalToEpochMs(HISTORY.date, 0, 0))]: {
        openPrice: open.price,
        highPrice: Math.max(open.price, close.price),
        lowPrice: Math.min(open.price, close.price),
        closePrice: close.price,
      },
    });
    const latest = await api.post(PRICES, { filter: { ticker: 'SPY' } });
    expect(Object.keys(latest.json.data)).toHaveLength(2);
    expect(latest.json.data).toEqual(priceOracle('SPY', dayOf(LATE.date), '5m'));
  });
});

describe('dark-flow', () => {
  it.each(CASES.map((c) => [c.name, c]))('%s: every bucket equals the oracle over the dark prints of the tape', async (_, c) => {
    for (const ticker of ['AAPL', 'SPY', 'BRK.B', 'MSFT']) {
      const res = await api.post(DARK, c.body(ticker));
      expect(res.status).toBe(200);
      expectDocumentedResponse(darkFlow, res.json);
      const want = darkOracle(ticker, c.w, c.period);
      expect(Object.keys(want).length).toBeGreaterThan(0);
      expect(res.json.data).toEqual(want);
      expect(Object.keys(res.json.data)).toEqual(Object.keys(want));
    }
  });

  it('sums equal the equity-prints tape filtered to DARK_POOL for the same ticker and window', async () => {
    const w: Window = [TAPE[0].open + 11 * 60_000 + 1_234, TAPE[1].open + 70 * 60_000 + 999];
    const timeRange = { startTime: iso(w[0]), endTime: iso(w[1]) };
    for (const ticker of ['AAPL', 'NVDA', 'BRK.B']) {
      const { rows } = await walkApi(api, PRINTS, { timeRange, size: 100, filter: { ticker, equityPrintTypes: ['DARK_POOL'] } });
      expect(rows.length).toBeGreaterThan(10);
      for (const period of ['15m', '1d']) {
        const res = await api.post(DARK, { filter: { ticker }, timeRange, aggregationPeriod: period });
        const byBucket = new Map<string, { units: number; size: number; tradeCount: number }>();
        for (const r of rows as { tradeTime: number; notionalValue: number; size: number }[]) {
          const k = String(bucketOf(period, r.tradeTime));
          const o = byBucket.get(k) ?? { units: 0, size: 0, tradeCount: 0 };
          o.units += Math.round(r.notionalValue * 10_000);
          o.size += r.size;
          o.tradeCount += 1;
          byBucket.set(k, o);
        }
        const got = res.json.data as Record<string, { notionalValue: number; size: number; tradeCount: number }>;
        expect(Object.keys(got).sort()).toEqual([...byBucket.keys()].sort());
        for (const [k, o] of byBucket) expect(got[k]).toMatchObject({ notionalValue: o.units / 10_000, size: o.size, tradeCount: o.tradeCount });
      }
    }
  });

  it("stockPrice is stock-price-over-time's close for the same request; absent for a ticker without prices", async () => {
    for (const c of CASES) {
      const flow = (await api.post(DARK, c.body('SPY'))).json.data as Record<string, { stockPrice?: number }>;
      const bars = (await api.post(PRICES, c.body('SPY'))).json.data as Record<string, { closePrice: number }>;
      for (const [k, cell] of Object.entries(flow)) expect(cell.stockPrice).toBe(bars[k]?.closePrice);
    }
    const msft = (await api.post(DARK, { filter: { ticker: 'MSFT' }, sessionDate: TAPE[0].date, aggregationPeriod: '1h' })).json.data;
    expect(Object.keys(msft).length).toBeGreaterThan(0);
    for (const cell of Object.values(msft)) expect(cell).not.toHaveProperty('stockPrice');
  });

  it('the history sample is not counted; no selector reads the newest tape session', async () => {
    expect(historySample.filter((e) => e.ticker === 'SPY').length).toBeGreaterThan(3);
    expect((await api.post(DARK, { filter: { ticker: 'SPY' }, sessionDate: HISTORY.date, aggregationPeriod: '1h' })).json).toEqual({ data: {} });
    const latest = await api.post(DARK, { filter: { ticker: 'SPY' } });
    expect(latest.json.data).toEqual(darkOracle('SPY', dayOf(TAPE[1].date), '5m'));
  });
});

describe('both endpoints', () => {
  it.each([[DARK], [PRICES]])('%s: the four ticker spellings give the same answer', async (path) => {
    const base = { sessionDate: TAPE[0].date, aggregationPeriod: '15m' };
    const answers = [];
    for (const filter of [{ ticker: 'AAPL' }, { ticker: ['AAPL'] }, { tickers: 'AAPL' }, { tickers: ['AAPL'] }]) {
      const res = await api.post(path, { ...base, filter });
      expect(res.status).toBe(200);
      answers.push(res.json);
    }
    expect(Object.keys(answers[0].data).length).toBeGreaterThan(0);
    for (const a of answers) expect(a).toEqual(answers[0]);
  });

  const bad: [string, Record<string, unknown>, string, RegExp | undefined][] = [
    ['no filter', { sessionDate: '2024-05-01' }, 'filter', /required/],
    ['no ticker', { filter: {} }, 'filter.ticker', /required/],
    ['two tickers', { filter: { tickers: ['AAPL', 'SPY'] } }, 'filter.ticker', /exactly one/],
    ['ticker and tickers', { filter: { ticker: 'AAPL', tickers: ['SPY'] } }, 'filter.tickers', /same filter as filter.ticker/],
    ['another filter', { filter: { ticker: 'AAPL', equityPrintTypes: ['DARK_POOL'] } }, 'filter.equityPrintTypes', /not a filter of this endpoint/],
    [
      'a filterExpression',
      { filter: { ticker: 'AAPL' }, filterExpression: { field: 'TICKER', operation: '=', value: 'AAPL' } },
      'filterExpression',
      /not accepted/,
    ],
    [
      'sessionDate and timeRange',
      { filter: { ticker: 'AAPL' }, sessionDate: '2024-05-01', timeRange: { startTime: '2024-05-01T13:00:00Z', endTime: '2024-05-01T14:00:00Z' } },
      'timeRange',
      /mutually exclusive/,
    ],
    ['a snapshotTime', { filter: { ticker: 'AAPL' }, snapshotTime: '2024-05-01T15:00:00Z' }, 'snapshotTime', /not accepted/],
    ['a sessionDateRange', { filter: { ticker: 'AAPL' }, sessionDateRange: { startDate: '2024-05-01' } }, 'sessionDateRange', /not accepted/],
    ['a weekend sessionDate', { filter: { ticker: 'AAPL' }, sessionDate: '2024-05-04' }, 'sessionDate', /not an NYSE trading session/],
    ['a malformed sessionDate', { filter: { ticker: 'AAPL' }, sessionDate: '05/01/2024' }, 'sessionDate', undefined],
    [
      'a window ending before it starts',
      { filter: { ticker: 'AAPL' }, timeRange: { startTime: '2024-05-01T14:00:00Z', endTime: '2024-05-01T13:00:00Z' } },
      'timeRange',
      undefined,
    ],
    ['an unknown period', { filter: { ticker: 'AAPL' }, sessionDate: '2024-05-01', aggregationPeriod: '7m' }, 'aggregationPeriod', /must be one of/],
    ['1w over one session', { filter: { ticker: 'AAPL' }, sessionDate: '2024-05-01', aggregationPeriod: '1w' }, 'aggregationPeriod', /does not suit/],
    [
      '1m over three days',
      { filter: { ticker: 'AAPL' }, timeRange: { startTime: '2024-04-30T00:00:00Z', endTime: '2024-05-03T00:00:00Z' }, aggregationPeriod: '1m' },
      'aggregationPeriod',
      /does not suit/,
    ],
    ['a size', { filter: { ticker: 'AAPL' }, size: 10 }, 'size', /not accepted/],
    ['a malformed ticker', { filter: { ticker: 'A A' } }, 'filter.ticker', /symbol/],
  ];
  it.each([DARK, PRICES].flatMap((path) => bad.map(([name, body, field, detail]) => [path, name, body, field, detail] as const)))(
    '%s: %s is a 400 naming the field',
    async (path, _, body, field, detail) => {
      expectProblem(await api.post(path, body), 400, field, detail);
    },
  );
});
