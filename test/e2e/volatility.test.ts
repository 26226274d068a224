import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { marketFor } from '../../ingest/produce/session-producer';
import type { SimEvent } from '../../ingest/simulator/events';
import { ViewProjector } from '../../projections/runtime/view-projector';
import { volatilityViewProjection } from '../../projections/volatility/projection';
import { bucketStart } from '../../api/request/aggregation/buckets';
import { PERIODS } from '../../api/request/aggregation/period';
import { exposureByStrike } from '../../api/endpoints/options/exposure-by-strike';
import { intervalMap } from '../../api/endpoints/options/interval-map';
import { ivRank } from '../../api/endpoints/options/iv-rank';
import { termStructure } from '../../api/endpoints/options/term-structure';
import { sessionBounds, sessionDateOf, toDayNumber, tradingDaysBetween } from '../../services/domain/calendar';
import { GREEK_MODES, REPRESENTATION_MODES } from '../../services/domain/volatility';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { createLogger } from '../../services/log';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline, snapshotView } from '../support/pipeline';
import { expectProblem } from '../support/problem';
import { VolatilityOracle } from '../support/volatility-oracle';
import { expectEqual } from '../support/expect-equal';

/**
 * The volatility endpoints end to end: simulated prices, option quotes and open interest through
 * real Kafka, the volatility projector and Redis to the API, every answer compared with a brute
 * force over the same events (test/support/volatility-oracle.ts).
 */

const TS = '/v1/options/tool/term-structure';
const EX = '/v1/options/tool/exposure-by-strike';
const IM = '/v1/options/tool/interval-map';
const IR = '/v1/options/tool/iv-rank';
const config = testConfig('volatility');
const D = '2026-11-20';
const HISTORY = tradingDaysBetween('2026-11-12', D);
const KEEP = new Set(['underlying-price', 'option-quote', 'open-interest']);

/** Daily tier (OI, open/close, end-of-day quotes) of SPY and AAPL over HISTORY, the tick tier of SPY on D; NVDA quoted on D without any price. */
function sourceEvents(): SimEvent[] {
  const market = marketFor(42, 'dev');
  const out: SimEvent[] = [];
  const symbols = new Set(['SPY', 'AAPL', 'NVDA']);
  for (const date of HISTORY) {
    const daily = market.session(date, 'daily', symbols);
    for (let k = 0; k < daily.chunks; k++)
      for (const e of daily.chunk(k)) {
        const t = String(e.data.ticker);
        if (!KEEP.has(e.type) || !symbols.has(t)) continue;
        if (t === 'NVDA' && (date !== D || e.type === 'underlying-price')) continue;
        out.push(e);
      }
  }
  const tick = market.session(D, 'tick', new Set(['SPY']));
  for (let k = 0; k < tick.chunks; k++) for (const e of tick.chunk(k)) if (KEEP.has(e.type) && e.data.ticker === 'SPY') out.push(e);
  return out;
}

const EVENTS = sourceEvents();
const oracle = new VolatilityOracle(EVENTS);
const all = () => true;
let pipe: TestPipeline;
let api: TestApi;
let second: ViewProjector | null = null;
const SECOND_PREFIX = `${config.keyPrefix}-b`;

beforeAll(async () => {
  pipe = await openPipeline(config);
  const writer = new ChunkWriter(createKafka(config, 'mdq-test'), createRegistry(config), config.topicPrefix, 'test-volatility');
  await writer.connect();
  for (let i = 0; i < EVENTS.length; i += 5000) await writer.commit(EVENTS.slice(i, i + 5000), []);
  await writer.disconnect();
  await pipe.newProjector(config.keyPrefix, volatilityViewProjection).start();
  // A second projector without the lead topic and with other chunks: quotes may come before their
  // prices. Each chunk holding a new minute's price re-prices every later snapshot of the day, so
  // the chunk is kept at a few hundred events: at 37 this one projector took over a minute of CPU.
  second = new ViewProjector({
    kafka: createKafka(config, 'mdq-test-b'),
    registry: createRegistry(config),
    redis: pipe.redis,
    projection: { ...volatilityViewProjection, lead: undefined },
    topicPrefix: config.topicPrefix,
    keyPrefix: SECOND_PREFIX,
    log: createLogger('test', 'silent'),
    chunkSize: 501,
  });
  await second.start();
  await pipe.waitCaughtUp(1, config.keyPrefix, 240_000, volatilityViewProjection);
  await pipe.waitCaughtUp(1, SECOND_PREFIX, 240_000, volatilityViewProjection);
  api = await startApi(config);
}, 600_000);

afterAll(async () => {
  await second?.stop();
  await api?.close();
  await pipe?.close();
});

/** Keys come out ascending at every level of a date -> strike map. */
function expectOrdered(map: Record<string, Record<string, unknown>>): void {
  const dates = Object.keys(map);
  expect(dates).toEqual([...dates].sort());
  for (const d of dates) {
    const strikes = Object.keys(map[d]);
    expect(strikes.map(Number)).toEqual(strikes.map(Number).sort((a, b) => a - b));
    for (const k of strikes) expect(k).toMatch(/^\d+\.\d+$/);
  }
}

const intraday = () => oracle.snapshots('SPY').filter((t) => sessionDateOf(t) === D && t < sessionBounds(D)!.close);

describe('the projection', () => {
  it('is deterministic: another projector, other chunks and topic order, gives a byte-identical view', async () => {
    const a = await snapshotView(pipe.redis, config.keyPrefix, 'volatility', 1);
    const b = await snapshotView(pipe.redis, SECOND_PREFIX, 'volatility', 1);
    delete a['{p00}:offsets'];
    for (const k of Object.keys(a)) if (k.endsWith(':offsets')) delete a[k];
    for (const k of Object.keys(b)) if (k.endsWith(':offsets')) delete b[k];
    expect(Object.keys(a).length).toBeGreaterThan(20);
    expectEqual(b, a);
    // Every priced snapshot holds its answers (both projectors' views are the same, answers included).
    const surfaces = Object.keys(a).filter((k) => /:s:[^:]+:\d+$/.test(k));
    for (const k of surfaces) {
      const answers = a[k.replace(/:s:([^:]+):(\d+)$/, ':ans:$1:$2')] as Record<string, string> | undefined;
      if (JSON.parse(a[k] as string).s === null) expect(answers).toBeUndefined();
      else expect(Object.keys(answers ?? {}).sort()).toEqual(['p', 'ts', 'x:CHARM', 'x:DELTA', 'x:GAMMA', 'x:VANNA']);
    }
    expect(surfaces.length).toBeGreaterThan(50);
  });

  it('holds an end-of-day surface for every history session and every intraday snapshot of the tick session', () => {
    expect(intraday().length).toBeGreaterThan(50);
    for (const date of HISTORY) expect(oracle.snapshotFor('SPY', { sessionDate: date })).toBe(sessionBounds(date)!.close);
  });
});

describe('term-structure', () => {
  it('answers the end-of-day surface of a session as the brute force does', async () => {
    for (const date of [D, HISTORY[0]]) {
      const res = await api.post(TS, { filter: { ticker: 'SPY' }, sessionDate: date });
      expect(res.status).toBe(200);
      const expected = oracle.termStructure('SPY', oracle.snapshotFor('SPY', { sessionDate: date })!, all);
      expect(Object.keys(expected.data).length).toBeGreaterThan(3);
      expect(res.json).toEqual(expected);
      expectOrdered(res.json.data);
    }
  });

  it('takes the last snapshot strictly before snapshotTime', async () => {
    const snaps = intraday();
    const at = snaps[20];
    const res = await api.post(TS, { filter: { ticker: 'SPY' }, snapshotTime: new Date(at).toISOString() });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(oracle.termStructure('SPY', snaps[19], all));
    const after = await api.post(TS, { filter: { ticker: 'SPY' }, snapshotTime: new Date(at + 1).toISOString() });
    expect(after.json).toEqual(oracle.termStructure('SPY', at, all));
  });

  it('filters by delta band, money type, strikes and expirations', async () => {
    const at = sessionBounds(D)!.close;
    const exps = Object.keys(oracle.termStructure('SPY', at, all).data).slice(1, 3);
    const res = await api.post(TS, {
      filter: {
        ticker: 'spy',
        deltaRange: { min: -0.6, max: 0.45 },
        moneyTypes: ['OTM', 'atm'],
        expirationDates: exps,
        strikePriceRange: { min: 560, max: null },
      },
      sessionDate: D,
    });
    const expected = oracle.termStructure(
      'SPY',
      at,
      (l, m) => l.greeks!.delta >= -0.6 && l.greeks!.delta <= 0.45 && (m === 'OTM' || m === 'ATM') && exps.includes(l.expiration) && l.strike >= 560,
    );
    expect(Object.keys(expected.data).length).toBe(2);
    expect(res.json).toEqual(expected);
  });

  it('takes the latest snapshot held when no selector is given', async () => {
    const latest = oracle.snapshotFor('SPY', 'latest')!;
    expect(latest).toBe(sessionBounds(D)!.close);
    const res = await api.post(TS, { filter: { ticker: 'SPY' } });
    expect(res.json).toEqual(oracle.termStructure('SPY', latest, all));
    const ex = await api.post(EX, { filter: { ticker: 'SPY' }, greekMode: 'CHARM', representationMode: 'PER_ONE_DOLLAR_MOVE' });
    expect(ex.json).toEqual({ data: { SPY: oracle.exposure('SPY', latest, 'CHARM', 'PER_ONE_DOLLAR_MOVE', all) } });
    const im = await api.post(IM, { filter: { ticker: 'SPY' }, greekMode: 'CHARM' });
    expect(im.json).toEqual((await api.post(IM, { filter: { ticker: 'SPY' }, greekMode: 'CHARM', sessionDate: D })).json);
    expect(Object.keys(im.json.data).length).toBe(
      new Set(
        oracle
          .snapshots('SPY')
          .filter((t) => sessionDateOf(t) === D)
          .map((t) => bucketStart(PERIODS['5m'], t)),
      ).size,
    );
  });

  it('gives empty data with the stock price when nothing matches', async () => {
    const res = await api.post(TS, { filter: { ticker: 'SPY', strikePrices: [1.5] }, sessionDate: D });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ stockPrice: oracle.spotAt('SPY', sessionBounds(D)!.close), data: {} });
  });

  it('is a 422 data-unavailable without a usable underlying price', async () => {
    for (const body of [
      { filter: { ticker: 'NVDA' }, sessionDate: D },
      { filter: { ticker: 'XOM' } },
      { filter: { ticker: 'SPY' }, sessionDate: '2026-11-23' },
    ]) {
      const res = await api.post(TS, body);
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.json).toMatchObject({ status: 422, category: 'data-unavailable', code: 'UnderlyingPriceUnavailable' });
      expect(res.json.detail).toContain(body.filter.ticker);
    }
  });
});

describe('exposure-by-strike', () => {
  it('answers every greek x representation as the brute force does, at the close and intraday', async () => {
    const close = sessionBounds(D)!.close;
    const mid = intraday()[40];
    for (const greek of GREEK_MODES)
      for (const representation of REPRESENTATION_MODES) {
        const eod = await api.post(EX, { filter: { ticker: 'SPY' }, greekMode: greek, representationMode: representation, sessionDate: D });
        expect(eod.status).toBe(200);
        expect(eod.json).toEqual({ data: { SPY: oracle.exposure('SPY', close, greek, representation, all) } });
        const day = await api.post(EX, {
          filter: { ticker: 'SPY' },
          greekMode: greek,
          representationMode: representation,
          snapshotTime: new Date(mid + 1).toISOString(),
        });
        expect(day.json).toEqual({ data: { SPY: oracle.exposure('SPY', mid, greek, representation, all) } });
        expectOrdered(day.json.data.SPY.exposureMap);
      }
  });

  it('signs delta exposure positive for calls and negative for puts, gamma positive for both', async () => {
    const delta = await api.post(EX, { filter: { ticker: 'SPY' }, greekMode: 'DELTA', representationMode: 'RAW', sessionDate: D });
    const gamma = await api.post(EX, { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'RAW', sessionDate: D });
    const cells = (r: typeof delta) =>
      Object.values(r.json.data.SPY.exposureMap as Record<string, Record<string, { callExposure?: number; putExposure?: number }>>).flatMap((s) =>
        Object.values(s),
      );
    const dc = cells(delta);
    expect(dc.filter((c) => c.callExposure !== undefined).length).toBeGreaterThan(10);
    expect(dc.filter((c) => c.putExposure !== undefined).length).toBeGreaterThan(10);
    for (const c of dc) {
      if (c.callExposure !== undefined) expect(c.callExposure).toBeGreaterThan(0);
      if (c.putExposure !== undefined) expect(c.putExposure).toBeLessThan(0);
    }
    for (const c of cells(gamma)) for (const v of [c.callExposure, c.putExposure]) if (v !== undefined) expect(v).toBeGreaterThan(0);
  });

  it('applies filters, filterExpression and several tickers', async () => {
    const res = await api.post(EX, {
      filter: { tickers: ['SPY', 'AAPL'], strikePriceRange: { min: 200, max: 640 } },
      filterExpression: {
        conjunction: 'AND',
        filters: [
          { field: 'CONTRACT_TYPE', operation: 'EQ', value: 'PUT' },
          { field: 'MONEY_TYPE', operation: '!=', value: 'ITM' },
        ],
      },
      greekMode: 'VANNA',
      representationMode: 'PER_ONE_PERCENT_MOVE',
      sessionDate: HISTORY[2],
    });
    expect(res.status).toBe(200);
    const keep = (l: { right: string; strike: number }, m: string) => l.right === 'PUT' && m !== 'ITM' && l.strike >= 200 && l.strike <= 640;
    const at = (t: string) => oracle.snapshotFor(t, { sessionDate: HISTORY[2] })!;
    expect(Object.keys(res.json.data)).toEqual(['AAPL', 'SPY']);
    expect(res.json.data.AAPL).toEqual(oracle.exposure('AAPL', at('AAPL'), 'VANNA', 'PER_ONE_PERCENT_MOVE', keep));
    expect(res.json.data.SPY).toEqual(oracle.exposure('SPY', at('SPY'), 'VANNA', 'PER_ONE_PERCENT_MOVE', keep));
  });
});

describe('interval-map', () => {
  it('gives each bucket the exposure-by-strike (RAW) of its last snapshot', async () => {
    for (const period of ['5m', '30m'] as const) {
      const res = await api.post(IM, { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', sessionDate: D, aggregationPeriod: period });
      expect(res.status).toBe(200);
      const last = new Map<number, number>();
      for (const t of oracle.snapshots('SPY').filter((x) => sessionDateOf(x) === D)) last.set(bucketStart(PERIODS[period], t), t);
      expect(Object.keys(res.json.data)).toEqual([...last.keys()].map(String));
      for (const [start, t] of [...last].filter((_, i) => i % 4 === 0)) {
        const ex = await api.post(EX, {
          filter: { ticker: 'SPY' },
          greekMode: 'GAMMA',
          representationMode: 'RAW',
          snapshotTime: new Date(t + 1).toISOString(),
        });
        const reshaped: Record<string, Record<string, Record<string, number>>> = {};
        for (const [exp, strikes] of Object.entries(
          ex.json.data.SPY.exposureMap as Record<string, Record<string, { callExposure?: number; putExposure?: number }>>,
        ))
          for (const [k, c] of Object.entries(strikes))
            (reshaped[exp] ??= {})[k] = {
              ...(c.callExposure !== undefined && { CALL: c.callExposure }),
              ...(c.putExposure !== undefined && { PUT: c.putExposure }),
            };
        expect(res.json.data[String(start)]).toEqual(reshaped);
      }
    }
  });

  it('narrows to an expiration and strike bounds, and covers a window across sessions', async () => {
    const close = sessionBounds(D)!.close;
    const exp = Object.keys(oracle.exposure('SPY', close, 'DELTA', 'RAW', all).exposureMap)[1];
    const res = await api.post(IM, {
      filter: { ticker: 'SPY', expirationDate: exp, minStrikePrice: 580, maxStrikePrice: 620 },
      greekMode: 'DELTA',
      timeRange: { startTime: new Date(sessionBounds(HISTORY[3])!.open).toISOString(), endTime: new Date(close + 1).toISOString() },
      aggregationPeriod: '1d',
    });
    expect(res.status).toBe(200);
    const expected: Record<string, unknown> = {};
    for (const date of HISTORY.slice(3)) {
      const t = oracle.snapshotFor('SPY', { sessionDate: date })!;
      const m = oracle.exposure('SPY', t, 'DELTA', 'RAW', (l) => l.expiration === exp && l.strike >= 580 && l.strike <= 620).exposureMap;
      const cells: Record<string, Record<string, Record<string, number>>> = {};
      for (const [e, strikes] of Object.entries(m))
        for (const [k, c] of Object.entries(strikes))
          (cells[e] ??= {})[k] = { ...(c.callExposure !== undefined && { CALL: c.callExposure }), ...(c.putExposure !== undefined && { PUT: c.putExposure }) };
      if (Object.keys(cells).length) expected[String(bucketStart(PERIODS['1d'], t))] = cells;
    }
    expect(Object.keys(expected).length).toBeGreaterThan(2);
    expect(res.json.data).toEqual(expected);
  });
});

describe('stored answers', () => {
  /** The body's bytes: an unfiltered request reads the stored answer, a filter keeping every leg writes it from the surfaces. */
  const text = async (path: string, body: unknown) => {
    const res = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${api.key}` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  const everyStrike = { min: 0.001, max: 1_000_000 };

  it('are byte for byte what the surfaces give, for every greek and representation, at the close and intraday', async () => {
    const mid = { snapshotTime: new Date(intraday()[40] + 1).toISOString() };
    for (const at of [{ sessionDate: D }, mid]) {
      const ts = await text(TS, { filter: { ticker: 'SPY' }, ...at });
      expect(ts.length).toBeGreaterThan(1000);
      expect(ts).toBe(await text(TS, { filter: { ticker: 'SPY', strikePriceRange: everyStrike }, ...at }));
      for (const greekMode of GREEK_MODES)
        for (const representationMode of REPRESENTATION_MODES) {
          const body = { greekMode, representationMode, ...at };
          const stored = await text(EX, { filter: { ticker: ['SPY', 'AAPL'] }, ...body });
          expect(stored).toBe(await text(EX, { filter: { ticker: ['SPY', 'AAPL'], strikePriceRange: everyStrike }, ...body }));
        }
    }
    for (const greekMode of GREEK_MODES) {
      const body = { greekMode, sessionDate: D, aggregationPeriod: '30m' };
      const stored = await text(IM, { filter: { ticker: 'SPY' }, ...body });
      expect(Object.keys(JSON.parse(stored).data).length).toBeGreaterThan(10);
      expect(stored).toBe(await text(IM, { filter: { ticker: 'SPY', minStrikePrice: 0.001 }, ...body }));
    }
  });
});

describe('iv-rank', () => {
  it.each([1, 3, 365])('lookBackPeriod %d: last IV and the trailing window as the brute force gives them', async (lookBack) => {
    for (const [maturity, contractTypes] of [
      [30, undefined],
      [10, ['PUT']],
    ] as const) {
      const res = await api.post(IR, { filter: { ticker: 'SPY', ...(contractTypes && { contractTypes }) }, lookBackPeriod: lookBack, maturity });
      expect(res.status).toBe(200);
      const { heldSessions, ...expected } = oracle.ivRank('SPY', lookBack, maturity, contractTypes ?? ['CALL', 'PUT']);
      expect(heldSessions).toBe(HISTORY.length);
      expect(Object.keys(expected.data).length).toBe(Math.min(lookBack, HISTORY.length));
      expect(res.json).toEqual(expected);
      expect(Object.keys(res.json.data)).toEqual([...Object.keys(res.json.data)].sort());
    }
  });

  it('has one-session windows at lookBackPeriod 1 and the whole history in each window at 365', async () => {
    const one = await api.post(IR, { filter: { ticker: 'SPY' }, lookBackPeriod: 1, maturity: 30 });
    const [only] = Object.values(one.json.data) as any[];
    expect(Object.keys(one.json.data)).toEqual([D]);
    expect(only.contractTypeToIVData.CALL.windowMaxIv).toBe(only.contractTypeToIVData.CALL.lastIv);
    expect(only.contractTypeToIVData.CALL.windowMinIv).toBe(only.contractTypeToIVData.CALL.lastIv);
    const year = await api.post(IR, { filter: { ticker: 'SPY' }, lookBackPeriod: 365, maturity: 30 });
    const days = Object.values(year.json.data) as any[];
    const calls = days.map((d) => d.contractTypeToIVData.CALL.lastIv as number);
    expect(days[days.length - 1].contractTypeToIVData.CALL.windowMaxIv).toBe(Math.max(...calls));
    expect(days[days.length - 1].contractTypeToIVData.CALL.windowMinIv).toBe(Math.min(...calls));
  });

  it('is empty when no expiration lies in the maturity band', async () => {
    const band = (m: number) =>
      HISTORY.every((date) => {
        const t = oracle.snapshotFor('SPY', { sessionDate: date })!;
        return oracle.surface('SPY', t).legs.every((l) => {
          const dte = toDayNumber(l.expiration) - toDayNumber(date);
          return dte < m / 2 || dte > m * 1.5;
        });
      });
    expect(band(200)).toBe(true);
    const res = await api.post(IR, { filter: { ticker: 'SPY' }, lookBackPeriod: 365, maturity: 200 });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ expirationDates: [], data: {} });
  });
});

describe('validation', () => {
  const base = {
    [TS]: { filter: { ticker: 'SPY' } },
    [EX]: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'RAW' },
    [IM]: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA' },
    [IR]: { filter: { ticker: 'SPY' }, lookBackPeriod: 30, maturity: 30 },
  };
  const cases: [string, Record<string, unknown>, string, RegExp?][] = [
    [TS, { filter: undefined }, 'filter', /required/],
    [TS, { filter: {} }, 'filter.ticker', /required/],
    [TS, { filter: { ticker: ['SPY', 'QQQ'] } }, 'filter.ticker', /exactly one/],
    [TS, { filterExpression: { field: 'DELTA', operation: 'GT', value: 0 } }, 'filterExpression', /not accepted/],
    [TS, { timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } }, 'timeRange', /not accepted/],
    [TS, { filter: { ticker: 'SPY', deltaRange: { min: -1.5, max: 0.5 } } }, 'filter.deltaRange.min', /-1 to 1/],
    [TS, { filter: { ticker: 'SPY', deltaRange: { min: 0, max: 1.01 } } }, 'filter.deltaRange.max', /-1 to 1/],
    [TS, { filter: { ticker: 'SPY', deltaRange: { min: 0.7, max: 0.3 } } }, 'filter.deltaRange', /greater/],
    [TS, { sessionDate: D, snapshotTime: '2026-11-20T15:00:00Z' }, 'snapshotTime', /mutually exclusive/],
    [TS, { sessionDate: '2026-11-21' }, 'sessionDate', /not an NYSE trading session/],
    [TS, { snapshotTime: 'noon' }, 'snapshotTime'],
    [TS, { filter: { ticker: 'SPY', moneyTypes: ['DEEP'] } }, 'filter.moneyTypes[0]', /money type/],
    [TS, { filter: { ticker: 'SPY', strikePrices: [600], strikePriceRange: { min: 1 } } }, 'filter.strikePriceRange', /mutually exclusive/],
    [TS, { filter: { ticker: 'SPY', sectors: ['TECHNOLOGY'] } }, 'filter.sectors', /not a filter/],
    [EX, { greekMode: undefined }, 'greekMode', /required/],
    [EX, { greekMode: 'THETA' }, 'greekMode'],
    [EX, { representationMode: undefined }, 'representationMode', /required/],
    [EX, { representationMode: 'PER_TWO_DOLLARS' }, 'representationMode'],
    [EX, { filterExpression: { field: 'PREMIUM', operation: 'GT', value: 1 } }, 'filterExpression.field', /not a filterable field/],
    [EX, { aggregationPeriod: '5m' }, 'aggregationPeriod', /not accepted/],
    [IM, { filterExpression: { field: 'STRIKE_PRICE', operation: 'GT', value: 1 } }, 'filterExpression', /not accepted/],
    [IM, { snapshotTime: '2026-11-20T15:00:00Z' }, 'snapshotTime', /not accepted/],
    [IM, { sessionDate: D, aggregationPeriod: '1w' }, 'aggregationPeriod', /does not suit/],
    [IM, { aggregationPeriod: '7m' }, 'aggregationPeriod', /must be one of/],
    [IM, { filter: { ticker: 'SPY', minStrikePrice: -5 } }, 'filter.minStrikePrice', /positive/],
    [IM, { filter: { ticker: 'SPY', minStrikePrice: 600, maxStrikePrice: 500 } }, 'filter.maxStrikePrice', /below/],
    [IM, { greekMode: undefined }, 'greekMode', /required/],
    [IM, { sessionDate: D, timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } }, 'timeRange', /mutually exclusive/],
    [IM, { timeRange: { startTime: '2026-11-20T15:30:00Z', endTime: '2026-11-20T14:30:00Z' } }, 'timeRange'],
    [IR, { lookBackPeriod: 0 }, 'lookBackPeriod', />= 1/],
    [IR, { lookBackPeriod: 366 }, 'lookBackPeriod', /<= 365/],
    [IR, { lookBackPeriod: undefined }, 'lookBackPeriod', /required/],
    [IR, { maturity: 0 }, 'maturity', />= 1/],
    [IR, { maturity: 366 }, 'maturity', /<= 365/],
    [IR, { maturity: 30.5 }, 'maturity', /integer/],
    [IR, { sessionDate: D }, 'sessionDate', /not accepted/],
    [IR, { timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } }, 'timeRange', /not accepted/],
    [IR, { filterExpression: { field: 'TICKER', operation: 'EQ', value: 'SPY' } }, 'filterExpression', /not accepted/],
    [IR, { filter: { ticker: 'SPY', contractTypes: ['STRADDLE'] } }, 'filter.contractTypes[0]', /contract type/],
    [IR, { filter: { contractTypes: ['CALL'] } }, 'filter.ticker', /required/],
  ];
  // Four values per case always: jest takes a test function with more parameters than values for a done-callback test.
  it.each(cases.map(([p, b, f, d]) => [p, b, f, d ?? null] as const))('%s %j -> 400 naming %s', async (path, patch, field, detail) => {
    const body: Record<string, unknown> = { ...base[path as keyof typeof base], ...patch };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    expectProblem(await api.post(path, body), 400, field, detail ?? undefined);
  });
});

describe('OpenAPI examples', () => {
  it('each endpoint documents at least two examples, and each is answered with data', async () => {
    for (const def of [termStructure, exposureByStrike, intervalMap, ivRank]) {
      expect(Object.keys(def.examples).length).toBeGreaterThanOrEqual(2);
      for (const ex of Object.values(def.examples)) {
        const res = await api.post(`/v1${def.path}`, ex.request);
        expect({ path: def.path, status: res.status }).toEqual({ path: def.path, status: 200 });
        expect(JSON.stringify(res.json.data)).not.toBe('{}');
      }
    }
  });
});
