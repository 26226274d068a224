import { marketFor } from '../../ingest/produce/session-producer';
import { flowAggregatesProjection } from '../../projections/flow-aggregates/projection';
import { stockPricesProjection } from '../../projections/equities/stock-prices';
import { OrderFlowPartition, UNKNOWN_REFERENCE, type ReferenceData } from '../../projections/order-flow-processor/partition-state';
import { MARKET_PARTITIONS, topicFor } from '../../schemas/catalog';
import { nyLocalToEpochMs, sessionBounds } from '../../services/domain/calendar';
import type { EnrichedPrintEvent, OptionPrint } from '../../services/domain/order-flow';
import { RISK_FREE_RATE } from '../../services/domain/rates';
import { loadUniverse } from '../../services/domain/universe';
import { partitionOf } from '../../services/kafka/partition';
import { FLOW_AGGREGATES_VIEW, FlowAggregateKeys } from '../../services/views/flow-aggregates';
import { PartitionKeys } from '../../services/views/keys';
import { volatilityDrift } from '../../api/endpoints/options/volatility-drift';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline } from '../support/pipeline';
import { expectProblem } from '../support/problem';
import { expectDocumentedResponse } from '../support/response-schema';

/**
 * POST /v1/options/tool/volatility-drift end to end: simulated option prints (enriched by the
 * order-flow processor's own fold) and the underlying's price events of the same sessions,
 * produced to real Kafka, projected by the flow-aggregates and stock-price projections into real
 * Redis, queried over HTTP and compared minute for minute with a brute-force answer computed here
 * from the same events: the minute closes (the last price event before each minute's end; the
 * endpoint reads them from the price bars), the realized volatility written out from its
 * definition, the IV of the print nearest the money by scanning every print. Also: the default
 * session and expiration, a session with prices missing at the open, a session that has not
 * finished, the four ticker spellings, every validation rule.
 */

const PATH = '/v1/options/tool/volatility-drift';
const config = testConfig('voldrift');
const D1 = '2026-11-19';
const D2 = '2026-11-20';
const TICKERS = ['AAPL', 'SPX'];
/** AAPL on D2 has no price before 09:47 (nor the official open); SPX on D2 stops at 12:00 (a live session). */
const GAP_END = nyLocalToEpochMs(D2, 9, 47);
const LIVE_END = nyLocalToEpochMs(D2, 12, 0);

const REFERENCE = new Map<string, ReferenceData>(
  loadUniverse().map((i) => [i.symbol, { sector: i.sector, industry: i.industry, isETF: i.isETF, isIndex: i.isIndex }]),
);
const offsets = new Array<number>(MARKET_PARTITIONS).fill(0);
const folds = new Map<number, OrderFlowPartition>();

interface PriceEvent {
  ticker: string;
  sessionDate: string;
  time: number;
  price: number;
  kind: string;
}

const keep = (ticker: string, date: string, time: number) =>
  !(ticker === 'AAPL' && date === D2 && time < GAP_END) && !(ticker === 'SPX' && date === D2 && time >= LIVE_END);

/** The session's enriched prints and underlying price events (official open and close, per-second ticks) of TICKERS. */
function session(date: string): { prints: EnrichedPrintEvent[]; prices: PriceEvent[] } {
  const market = marketFor(42, 'dev');
  const prints: EnrichedPrintEvent[] = [];
  const prices: PriceEvent[] = [];
  for (const tier of ['daily', 'tick'] as const) {
    const gen = market.session(date, tier, new Set(TICKERS));
    for (let k = 0; k < gen.chunks; k++) {
      for (const e of gen.chunk(k)) {
        if (e.type === 'underlying-price') {
          const p = e.data as unknown as PriceEvent;
          if (TICKERS.includes(p.ticker) && keep(p.ticker, date, p.time)) prices.push(p);
        } else if (e.type === 'option-print' && tier === 'tick') {
          const print = e.data as unknown as OptionPrint;
          const p = partitionOf(print.ticker, MARKET_PARTITIONS);
          if (!folds.has(p)) folds.set(p, new OrderFlowPartition(p, RISK_FREE_RATE));
          const enriched = folds.get(p)!.apply(print, offsets[p]++, REFERENCE.get(print.ticker) ?? UNKNOWN_REFERENCE).enriched;
          if (keep(enriched.ticker, date, enriched.tradeTime)) prints.push(enriched);
        }
      }
    }
  }
  return { prints, prices };
}

const S1 = session(D1);
const S2 = session(D2);
const PRINTS = [...S1.prints, ...S2.prints];
const PRICES = [...S1.prices, ...S2.prices];

let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  for (let i = 0; i < PRINTS.length; i += 2000) await pipe.producer.send(topicFor('enriched-print')!, PRINTS.slice(i, i + 2000) as never);
  for (let i = 0; i < PRICES.length; i += 5000) await pipe.producer.send(topicFor('underlying-price')!, PRICES.slice(i, i + 5000) as never);
  await pipe.projectAll([flowAggregatesProjection, stockPricesProjection], 240_000);
  api = await startApi(config);
}, 400_000);

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

// --- the brute-force answer ----------------------------------------------------------------------

const MINUTE = 60_000;

/** The default expiration: the earliest, on or after the session, of the ticker's prints carrying an IV in the session. */
function defaultExpiration(ticker: string, date: string): string | undefined {
  return PRINTS.filter((p) => p.ticker === ticker && p.sessionDate === date && p.impliedVolatility !== null && p.expirationDate >= date)
    .map((p) => p.expirationDate)
    .sort()[0];
}

/** Realized volatility written out from its definition (docs/decisions.md): trailing 30 minutes, at least 10 returns, sample deviation, x sqrt(252 x 390). */
function realized(base: number | null, closes: (number | null)[]): (number | null)[] {
  return closes.map((_, i) => {
    const rs: number[] = [];
    for (let j = i - 29; j <= i; j++) {
      if (j < 0) continue;
      const prev = j === 0 ? base : closes[j - 1];
      const cur = closes[j];
      if (prev !== null && cur !== null) rs.push(Math.log(cur / prev));
    }
    if (rs.length < 10) return null;
    const mean = rs.reduce((s, x) => s + x, 0) / rs.length;
    const variance = rs.reduce((s, x) => s + (x - mean) ** 2, 0) / (rs.length - 1);
    return Math.sqrt(variance * 252 * 390);
  });
}

function oracle(ticker: string, date: string, expiration?: string): Record<string, { arv: number | null; iv: number | null; stockPrice: number | null }> {
  const { open, close } = sessionBounds(date)!;
  const events = PRICES.filter((p) => p.ticker === ticker && p.sessionDate === date).sort((a, b) => a.time - b.time);
  // A minute's close: the last event strictly before its end (in [m, m + 60 s), else carried
  // forward); the price at the open: the last event at or before it.
  const lastBefore = (bound: number) => events.filter((e) => e.time < bound).pop()?.price ?? null;
  const exp = expiration ?? defaultExpiration(ticker, date);
  const withIv = PRINTS.filter((p) => p.ticker === ticker && p.sessionDate === date && p.expirationDate === exp && p.impliedVolatility !== null);
  const minutes: number[] = [];
  for (let m = open; m < close; m += MINUTE) minutes.push(m);
  const closes = minutes.map((m) => lastBefore(m + MINUTE));
  const arv = realized(lastBefore(open + 1), closes);
  const reached = Math.max(events.length ? events[events.length - 1].time : -Infinity, ...withIv.map((p) => p.tradeTime));
  const out: Record<string, { arv: number | null; iv: number | null; stockPrice: number | null }> = {};
  minutes.forEach((m, i) => {
    if (m > reached) return;
    const inMinute = withIv.filter((p) => p.tradeTime >= m && p.tradeTime < m + MINUTE);
    inMinute.sort(
      (a, b) =>
        Math.abs(a.strikePrice - a.stockPrice) - Math.abs(b.strikePrice - b.stockPrice) ||
        b.tradeTime - a.tradeTime ||
        (a.rowKey < b.rowKey ? 1 : a.rowKey > b.rowKey ? -1 : 0),
    );
    out[String(m)] = { arv: arv[i], iv: inMinute[0]?.impliedVolatility ?? null, stockPrice: closes[i] };
  });
  return out;
}

async function ok(body: unknown): Promise<any> {
  const res = await api.post(PATH, body);
  if (res.status !== 200) throw new Error(`${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.json)}`);
  expectDocumentedResponse(volatilityDrift, res.json);
  return res.json;
}

/**
 * Same minutes in the same (ascending) order; the same nulls; numbers equal to 12 digits (the
 * answer's serialization may drop float noise, e.g. 0.30000000000000004 -> 0.3).
 */
function expectSame(got: Record<string, any>, want: Record<string, any>, what: string): void {
  expect({ what, keys: Object.keys(got) }).toEqual({ what, keys: Object.keys(want) });
  const close = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)));
  for (const k of Object.keys(want)) {
    const [g, w] = [got[k], want[k]];
    for (const f of ['arv', 'iv', 'stockPrice']) {
      if (!close(g[f], w[f])) throw new Error(`${what}, minute ${k}, ${f}: got ${g[f]}, want ${w[f]}`);
    }
  }
}

// --- tests -------------------------------------------------------------------------------------------

it('the data set: prints with IVs at several expirations in both sessions, per-second prices', () => {
  for (const t of TICKERS) {
    for (const d of [D1, D2]) {
      const exps = new Set(PRINTS.filter((p) => p.ticker === t && p.sessionDate === d && p.impliedVolatility !== null).map((p) => p.expirationDate));
      expect(exps.size).toBeGreaterThan(2);
    }
  }
  expect(PRICES.filter((p) => p.ticker === 'SPX' && p.sessionDate === D1).length).toBeGreaterThan(20_000);
});

describe('answers equal the brute force over the same events', () => {
  const expirationsOf = (t: string, d: string) =>
    [...new Set(PRINTS.filter((p) => p.ticker === t && p.sessionDate === d && p.impliedVolatility !== null).map((p) => p.expirationDate))].sort();

  it.each(TICKERS.flatMap((t) => [D1, D2].map((d) => [t, d])))('%s on %s: the default expiration and three others', async (ticker, date) => {
    const got = await ok({ sessionDate: date, filter: { ticker } });
    const want = oracle(ticker, date);
    expectSame(got.data, want, `${ticker} ${date}`);
    const values = Object.values(got.data) as any[];
    expect(values.filter((v) => v.iv !== null).length).toBeGreaterThan(20);
    expect(values.filter((v) => v.arv !== null).length).toBeGreaterThan(20);
    const exps = expirationsOf(ticker, date);
    for (const exp of [exps[1], exps[Math.floor(exps.length / 2)], exps[exps.length - 1]]) {
      expectSame((await ok({ sessionDate: date, filter: { ticker, expirationDate: exp } })).data, oracle(ticker, date, exp), `${ticker} ${date} ${exp}`);
    }
  });

  it("a tick exactly at a minute's end is the next minute's: stockPrice is the price of second 59, not of the boundary", async () => {
    const data = (await ok({ sessionDate: D1, filter: { ticker: 'SPX' } })).data as Record<string, any>;
    const at = new Map(PRICES.filter((p) => p.ticker === 'SPX' && p.sessionDate === D1).map((p) => [p.time, p.price]));
    const { open } = sessionBounds(D1)!;
    let differing = 0;
    for (let m = open; m < open + 389 * MINUTE; m += MINUTE) {
      const [last, boundary] = [at.get(m + MINUTE - 1000), at.get(m + MINUTE)];
      expect(boundary).toBeDefined();
      expect(data[String(m)].stockPrice).toBe(last);
      if (boundary !== last) differing++;
    }
    expect(differing).toBeGreaterThan(100);
  });

  it('a finished session has all 390 minutes, 09:30 to 15:59 New York', async () => {
    const keys = Object.keys((await ok({ sessionDate: D1, filter: { ticker: 'SPX' } })).data).map(Number);
    expect(keys).toHaveLength(390);
    expect(keys[0]).toBe(nyLocalToEpochMs(D1, 9, 30));
    expect(keys[389]).toBe(nyLocalToEpochMs(D1, 15, 59));
  });

  it('a session not finished ends at the minute of its latest price or print', async () => {
    const keys = Object.keys((await ok({ sessionDate: D2, filter: { ticker: 'SPX' } })).data).map(Number);
    expect(keys[keys.length - 1]).toBe(LIVE_END - MINUTE);
    expect(keys.length).toBe((LIVE_END - nyLocalToEpochMs(D2, 9, 30)) / MINUTE);
  });

  it('no price before 09:47: stockPrice null until then, arv null until ten returns follow', async () => {
    const data = (await ok({ sessionDate: D2, filter: { ticker: 'AAPL' } })).data as Record<string, any>;
    const first = Object.keys(data).map(Number)[0];
    expect(first).toBe(nyLocalToEpochMs(D2, 9, 30));
    for (const [k, v] of Object.entries(data)) {
      const m = Number(k);
      if (m < GAP_END - MINUTE) expect(v.stockPrice).toBeNull();
      if (m < GAP_END + 9 * MINUTE) expect(v.arv).toBeNull();
    }
    expect(data[String(GAP_END + 10 * MINUTE)].arv).not.toBeNull();
  });

  it('an expiration without prints in the session: iv null in every minute, arv and stockPrice still given', async () => {
    const got = (await ok({ sessionDate: D1, filter: { ticker: 'SPX', expirationDate: '2031-01-17' } })).data as Record<string, any>;
    expectSame(got, oracle('SPX', D1, '2031-01-17'), 'SPX no expiration');
    expect(Object.values(got).every((v) => v.iv === null)).toBe(true);
    expect(Object.keys(got)).toHaveLength(390);
  });

  it('without sessionDate: the latest session with a price of the ticker', async () => {
    expect((await ok({ filter: { ticker: 'AAPL' } })).data).toEqual((await ok({ sessionDate: D2, filter: { ticker: 'AAPL' } })).data);
  });

  it('a ticker without data: {}', async () => {
    expect((await ok({ sessionDate: D1, filter: { ticker: 'XOM' } })).data).toEqual({});
    expect((await ok({ filter: { ticker: 'XOM' } })).data).toEqual({});
  });

  it('the four ticker spellings give the same answer', async () => {
    const want = (await ok({ sessionDate: D1, filter: { ticker: 'AAPL' } })).data;
    for (const filter of [{ ticker: ['AAPL'] }, { tickers: 'AAPL' }, { tickers: ['AAPL'] }, { ticker: 'aapl' }]) {
      expect((await ok({ sessionDate: D1, filter })).data).toEqual(want);
    }
  });

  it('the stored form: one hash field per minute with a print of the expiration carrying an IV, so a request reads at most 390', async () => {
    const exp = defaultExpiration('SPX', D1)!;
    const k = new FlowAggregateKeys(new PartitionKeys(config.keyPrefix, FLOW_AGGREGATES_VIEW, 1, partitionOf('SPX', MARKET_PARTITIONS)));
    const fields = await pipe.redis.hlen(k.atmIvs(D1, 'SPX', exp));
    const minutes = new Set(
      PRINTS.filter((p) => p.ticker === 'SPX' && p.sessionDate === D1 && p.expirationDate === exp && p.impliedVolatility !== null).map((p) =>
        Math.floor(p.tradeTime / MINUTE),
      ),
    );
    expect(fields).toBe(minutes.size);
    expect(fields).toBeLessThanOrEqual(390);
  });
});

describe('validation: status and problem body for every bad input', () => {
  const cases: [string, unknown, string, RegExp | null][] = [
    ['no filter', { sessionDate: D1 }, 'filter', /required/],
    ['no ticker', { filter: {} }, 'filter.ticker', /is required/],
    ['only an expiration', { filter: { expirationDate: '2026-12-18' } }, 'filter.ticker', /is required/],
    ['two tickers', { filter: { tickers: ['AAPL', 'SPX'] } }, 'filter.ticker', /exactly one ticker/],
    [
      'timeRange',
      { filter: { ticker: 'AAPL' }, timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } },
      'timeRange',
      /not accepted/,
    ],
    ['aggregationPeriod', { filter: { ticker: 'AAPL' }, aggregationPeriod: '5m' }, 'aggregationPeriod', /not accepted/],
    ['snapshotTime', { filter: { ticker: 'AAPL' }, snapshotTime: '2026-11-20T15:00:00Z' }, 'snapshotTime', /not accepted/],
    [
      'filterExpression',
      { filter: { ticker: 'AAPL' }, filterExpression: { field: 'TICKER', operation: '=', value: 'AAPL' } },
      'filterExpression',
      /not accepted/,
    ],
    ['an unknown filter', { filter: { ticker: 'AAPL', strikePrice: 200 } }, 'filter.strikePrice', /not a filter of this endpoint/],
    ['two expirations', { filter: { ticker: 'AAPL', expirationDates: ['2026-12-18', '2027-01-15'] } }, 'filter.expirationDates', /single value/],
    ['a malformed expiration', { filter: { ticker: 'AAPL', expirationDate: '12/18/2026' } }, 'filter.expirationDate', null],
    ['a weekend session', { filter: { ticker: 'AAPL' }, sessionDate: '2026-11-21' }, 'sessionDate', /not an NYSE trading session/],
    ['a malformed session', { filter: { ticker: 'AAPL' }, sessionDate: '2026-11-20T00:00:00Z' }, 'sessionDate', null],
  ];
  it.each(cases)('%s', async (_name, body, field, detail) => {
    expectProblem(await api.post(PATH, body), 400, field, detail ?? undefined);
  });
});
