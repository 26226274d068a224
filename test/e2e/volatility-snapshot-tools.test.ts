import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { marketFor } from '../../ingest/produce/session-producer';
import type { SimEvent } from '../../ingest/simulator/events';
import { OrderFlowPartition, UNKNOWN_REFERENCE, type ReferenceData } from '../../projections/order-flow-processor/partition-state';
import { flowAggregatesProjection } from '../../projections/flow-aggregates/projection';
import { volatilityViewProjection } from '../../projections/volatility/projection';
import { exposureByExpiration } from '../../api/endpoints/options/exposure-by-expiration';
import { heatMap } from '../../api/endpoints/options/heat-map';
import { volatilitySkew } from '../../api/endpoints/options/volatility-skew';
import { MARKET_PARTITIONS, topicFor } from '../../schemas/catalog';
import { sessionBounds, sessionDateOf, tradingDaysBetween } from '../../services/domain/calendar';
import { HEAT_MAP_MODES, LEG_QUANTITIES } from '../../services/domain/heat-map';
import type { EnrichedPrintEvent, OptionPrint } from '../../services/domain/order-flow';
import { RISK_FREE_RATE } from '../../services/domain/rates';
import { loadUniverse } from '../../services/domain/universe';
import { GREEK_MODES, REPRESENTATION_MODES } from '../../services/domain/volatility';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { partitionOf } from '../../services/kafka/partition';
import { premiumCents } from '../../services/views/order-flow/statistics';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline } from '../support/pipeline';
import { expectProblem } from '../support/problem';
import { VolatilityOracle, strikeText, type OracleLeg } from '../support/volatility-oracle';
import { asServed } from '../support/served';

/**
 * exposure-by-expiration, volatility-skew and heat-map end to end: simulated prices, option quotes
 * and open interest through real Kafka and the volatility projector, the session's prints (the
 * order-flow processor's fold) through the flow-aggregates projector, answered over HTTP and
 * compared with brute force over the same events (test/support/volatility-oracle.ts, and the
 * prints summed here), plus the agreement checks with exposure-by-strike and term-structure.
 */

const P = (name: string) => `/v1/options/tool/${name}`;
const EE = P('exposure-by-expiration');
const SK = P('volatility-skew');
const HM = P('heat-map');
const EX = P('exposure-by-strike');
const TS = P('term-structure');
const config = testConfig('vol-tools');
const D = '2026-11-20';
const HISTORY = tradingDaysBetween('2026-11-18', D);
const KEEP = new Set(['underlying-price', 'option-quote', 'open-interest']);

/** Daily tier of SPY over HISTORY, its tick tier on D (quotes, prices, and prints), NVDA quoted on D without any price. */
function sourceEvents(): { events: SimEvent[]; prints: OptionPrint[] } {
  const market = marketFor(42, 'dev');
  const events: SimEvent[] = [];
  const symbols = new Set(['SPY', 'NVDA']);
  for (const date of HISTORY) {
    const daily = market.session(date, 'daily', symbols);
    for (let k = 0; k < daily.chunks; k++)
      for (const e of daily.chunk(k)) {
        const t = String(e.data.ticker);
        if (!KEEP.has(e.type) || !symbols.has(t)) continue;
        if (t === 'NVDA' && (date !== D || e.type === 'underlying-price')) continue;
        events.push(e);
      }
  }
  const prints: OptionPrint[] = [];
  const tick = market.session(D, 'tick', new Set(['SPY']));
  for (let k = 0; k < tick.chunks; k++)
    for (const e of tick.chunk(k)) {
      if (e.data.ticker !== 'SPY') continue;
      if (KEEP.has(e.type)) events.push(e);
      else if (e.type === 'option-print') prints.push(e.data as unknown as OptionPrint);
    }
  return { events, prints };
}

const { events: EVENTS, prints: RAW_PRINTS } = sourceEvents();
const oracle = new VolatilityOracle(EVENTS);

/** The prints enriched by the order-flow processor's own fold, as derived.order-flow.prints holds them. */
const PRINTS: EnrichedPrintEvent[] = (() => {
  const reference = new Map<string, ReferenceData>(
    loadUniverse().map((i) => [i.symbol, { sector: i.sector, industry: i.industry, isETF: i.isETF, isIndex: i.isIndex }]),
  );
  const fold = new OrderFlowPartition(partitionOf('SPY', MARKET_PARTITIONS), RISK_FREE_RATE);
  return RAW_PRINTS.map((p, i) => fold.apply(p, i, reference.get(p.ticker) ?? UNKNOWN_REFERENCE).enriched);
})();

const all = () => true;
let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  const writer = new ChunkWriter(createKafka(config, 'mdq-test'), createRegistry(config), config.topicPrefix, 'test-vol-tools');
  await writer.connect();
  for (let i = 0; i < EVENTS.length; i += 5000) await writer.commit(EVENTS.slice(i, i + 5000), []);
  await writer.disconnect();
  const printsSpec = topicFor('enriched-print')!;
  for (let i = 0; i < PRINTS.length; i += 2000) await pipe.producer.send(printsSpec, PRINTS.slice(i, i + 2000) as unknown as Record<string, unknown>[]);
  await pipe.newProjector(config.keyPrefix, volatilityViewProjection, undefined, 1000).start();
  await pipe.newProjector(config.keyPrefix, flowAggregatesProjection, undefined, 1000).start();
  await pipe.waitCaughtUp(1, config.keyPrefix, 300_000, volatilityViewProjection);
  await pipe.waitCaughtUp(1, config.keyPrefix, 300_000, flowAggregatesProjection);
  api = await startApi(config);
}, 600_000);

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

const close = () => oracle.snapshotFor('SPY', { sessionDate: D })!;
/** An intraday snapshot of D in the middle of the session. */
const mid = () => {
  const list = oracle.snapshots('SPY').filter((t) => sessionDateOf(t) === D && t < sessionBounds(D)!.close);
  return list[Math.floor(list.length / 2)]!;
};
const just = (ms: number) => new Date(ms + 1).toISOString();

/** Keys ascending at both levels of a date -> strike map, strike keys in the "215.0" form. */
function expectOrdered(map: Record<string, Record<string, unknown>>): void {
  const dates = Object.keys(map);
  expect(dates).toEqual([...dates].sort());
  for (const d of dates) {
    const strikes = Object.keys(map[d]);
    expect(strikes.map(Number)).toEqual(strikes.map(Number).sort((a, b) => a - b));
    for (const k of strikes) expect(k).toMatch(/^\d+\.\d+$/);
  }
}

describe('the test data', () => {
  it('has an intraday and an end-of-day SPY surface on D, prints before them, and open interest', () => {
    expect(mid()).toBeLessThan(close());
    expect(mid() % 60_000).toBe(0);
    expect(PRINTS.filter((p) => p.tradeTime < mid()).length).toBeGreaterThan(100);
    expect(Object.keys(oracle.heatOpenInterest('SPY', D, all)).length).toBeGreaterThan(3);
  });
});

describe('exposure-by-expiration', () => {
  it('answers every greek x representation as the brute force does, at the close and intraday', async () => {
    for (const greek of GREEK_MODES)
      for (const representation of REPRESENTATION_MODES)
        for (const [sel, ms] of [
          [{ sessionDate: D }, close()],
          [{ snapshotTime: just(mid()) }, mid()],
        ] as const) {
          const res = await api.post(EE, { filter: { ticker: 'SPY' }, greekMode: greek, representationMode: representation, ...sel });
          expect(res.status).toBe(200);
          const expected = oracle.exposureByExpiration('SPY', ms, greek, representation, all);
          expect(Object.keys(expected.exposureMap).length).toBeGreaterThan(1);
          expect(res.json).toEqual({ data: { SPY: expected } });
          expectOrdered(res.json.data.SPY.exposureMap);
        }
  });

  it("agrees with exposure-by-strike: each expiration's entry is the sum of its strikes' legs, under the contributing strike nearest the price", async () => {
    for (const greek of GREEK_MODES) {
      const body = { filter: { ticker: 'SPY' }, greekMode: greek, representationMode: 'PER_ONE_DOLLAR_MOVE', sessionDate: D };
      const [byExp, byStrike] = await Promise.all([api.post(EE, body), api.post(EX, body)]);
      const strikeMap = byStrike.json.data.SPY.exposureMap as Record<string, Record<string, { callExposure?: number; putExposure?: number }>>;
      const spot = byStrike.json.data.SPY.stockPrice as number;
      expect(byExp.json.data.SPY.stockPrice).toBe(spot);
      const expected: Record<string, Record<string, { callExposure?: number; putExposure?: number }>> = {};
      for (const [exp, strikes] of Object.entries(strikeMap)) {
        // Calls first, then puts, each by ascending strike: the order the legs are stored in (by OSI).
        let call: number | undefined;
        let put: number | undefined;
        for (const c of Object.values(strikes)) if (c.callExposure !== undefined) call = (call ?? 0) + c.callExposure;
        for (const c of Object.values(strikes)) if (c.putExposure !== undefined) put = (put ?? 0) + c.putExposure;
        const key = Object.keys(strikes).sort((a, b) => Math.abs(Number(a) - spot) - Math.abs(Number(b) - spot) || Number(a) - Number(b))[0]!;
        expected[exp] = { [key]: { ...(call !== undefined && { callExposure: call }), ...(put !== undefined && { putExposure: put }) } };
      }
      expect(byExp.json.data.SPY.exposureMap).toEqual(expected);
    }
  });

  it('applies expirations, strikes and filterExpression', async () => {
    const exps = Object.keys(oracle.exposureByExpiration('SPY', close(), 'GAMMA', 'RAW', all).exposureMap).sort();
    const spot = oracle.spotAt('SPY', close())!;
    const cases: [Record<string, unknown>, unknown, (l: OracleLeg) => boolean][] = [
      [{ expirationDates: exps.slice(0, 2) }, null, (l) => exps.slice(0, 2).includes(l.expiration)],
      [{ expirationDateRange: { startDate: exps[1], endDate: exps[3] } }, null, (l) => l.expiration >= exps[1]! && l.expiration <= exps[3]!],
      [
        { strikePriceRange: { min: Math.round(spot * 0.97), max: Math.round(spot * 1.03) } },
        null,
        (l) => l.strike >= Math.round(spot * 0.97) && l.strike <= Math.round(spot * 1.03),
      ],
      [{ strikePrices: [Math.round(spot), Math.round(spot) + 5] }, null, (l) => l.strike === Math.round(spot) || l.strike === Math.round(spot) + 5],
      [{}, { field: 'CONTRACT_TYPE', operation: 'EQ', value: 'PUT' }, (l) => l.right === 'PUT'],
    ];
    for (const [f, expr, keep] of cases) {
      const res = await api.post(EE, {
        filter: { ticker: 'SPY', ...f },
        greekMode: 'DELTA',
        representationMode: 'RAW',
        sessionDate: D,
        ...(expr ? { filterExpression: expr } : {}),
      });
      expect(res.status).toBe(200);
      const expected = oracle.exposureByExpiration('SPY', close(), 'DELTA', 'RAW', keep);
      expect(Object.keys(expected.exposureMap).length).toBeGreaterThan(0);
      expect(res.json.data.SPY).toEqual(expected);
    }
  });
});

describe('volatility-skew', () => {
  it('answers the IV of every priced leg as the brute force does, at the close and intraday', async () => {
    for (const [sel, ms] of [
      [{ sessionDate: D }, close()],
      [{ snapshotTime: just(mid()) }, mid()],
      [{ sessionDate: HISTORY[0] }, oracle.snapshotFor('SPY', { sessionDate: HISTORY[0]! })!],
    ] as const) {
      const res = await api.post(SK, { filter: { ticker: 'SPY' }, ...sel });
      expect(res.status).toBe(200);
      const expected = oracle.skew('SPY', ms, all);
      expect(Object.keys(expected.data).length).toBeGreaterThan(1);
      expect(res.json).toEqual(expected);
      expectOrdered(res.json.data);
    }
  });

  it('agrees with term-structure: the same IVs, leg by leg, at the same snapshot', async () => {
    for (const sel of [{ sessionDate: D }, { snapshotTime: just(mid()) }]) {
      const [skew, ts] = await Promise.all([api.post(SK, { filter: { ticker: 'SPY' }, ...sel }), api.post(TS, { filter: { ticker: 'SPY' }, ...sel })]);
      expect(skew.json.stockPrice).toBe(ts.json.stockPrice);
      const fromTs: Record<string, Record<string, Record<string, number>>> = {};
      for (const [exp, strikes] of Object.entries(ts.json.data as Record<string, Record<string, Record<string, { iv: number }>>>))
        for (const [k, legs] of Object.entries(strikes)) for (const [leg, p] of Object.entries(legs)) ((fromTs[exp] ??= {})[k] ??= {})[leg] = p.iv;
      expect(skew.json.data).toEqual(fromTs);
    }
  });

  it('filters contract types and expirations; nothing matching gives data {} and stockPrice 0', async () => {
    const exps = Object.keys(oracle.skew('SPY', close(), all).data).sort();
    const cases: [Record<string, unknown>, (l: OracleLeg) => boolean][] = [
      [{ contractTypes: ['PUT'] }, (l) => l.right === 'PUT'],
      [{ contractType: 'CALL', expirationDate: exps[1] }, (l) => l.right === 'CALL' && l.expiration === exps[1]],
      [{ expirationDateRange: { startDate: exps[0], endDate: exps[2] } }, (l) => l.expiration >= exps[0]! && l.expiration <= exps[2]!],
    ];
    for (const [f, keep] of cases) {
      const res = await api.post(SK, { filter: { ticker: 'SPY', ...f }, sessionDate: D });
      const expected = oracle.skew('SPY', close(), keep);
      expect(Object.keys(expected.data).length).toBeGreaterThan(0);
      expect(res.json).toEqual(expected);
    }
    const none = await api.post(SK, { filter: { ticker: 'SPY', expirationDate: '2099-01-16' }, sessionDate: D });
    expect(none.status).toBe(200);
    expect(none.json).toEqual({ stockPrice: 0, data: {} });
  });
});

/** The session's prints of SPY before `ms`, summed per contract: NET_PREMIUM (dollars), NET_TRADE_COUNT, NET_VOLUME. */
function printOracle(ms: number, mode: string, keep: (p: EnrichedPrintEvent) => boolean) {
  const sums = new Map<string, { exp: string; strike: number; right: 'CALL' | 'PUT'; v: number }>();
  for (const p of PRINTS) {
    if (p.tradeTime >= ms || p.sessionDate !== sessionDateOf(ms) || !keep(p)) continue;
    const k = `${p.expirationDate}|${p.strikePrice}|${p.contractType}`;
    const s = sums.get(k) ?? { exp: p.expirationDate, strike: p.strikePrice, right: p.contractType, v: 0 };
    sums.set(k, s);
    s.v += mode === 'NET_PREMIUM' ? premiumCents(p.premium) : mode === 'NET_TRADE_COUNT' ? 1 : p.size;
  }
  const data: Record<string, Record<string, { callValue?: number; putValue?: number }>> = {};
  for (const s of sums.values())
    ((data[s.exp] ??= {})[strikeText(s.strike)] ??= {})[s.right === 'CALL' ? 'callValue' : 'putValue'] = mode === 'NET_PREMIUM' ? s.v / 100 : s.v;
  return data;
}

/** The brute-force data of one heat-map mode at snapshot `ms`. */
function heatOracle(mode: string, ms: number, keep: (l: { right: 'CALL' | 'PUT'; strike: number; expiration: string }) => boolean) {
  const exposure = /^NET_(\w+)_EXPOSURE$/.exec(mode);
  if (exposure) {
    const m = oracle.exposure('SPY', ms, exposure[1] as (typeof GREEK_MODES)[number], 'RAW', (l) => keep(l)).exposureMap;
    return Object.fromEntries(
      Object.entries(m).map(([exp, strikes]) => [
        exp,
        Object.fromEntries(
          Object.entries(strikes).map(([k, c]) => [
            k,
            { ...(c.callExposure !== undefined && { callValue: c.callExposure }), ...(c.putExposure !== undefined && { putValue: c.putExposure }) },
          ]),
        ),
      ]),
    );
  }
  if (mode === 'NET_OPEN_INTEREST') return oracle.heatOpenInterest('SPY', sessionDateOf(ms), keep);
  if (mode.startsWith('NET_')) return printOracle(ms, mode, (p) => keep({ right: p.contractType, strike: p.strikePrice, expiration: p.expirationDate }));
  const [, right, quantity] = /^(CALL|PUT)_(\w+)$/.exec(mode)!;
  return oracle.heatLeg('SPY', ms, right as 'CALL' | 'PUT', quantity!, keep);
}

/** Compares key sets and values exactly, as served; the keys' order is checked by expectOrdered. */
function expectSameMap(actual: Record<string, Record<string, unknown>>, expected: Record<string, Record<string, unknown>>) {
  expect(actual).toEqual(asServed(expected));
}

describe('heat-map', () => {
  it('lists the 46 documented modes', () => {
    expect(HEAT_MAP_MODES).toHaveLength(46);
    expect(LEG_QUANTITIES).toHaveLength(19);
  });

  it('answers every mode as the brute force does at an intraday snapshot', async () => {
    for (const mode of HEAT_MAP_MODES) {
      const res = await api.post(HM, { filter: { ticker: 'SPY' }, dataMode: mode, snapshotTime: just(mid()) });
      expect({ mode, status: res.status }).toEqual({ mode, status: 200 });
      const expected = heatOracle(mode, mid(), all);
      expect({ mode, n: Object.keys(expected).length > 0 }).toEqual({ mode, n: true });
      expect(res.json.type).toBe(mode.startsWith('NET_') ? 'contract' : 'single');
      expectSameMap(res.json.data, expected);
      expectOrdered(res.json.data);
    }
  });

  it('answers the flow, open-interest and exposure modes at the end-of-day snapshot', async () => {
    for (const mode of ['NET_PREMIUM', 'NET_TRADE_COUNT', 'NET_VOLUME', 'NET_OPEN_INTEREST', 'NET_DELTA_EXPOSURE', 'PUT_THETA']) {
      const res = await api.post(HM, { filter: { ticker: 'SPY' }, dataMode: mode, sessionDate: D });
      expect(res.status).toBe(200);
      expectSameMap(res.json.data, heatOracle(mode, close(), all));
    }
  });

  it('agrees with exposure-by-strike (RAW): NET_*_EXPOSURE cells are its cells, legs renamed', async () => {
    for (const greek of GREEK_MODES)
      for (const sel of [{ sessionDate: D }, { snapshotTime: just(mid()) }]) {
        const [hm, ex] = await Promise.all([
          api.post(HM, { filter: { ticker: 'SPY' }, dataMode: `NET_${greek}_EXPOSURE`, ...sel }),
          api.post(EX, { filter: { ticker: 'SPY' }, greekMode: greek, representationMode: 'RAW', ...sel }),
        ]);
        const renamed = JSON.parse(
          JSON.stringify(ex.json.data.SPY.exposureMap)
            .replace(/"callExposure"/g, '"callValue"')
            .replace(/"putExposure"/g, '"putValue"'),
        );
        expect(Object.keys(renamed).length).toBeGreaterThan(1);
        expect(hm.json).toEqual({ type: 'contract', data: renamed });
      }
  });

  it("agrees with term-structure: CALL_DELTA and PUT_IMPLIED_VOLATILITY are its legs' delta and iv", async () => {
    const [ts, delta, iv, sigma] = await Promise.all([
      api.post(TS, { filter: { ticker: 'SPY' }, sessionDate: D }),
      api.post(HM, { filter: { ticker: 'SPY' }, dataMode: 'CALL_DELTA', sessionDate: D }),
      api.post(HM, { filter: { ticker: 'SPY' }, dataMode: 'PUT_IMPLIED_VOLATILITY', sessionDate: D }),
      api.post(HM, { filter: { ticker: 'SPY' }, dataMode: 'PUT_SIGMA', sessionDate: D }),
    ]);
    const leg = (right: 'CALL' | 'PUT', f: 'delta' | 'iv') => {
      const out: Record<string, Record<string, { value: number }>> = {};
      for (const [exp, strikes] of Object.entries(ts.json.data as Record<string, Record<string, Record<string, { delta: number; iv: number }>>>))
        for (const [k, legs] of Object.entries(strikes)) if (legs[right]) (out[exp] ??= {})[k] = { value: legs[right][f] };
      return out;
    };
    expect(delta.json.data).toEqual(leg('CALL', 'delta'));
    expect(iv.json.data).toEqual(leg('PUT', 'iv'));
    expect(sigma.json.data).toEqual(iv.json.data);
  });

  it('applies expirations, strikes and filterExpression to every source', async () => {
    const spot = oracle.spotAt('SPY', mid())!;
    const exps = Object.keys(heatOracle('NET_VOLUME', mid(), all)).sort();
    const lo = Math.round(spot * 0.98);
    const hi = Math.round(spot * 1.02);
    const cases: [Record<string, unknown>, unknown, (l: { right: 'CALL' | 'PUT'; strike: number; expiration: string }) => boolean][] = [
      [{ expirationDates: exps.slice(0, 2) }, null, (l) => exps.slice(0, 2).includes(l.expiration)],
      [{ strikePriceRange: { min: lo, max: hi } }, null, (l) => l.strike >= lo && l.strike <= hi],
      [
        { expirationDateRange: { startDate: exps[0], endDate: exps[2] } },
        {
          conjunction: 'OR',
          filters: [
            { field: 'CONTRACT_TYPE', operation: 'EQ', value: 'CALL' },
            { field: 'STRIKE', operation: '<', value: lo },
          ],
        },
        (l) => l.expiration >= exps[0]! && l.expiration <= exps[2]! && (l.right === 'CALL' || l.strike < lo),
      ],
      [
        { strikePrices: [lo, hi] },
        { field: 'EXPIRATION_DATE', operation: 'NEQ', value: exps[0] },
        (l) => (l.strike === lo || l.strike === hi) && l.expiration !== exps[0],
      ],
    ];
    for (const [f, expr, keep] of cases)
      for (const mode of ['NET_VOLUME', 'NET_PREMIUM', 'NET_OPEN_INTEREST', 'NET_GAMMA_EXPOSURE', 'CALL_VEGA', 'PUT_ASK_PRICE']) {
        const res = await api.post(HM, {
          filter: { ticker: 'SPY', ...f },
          dataMode: mode,
          snapshotTime: just(mid()),
          ...(expr ? { filterExpression: expr } : {}),
        });
        expect({ mode, f, status: res.status }).toEqual({ mode, f, status: 200 });
        expectSameMap(res.json.data, heatOracle(mode, mid(), keep));
      }
  });
});

describe('the four ticker spellings', () => {
  it('ticker and tickers, scalar or list, give the same answer on each endpoint', async () => {
    const bodies: [string, Record<string, unknown>][] = [
      [EE, { greekMode: 'GAMMA', representationMode: 'RAW', sessionDate: D }],
      [SK, { sessionDate: D }],
      [HM, { dataMode: 'NET_VOLUME', sessionDate: D }],
    ];
    for (const [path, rest] of bodies) {
      const answers = [];
      for (const filter of [{ ticker: 'SPY' }, { ticker: ['SPY'] }, { tickers: 'SPY' }, { tickers: ['SPY'] }]) {
        const res = await api.post(path, { ...rest, filter });
        expect(res.status).toBe(200);
        answers.push(res.json);
      }
      expect(JSON.stringify(answers[0].data)).not.toBe('{}');
      for (const a of answers) expect(a).toEqual(answers[0]);
    }
  });
});

describe('unavailable data', () => {
  it('is a 422 underlying-price-unavailable without a usable underlying price, on each endpoint', async () => {
    const bodies: [string, Record<string, unknown>][] = [
      [EE, { greekMode: 'GAMMA', representationMode: 'RAW' }],
      [SK, {}],
      [HM, { dataMode: 'NET_PREMIUM' }],
      [HM, { dataMode: 'CALL_GAMMA' }],
      [HM, { dataMode: 'NET_DELTA_EXPOSURE' }],
    ];
    for (const [path, rest] of bodies)
      for (const sel of [
        { filter: { ticker: 'NVDA' }, sessionDate: D },
        { filter: { ticker: 'SPY' }, sessionDate: '2026-11-23' },
      ]) {
        const res = await api.post(path, { ...rest, ...sel });
        expect(res.status).toBe(422);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.json).toMatchObject({ status: 422, category: 'data-unavailable', code: 'UnderlyingPriceUnavailable' });
        expect(res.json.detail).toContain(sel.filter.ticker);
      }
  });
});

describe('validation', () => {
  const base = {
    [EE]: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'RAW' },
    [SK]: { filter: { ticker: 'SPY' } },
    [HM]: { filter: { ticker: 'SPY' }, dataMode: 'NET_GAMMA_EXPOSURE' },
  };
  const cases: [string, Record<string, unknown>, string, RegExp?][] = [
    [EE, { filter: undefined }, 'filter', /required/],
    [EE, { filter: {} }, 'filter.ticker', /required/],
    [EE, { greekMode: undefined }, 'greekMode', /required/],
    [EE, { greekMode: 'THETA' }, 'greekMode'],
    [EE, { representationMode: undefined }, 'representationMode', /required/],
    [EE, { representationMode: 'PER_TWO_DOLLARS' }, 'representationMode'],
    [EE, { filter: { ticker: 'SPY', moneyTypes: ['ATM'] } }, 'filter.moneyTypes', /not a filter/],
    [EE, { filter: { ticker: 'SPY', strikePrices: [600], strikePriceRange: { min: 1 } } }, 'filter.strikePriceRange', /mutually exclusive/],
    [
      EE,
      { filter: { ticker: 'SPY', expirationDates: ['2026-12-18'], expirationDateRange: { startDate: '2026-12-01' } } },
      'filter.expirationDateRange',
      /mutually exclusive/,
    ],
    [EE, { filter: { ticker: 'SPY', strikePriceRange: { min: 700, max: 600 } } }, 'filter.strikePriceRange', /greater/],
    [EE, { filter: { ticker: 'SPY', expirationDates: ['next friday'] } }, 'filter.expirationDates[0]'],
    [EE, { filterExpression: { field: 'PREMIUM', operation: 'GT', value: 1 } }, 'filterExpression.field', /not a filterable field/],
    [EE, { timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } }, 'timeRange', /not accepted/],
    [EE, { sessionDate: D, snapshotTime: '2026-11-20T15:00:00Z' }, 'snapshotTime', /mutually exclusive/],
    [EE, { sessionDate: '2026-11-21' }, 'sessionDate', /not an NYSE trading session/],
    [SK, { filter: { ticker: ['SPY', 'QQQ'] } }, 'filter.ticker', /exactly one/],
    [SK, { filter: { contractTypes: ['CALL'] } }, 'filter.ticker', /required/],
    [SK, { filter: { ticker: 'SPY', contractTypes: ['STRADDLE'] } }, 'filter.contractTypes[0]', /contract type/],
    [SK, { filter: { ticker: 'SPY', strikePrices: [600] } }, 'filter.strikePrices', /not a filter/],
    [SK, { filter: { ticker: 'SPY', moneyTypes: ['ATM'] } }, 'filter.moneyTypes', /not a filter/],
    [
      SK,
      { filter: { ticker: 'SPY', expirationDate: '2026-12-18', expirationDateRange: { endDate: '2027-01-01' } } },
      'filter.expirationDateRange',
      /mutually exclusive/,
    ],
    [SK, { filterExpression: { field: 'CONTRACT_TYPE', operation: 'EQ', value: 'PUT' } }, 'filterExpression', /not accepted/],
    [SK, { snapshotTime: 'noon' }, 'snapshotTime'],
    [SK, { aggregationPeriod: '5m' }, 'aggregationPeriod', /not accepted/],
    [HM, { dataMode: undefined }, 'dataMode', /required/],
    [HM, { dataMode: 'NET_THETA_EXPOSURE' }, 'dataMode'],
    [HM, { filter: {} }, 'filter.ticker', /required/],
    [HM, { filter: { ticker: ['SPY', 'QQQ'] } }, 'filter.ticker', /exactly one/],
    [HM, { filter: { ticker: 'SPY', moneyTypes: ['ATM'] } }, 'filter.moneyTypes', /not a filter/],
    [HM, { filter: { ticker: 'SPY', contractTypes: ['CALL'] } }, 'filter.contractTypes', /not a filter/],
    [HM, { filter: { ticker: 'SPY', strikePrices: [600], strikePriceRange: { max: 700 } } }, 'filter.strikePriceRange', /mutually exclusive/],
    [HM, { filterExpression: { field: 'MONEY_TYPE', operation: 'EQ', value: 'ATM' } }, 'filterExpression.field', /not a filterable field/],
    [HM, { filterExpression: { field: 'STRIKE_PRICE', operation: 'LIKE', value: 1 } }, 'filterExpression.operation'],
    [HM, { greekMode: 'GAMMA' }, 'greekMode'],
    [HM, { timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } }, 'timeRange', /not accepted/],
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
    for (const def of [exposureByExpiration, volatilitySkew, heatMap]) {
      expect(Object.keys(def.examples).length).toBeGreaterThanOrEqual(2);
      for (const ex of Object.values(def.examples)) {
        const res = await api.post(`/v1${def.path}`, ex.request);
        expect({ path: def.path, status: res.status }).toEqual({ path: def.path, status: 200 });
        expect(JSON.stringify(res.json.data)).not.toBe('{}');
      }
    }
  });
});
