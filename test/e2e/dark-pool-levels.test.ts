import { topicFor } from '../../schemas/catalog';
import { darkPoolLevelsProjection } from '../../projections/equities/dark-pool-levels';
import { equityPrintsProjection } from '../../projections/equities/equity-prints';
import { HISTORY_SAMPLE_CONDITION } from '../../services/domain/equity-prints';
import { stockPricesProjection } from '../../projections/equities/stock-prices';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { partitionOf } from '../../services/kafka/partition';
import { PartitionKeys } from '../../services/views/keys';
import { walkApi } from '../support/cursor-walk';
import { darkPoolLevels } from '../../api/endpoints/equities/dark-pool-levels';
import { expectDocumentedResponse } from '../support/response-schema';
import { testConfig } from '../support/env';
import { equityPrintData, PRINT_TICKERS, type EquityPrintEventData } from '../support/equity-print-data';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline } from '../support/pipeline';
import { expectDataProblem } from '../support/data-problem';
import { expectProblem } from '../support/problem';

/**
 * POST /v1/equities/tool/dark-pool-levels over HTTP, against views projected from real Kafka
 * events: totals per level equal the sums over the equity-prints tape filtered to DARK_POOL (tape
 * sessions) or over the history sample's prints (sessions without a tape); StockPriceNotFound;
 * LevelsUnavailable when the read fails; every validation rule.
 */

const PATH = '/v1/equities/tool/dark-pool-levels';
const PRINTS = '/v1/equities/tool/equity-prints';
const config = testConfig('dplevels');
const TAPE = [
  { date: '2024-05-01', open: Date.UTC(2024, 4, 1, 13, 30) },
  { date: '2024-05-02', open: Date.UTC(2024, 4, 2, 13, 30) },
];
const HISTORY = { date: '2024-04-30', open: Date.UTC(2024, 3, 30, 13, 30) };
const tape = equityPrintData(TAPE, 500, 11);
/** The history session's sample, and a sample of a tape session (ignored: that session has its tape). */
const sample = (events: EquityPrintEventData[]) =>
  events.filter((e) => e.printType === 'DARK_POOL').map((e) => ({ ...e, conditions: [...e.conditions, HISTORY_SAMPLE_CONDITION] }));
const historySample = sample(equityPrintData([HISTORY], 300, 12));
const tapeSample = sample(tape.filter((e) => e.time >= TAPE[1].open)).slice(0, 40);

/** Prices: every ticker but TSLA (none at all) and NVDA (only the last session); GME is priced and never prints. */
const PRICED = [...PRINT_TICKERS.filter((t) => t !== 'TSLA'), 'GME'];
const prices = [HISTORY, ...TAPE].flatMap(({ date, open }, s) =>
  PRICED.filter((t) => t !== 'NVDA' || date === TAPE[1].date).flatMap((ticker, i) =>
    [0, 1, 2, 3].map((k) => ({ ticker, sessionDate: date, time: open + k * 1000, price: 100 + i * 10 + s + k / 100, kind: k === 0 ? 'OPEN' : 'TICK' })),
  ),
);

let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(topicFor('equity-print')!, [...historySample, ...tape, ...tapeSample] as never);
  await pipe.producer.send(topicFor('underlying-price')!, prices as never);
  await pipe.projectAll([equityPrintsProjection, darkPoolLevelsProjection, stockPricesProjection]);
  api = await startApi(config);
});

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

/** A price's level in cents, from its decimal digits (truncated to the cent). */
const levelOf = (price: number) => {
  const [whole, frac = ''] = price.toFixed(4).split('.');
  return (Number(whole) * 100 + Number(frac.slice(0, 2))).toString();
};

/** Level totals from rows {price, size, notionalValue}, notional summed exactly in $0.0001 units. */
function totals(rows: { price: number; size: number; notionalValue: number }[]): Record<string, { notionalValue: number; size: number; tradeCount: number }> {
  const m = new Map<string, { units: number; size: number; tradeCount: number }>();
  for (const r of rows) {
    const k = levelOf(r.price);
    const t = m.get(k) ?? { units: 0, size: 0, tradeCount: 0 };
    t.units += Math.round(r.notionalValue * 10_000);
    t.size += r.size;
    t.tradeCount += 1;
    m.set(k, t);
  }
  const out: Record<string, { notionalValue: number; size: number; tradeCount: number }> = {};
  for (const k of [...m.keys()].sort((a, b) => Number(a) - Number(b)))
    out[(Number(k) / 100).toFixed(2)] = { notionalValue: m.get(k)!.units / 10_000, size: m.get(k)!.size, tradeCount: m.get(k)!.tradeCount };
  return out;
}

/** The DARK_POOL rows of the equity-prints tape for a ticker and session, walked over HTTP. */
async function tapeDarkRows(ticker: string, sessionDate: string) {
  const { rows } = await walkApi(api, PRINTS, { sessionDate, size: 100, filter: { ticker, equityPrintTypes: ['DARK_POOL'] } });
  return rows as { price: number; size: number; notionalValue: number }[];
}

describe('dark-pool-levels', () => {
  it('totals over the tape sessions equal the sums over the equity-prints tape filtered to DARK_POOL; keys ascending, two decimals', async () => {
    for (const ticker of ['AAPL', 'SPY', 'BRK.B']) {
      const rows = [...(await tapeDarkRows(ticker, TAPE[0].date)), ...(await tapeDarkRows(ticker, TAPE[1].date))];
      expect(rows.length).toBeGreaterThan(10);
      const res = await api.post(PATH, { filter: { ticker }, sessionDateRange: { startDate: TAPE[0].date, endDate: TAPE[1].date } });
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual(totals(rows));
      expectDocumentedResponse(darkPoolLevels, res.json);
      const keys = Object.keys(res.json.data);
      expect(keys.every((k) => /^\d+\.\d{2}$/.test(k))).toBe(true);
      expect(keys).toEqual([...keys].sort((a, b) => Number(a) - Number(b)));
      // A tape session ignores its history sample (which repeats some of its prints).
      const one = await api.post(PATH, { filter: { ticker }, sessionDateRange: { startDate: TAPE[1].date, endDate: TAPE[1].date } });
      expect(one.json.data).toEqual(totals(await tapeDarkRows(ticker, TAPE[1].date)));
    }
  });

  it('a session without a tape totals its history sample; ranges sum sessions; latestStockPrice is the newest price', async () => {
    const ticker = 'SPY';
    const hist = historySample
      .filter((e) => e.ticker === ticker)
      .map((e) => ({ price: e.price, size: e.size, notionalValue: Number((e.price * e.size).toFixed(4)) }));
    expect(hist.length).toBeGreaterThan(5);
    // The tape never serves the sample.
    expect((await api.post(PRINTS, { sessionDate: HISTORY.date })).json).toEqual({ data: [] });
    const res = await api.post(PATH, { filter: { ticker: 'spy' }, sessionDateRange: { startDate: '2024-04-29', endDate: TAPE[1].date } });
    expect(res.json.data).toEqual(totals([...hist, ...(await tapeDarkRows(ticker, TAPE[0].date)), ...(await tapeDarkRows(ticker, TAPE[1].date))]));
    const newest = prices
      .filter((p) => p.ticker === ticker)
      .sort((a, b) => a.time - b.time)
      .pop()!;
    expect(res.json.latestStockPrice).toBe(newest.price);
    // endDate defaults to tomorrow in New York: the same range, open-ended.
    expect((await api.post(PATH, { filter: { ticker }, sessionDateRange: { startDate: '2024-04-29' } })).json).toEqual(res.json);
  });

  it('a range without prices is a 422 even where a later session is priced; a priced range finds the levels', async () => {
    const res = await api.post(PATH, { filter: { ticker: 'NVDA' }, sessionDateRange: { startDate: '2024-05-03', endDate: '2024-05-06' } });
    expect(res.status).toBe(422);
    const nvda = await api.post(PATH, { filter: { ticker: 'NVDA' }, sessionDateRange: { startDate: TAPE[1].date } });
    expect(nvda.status).toBe(200);
    expect(Object.keys(nvda.json.data).length).toBeGreaterThan(0);
    // Priced, but no off-exchange print in the range: no levels.
    const gme = await api.post(PATH, { filter: { ticker: 'GME' }, sessionDateRange: { startDate: HISTORY.date } });
    expect(gme.json).toEqual({
      latestStockPrice: prices
        .filter((p) => p.ticker === 'GME')
        .sort((a, b) => a.time - b.time)
        .pop()!.price,
      data: {},
    });
  });

  it.each([
    ['TSLA', '2024-04-01', undefined],
    ['NVDA', HISTORY.date, TAPE[0].date],
    ['ZZZZ', '2024-04-01', undefined],
  ])('no stock price for %s from %s to %s: 422 StockPriceNotFound naming the ticker', async (ticker, startDate, endDate) => {
    const res = await api.post(PATH, { filter: { ticker }, sessionDateRange: { startDate, endDate } });
    expect(res.status).toBe(422);
    expectDataProblem(res, 'StockPriceNotFound', new RegExp(ticker));
  });

  it('a levels read that fails is a 500 LevelsUnavailable with Retry-After; the next read succeeds', async () => {
    const key = new PartitionKeys(config.keyPrefix, 'dark-pool-levels', 1, partitionOf('AAPL', MARKET_PARTITIONS)).key('ds', 'AAPL');
    const body = { filter: { ticker: 'AAPL' }, sessionDateRange: { startDate: TAPE[0].date, endDate: TAPE[1].date } };
    const good = await api.post(PATH, body);
    const saved = await pipe.redis.dumpBuffer(key);
    // The levels' session index of the ticker turns into a value of another type: its read errors.
    await pipe.redis.set(key, 'broken');
    try {
      // Another range: the same body's answer is in the response cache (the views did not change).
      const res = await api.post(PATH, { ...body, sessionDateRange: { startDate: HISTORY.date, endDate: TAPE[1].date } });
      expect(res.status).toBe(500);
      expect(res.headers.get('retry-after')).toBe('2');
      expectDataProblem(res, 'LevelsUnavailable', /AAPL/);
    } finally {
      await pipe.redis.del(key);
      await pipe.redis.restore(key, 0, saved!);
    }
    expect((await api.post(PATH, body)).json).toEqual(good.json);
  });

  it.each([
    [{ sessionDateRange: { startDate: '2024-05-01' } }, 'filter', /required/],
    [{ filter: {}, sessionDateRange: { startDate: '2024-05-01' } }, 'filter.ticker', /required/],
    [{ filter: { ticker: 'SPY' } }, 'sessionDateRange', /required/],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: {} }, 'sessionDateRange.startDate', /required/],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-05-02', endDate: '2024-05-01' } }, 'sessionDateRange', /not be after/],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '05/01/2024' } }, 'sessionDateRange.startDate', undefined],
    [{ filter: { ticker: 'SPY', tickers: ['QQQ'] }, sessionDateRange: { startDate: '2024-05-01' } }, 'filter.tickers', /same filter as filter.ticker/],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-05-01' }, sessionDate: '2024-05-01' }, 'sessionDate', /not accepted/],
    [
      {
        filter: { ticker: 'SPY' },
        sessionDateRange: { startDate: '2024-05-01' },
        timeRange: { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' },
      },
      'timeRange',
      /not accepted/,
    ],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-05-01' }, snapshotTime: '2024-05-01T15:00:00Z' }, 'snapshotTime', /not accepted/],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-05-01' }, aggregationPeriod: '1d' }, 'aggregationPeriod', /not accepted/],
    [
      { filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-05-01' }, filterExpression: { field: 'TICKER', operation: '=', value: 'SPY' } },
      'filterExpression',
      /not accepted/,
    ],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-05-01' }, size: 10 }, 'size', /not accepted/],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-05-01' }, includes: ['SIZE'] }, 'includes', /not accepted/],
    [{ filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-05-01' }, searchAfter: ['1', '2'] }, 'searchAfter', /not accepted/],
    [{ filter: { ticker: 'S P Y' }, sessionDateRange: { startDate: '2024-05-01' } }, 'filter.ticker', /symbol/],
  ])('%j is a 400 naming %s', async (body, field, detail) => {
    expectProblem(await api.post(PATH, body), 400, field, detail);
  });
});
