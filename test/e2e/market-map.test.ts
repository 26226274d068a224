import { topicFor } from '../../schemas/catalog';
import { instrumentsProjection } from '../../projections/equities/instruments';
import { stockPricesProjection } from '../../projections/equities/stock-prices';
import { sessionBounds } from '../../services/domain/calendar';
import { loadUniverse } from '../../services/domain/universe';
import { marketMap } from '../../api/endpoints/equities/market-map';
import { expectDocumentedResponse } from '../support/response-schema';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline } from '../support/pipeline';
import { expectDataProblem } from '../support/data-problem';
import { expectProblem } from '../support/problem';

/**
 * POST /v1/equities/tool/market-map over HTTP, against the instruments and stock-price views
 * projected from real Kafka events: prices equal the underlying price events at the snapshot (and
 * the previous session's close), reference data and labels, filters and form B expressions, the
 * two 422s, and every validation rule.
 */

const PATH = '/v1/equities/tool/market-map';
const config = testConfig('mktmap');
const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'JPM', 'XOM', 'GME', 'SPY', 'SPX'];
const universe = loadUniverse();
const instruments = SYMBOLS.map((s) => universe.find((i) => i.symbol === s)!);
/** Sessions with prices; 2024-04-24 and 2024-04-26 have none. */
const PRICED = ['2024-04-25', '2024-04-29', '2024-04-30', '2024-05-01'];
const LAST = PRICED[PRICED.length - 1];

interface PriceEvent {
  ticker: string;
  sessionDate: string;
  time: number;
  price: number;
  kind: 'OPEN' | 'TICK' | 'CLOSE';
}
/** OPEN, a tick a minute for 20 minutes, CLOSE; MSFT has no price in the last session's first 10 minutes. */
const prices: PriceEvent[] = PRICED.flatMap((date, d) => {
  const { open, close } = sessionBounds(date)!;
  return SYMBOLS.flatMap((ticker, i) => {
    const base = 50 + i * 37.5 + d;
    const out: PriceEvent[] = [];
    for (let k = 0; k <= 20; k++) {
      if (ticker === 'MSFT' && date === LAST && k < 10) continue;
      out.push({ ticker, sessionDate: date, time: open + k * 60_000, price: Math.round((base + k * 0.13) * 100) / 100, kind: k === 0 ? 'OPEN' : 'TICK' });
    }
    out.push({ ticker, sessionDate: date, time: close, price: Math.round((base + 3.21) * 100) / 100, kind: 'CLOSE' });
    return out;
  });
});

let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(topicFor('instrument')!, instruments as never);
  await pipe.producer.send(topicFor('underlying-price')!, prices as never);
  await pipe.projectAll([instrumentsProjection, stockPricesProjection]);
  api = await startApi(config);
});

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

/** The last price event of a ticker in a session strictly before `before` (or the session's last). */
function priceOf(ticker: string, date: string, before = Infinity): number | undefined {
  return prices
    .filter((p) => p.ticker === ticker && p.sessionDate === date && p.time < before)
    .sort((a, b) => a.time - b.time)
    .pop()?.price;
}

function expected(current: string, previous: string, before = Infinity, keep: (s: string) => boolean = () => true) {
  const out: Record<string, unknown> = {};
  for (const s of [...SYMBOLS].sort()) {
    const inst = instruments.find((i) => i.symbol === s)!;
    const cur = priceOf(s, current, before);
    const prev = priceOf(s, previous);
    if (inst.isIndex || cur === undefined || prev === undefined || !keep(s)) continue;
    out[s] = {
      companyName: inst.companyName,
      currentValue: cur,
      previousValue: prev,
      sector: LABELS[inst.sector] ?? inst.sector,
      industry: LABELS[inst.industry] ?? inst.industry,
      size: marketCap(inst.sharesOutstanding, cur),
    };
  }
  return out;
}
/** Shares outstanding x price, in dollars to the cent (the documented precision). */
const marketCap = (shares: number, price: number) => Math.round(shares * price * 100) / 100;

const LABELS: Record<string, string> = {
  TECHNOLOGY: 'Technology',
  CONSUMER_ELECTRONICS: 'Consumer Electronics',
  SOFTWARE__INFRASTRUCTURE: 'Software - Infrastructure',
  SEMICONDUCTORS: 'Semiconductors',
  FINANCIAL_SERVICES: 'Financial Services',
  BANKS__DIVERSIFIED: 'Banks - Diversified',
  ENERGY: 'Energy',
  OIL_AND_GAS_INTEGRATED: 'Oil & Gas Integrated',
  CONSUMER_CYCLICAL: 'Consumer Cyclical',
  SPECIALTY_RETAIL: 'Specialty Retail',
  NOT_APPLICABLE: 'Not Applicable',
};

describe('market-map', () => {
  it('an empty body: the newest session, latest prices, against the previous close; tickers ascending, no cash index', async () => {
    const res = await api.post(PATH, {});
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual(expected(LAST, PRICED[2]));
    expectDocumentedResponse(marketMap, res.json);
    expect(Object.keys(res.json.data)).toEqual(Object.keys(expected(LAST, PRICED[2])));
    expect(res.json.data.SPX).toBeUndefined();
    for (const i of instruments.filter((x) => !x.isIndex)) expect(LABELS[i.sector] && LABELS[i.industry]).toBeTruthy();
  });

  it('sessionDate: the session close against the previous session close', async () => {
    const res = await api.post(PATH, { sessionDate: PRICED[2] });
    expect(res.json.data).toEqual(expected(PRICED[2], PRICED[1]));
  });

  it('snapshotTime: the last price strictly before the instant; a ticker without one is left out', async () => {
    const { open } = sessionBounds(LAST)!;
    for (const t of [open + 5 * 60_000, open + 5 * 60_000 + 1, open + 12 * 60_000 + 500]) {
      const res = await api.post(PATH, { snapshotTime: new Date(t).toISOString() });
      expect({ t, data: res.json.data }).toEqual({ t, data: expected(LAST, PRICED[2], t) });
    }
    // Before the session's first price: the snapshot is the previous session's close.
    const early = await api.post(PATH, { snapshotTime: new Date(open - 3_600_000).toISOString() });
    expect(early.json.data).toEqual(expected(PRICED[2], PRICED[1]));
    expect((await api.post(PATH, { snapshotTime: new Date(open + 5 * 60_000).toISOString() })).json.data.MSFT).toBeUndefined();
  });

  it('filters sectors and industries (canonical or label) and form B expressions, ANDed', async () => {
    const bySector = (ss: string[]) => (s: string) => ss.includes(instruments.find((i) => i.symbol === s)!.sector);
    expect((await api.post(PATH, { filter: { sectors: ['Technology', 'energy'] } })).json.data).toEqual(
      expected(LAST, PRICED[2], Infinity, bySector(['TECHNOLOGY', 'ENERGY'])),
    );
    expect((await api.post(PATH, { filter: { industry: 'software__infrastructure' } })).json.data).toEqual(
      expected(LAST, PRICED[2], Infinity, (s) => instruments.find((i) => i.symbol === s)!.industry === 'SOFTWARE__INFRASTRUCTURE'),
    );
    const cap = marketCap(instruments.find((i) => i.symbol === 'JPM')!.sharesOutstanding, priceOf('JPM', LAST)!);
    const expr = {
      operator: 'OR',
      operands: [
        { field: 'MARKET_CAPITALIZATION', comparator: '>', value: cap },
        {
          operator: 'AND',
          operands: [
            { field: 'ticker', comparator: '=', value: 'gme' },
            { field: 'EXCHANGE', comparator: 'EQUALS', value: 'NYSE' },
          ],
        },
        { field: 'COMPANY_NAME', comparator: '=', value: 'exxon' },
      ],
    };
    const capOf = (s: string) => marketCap(instruments.find((i) => i.symbol === s)!.sharesOutstanding, priceOf(s, LAST)!);
    const want = expected(LAST, PRICED[2], Infinity, (s) => capOf(s) > cap || s === 'GME' || s === 'XOM');
    expect(Object.keys(want).length).toBeGreaterThan(2);
    expect((await api.post(PATH, { filterExpression: expr })).json.data).toEqual(want);
    expect((await api.post(PATH, { filter: { sector: 'TECHNOLOGY' }, filterExpression: expr })).json.data).toEqual(
      expected(LAST, PRICED[2], Infinity, (s) => bySector(['TECHNOLOGY'])(s) && (capOf(s) > cap || s === 'GME' || s === 'XOM')),
    );
    expect((await api.post(PATH, { filterExpression: { field: 'SYMBOL', comparator: '=', value: 'ZZZZ' } })).json).toEqual({ data: {} });
  });

  it('answers from the response cache until a price arrives, then from the new price', async () => {
    await api.post(PATH, { filter: { sector: 'ENERGY' } });
    const cached = await api.post(PATH, { filter: { sector: 'ENERGY' } });
    expect(cached.headers.get('x-response-cache')).toBe('hit');
    const late = { ticker: 'XOM', sessionDate: LAST, time: sessionBounds(LAST)!.close + 1, price: 999.5, kind: 'TICK' as const };
    await pipe.producer.send(topicFor('underlying-price')!, [late] as never);
    await pipe.waitCaughtUp(1, config.keyPrefix, 60_000, stockPricesProjection);
    prices.push(late);
    const fresh = await api.post(PATH, { filter: { sector: 'ENERGY' } });
    expect(fresh.headers.get('x-response-cache')).toBe('miss');
    expect(fresh.json.data.XOM.currentValue).toBe(999.5);
    expect(fresh.json.data).toEqual(expected(LAST, PRICED[2], Infinity, (s) => instruments.find((i) => i.symbol === s)!.sector === 'ENERGY'));
  });

  it.each([
    [{ sessionDate: '2024-04-26' }, 'EndSessionStockPricesUnavailable', /requested session \(2024-04-26\)/],
    [{ sessionDate: '2024-04-29' }, 'StartSessionStockPricesUnavailable', /previous session \(2024-04-26\)/],
    [{ sessionDate: '2024-04-25' }, 'StartSessionStockPricesUnavailable', /previous session \(2024-04-24\)/],
    [{ snapshotTime: '2023-01-03T15:00:00Z' }, 'EndSessionStockPricesUnavailable', /requested session/],
  ] as const)('%j is a 422 %s', async (body, code, detail) => {
    const res = await api.post(PATH, body);
    expect(res.status).toBe(422);
    expectDataProblem(res, code, detail);
  });

  it.each([
    [{ timeRange: { startTime: '2024-05-01T13:00:00Z', endTime: '2024-05-01T14:00:00Z' } }, 'timeRange', /not accepted/],
    [{ aggregationPeriod: '1d' }, 'aggregationPeriod', /not accepted/],
    [{ sessionDate: '2024-05-01', snapshotTime: '2024-05-01T15:00:00Z' }, 'snapshotTime', /mutually exclusive/],
    [{ sessionDate: '2024-04-27' }, 'sessionDate', /not an NYSE trading session/],
    [{ snapshotTime: 'yesterday' }, 'snapshotTime', undefined],
    [{ filter: { sectors: ['Tech'] } }, 'filter.sectors[0]', /not a valid sector/],
    [{ filter: { industries: 'Bakeries' } }, 'filter.industries', /not a valid industry/],
    [{ filter: { tickers: ['AAPL'] } }, 'filter.tickers', /not a filter/],
    [
      { filterExpression: { conjunction: 'AND', filters: [{ field: 'SECTOR', operation: '=', value: 'ENERGY' }] } },
      'filterExpression.conjunction',
      /not allowed/,
    ],
    [{ filterExpression: { field: 'PRICE', comparator: '>', value: 1 } }, 'filterExpression.field', /not a filterable field/],
    [{ filterExpression: { field: 'SECTOR', comparator: '>', value: 'ENERGY' } }, 'filterExpression', /only = and !=/],
    [{ filterExpression: { field: 'MARKET_CAP', comparator: '>=', value: 'big' } }, 'filterExpression.value', /number/],
    [{ filterExpression: { operator: 'AND', operands: [] } }, 'filterExpression.operands', /non-empty/],
    [{ includes: ['SECTOR'] }, 'includes', /not accepted/],
    [{ size: 10 }, 'size', /not accepted/],
  ])('%j is a 400 naming %s', async (body, field, detail) => {
    expectProblem(await api.post(PATH, body), 400, field, detail);
  });
});
