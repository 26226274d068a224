import crypto from 'crypto';
import zlib from 'zlib';
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { PROFILES } from '../../ingest/simulator/profiles';
import { enrichPrint, sentimentOf, tradeSideOf, type RawPrint } from '../../projections/enrich/enrich-print';
import { OrderFlowPartition } from '../../projections/order-flow-processor/partition-state';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { optionExpiryMs } from '../../services/domain/calendar';
import { TRADE_SIDES, isConsolidatedRow, openInterestFlags, type ConsolidatedTradeEvent, type OptionPrint } from '../../services/domain/order-flow';
import { upgradeOrderFlowEvent } from '../../services/domain/order-flow-upgrade';
import { bsmGreeks } from '../../services/domain/pricing';
import { RISK_FREE_RATE, dividendYield } from '../../services/domain/rates';
import { partitionOf } from '../../services/kafka/partition';
import { decodeRow, encodeRow, type OrderFlowConsolidatedRow, type OrderFlowPrintRow, type OrderFlowRow } from '../../services/views/order-flow';
import { createOrderFlowWarmCodec, orderFlowWarmBlockStats, orderFlowWarmCodec, type OrderFlowWarmCodec } from '../../services/views/order-flow/warm-codec';
import { expectedConsolidatedRows, expectedPrintRows, orderFlowFixture } from '../support/order-flow-data';
import { sampleOpenInterest } from '../support/order-flow-sample';

/**
 * The warm tier's block codec of the order-flow views (services/views/order-flow/warm-codec.ts).
 * What must hold: a block decodes to exactly the rows the hot tier's codec gives back,
 * decodeRow(encodeRow(row)) — same keys in the same order, every number bit for bit — whatever
 * the rows hold: derivable fields are derived, anything else is stored explicitly; a block
 * decodes the same whatever the configuration when it is read; realistic blocks are small.
 */

const DATE = '2026-11-19';
/** As the hot tier stores rows; a block goes through MessagePack too (then brotli). */
const packr = new Packr({ useRecords: false });
const codecs: [string, OrderFlowWarmCodec][] = [
  ['the default codec (implied volatility stored)', orderFlowWarmCodec],
  ['implied volatility derived', createOrderFlowWarmCodec({ deriveImpliedVolatility: true })],
];

/** The row as the hot tier gives it back: what a warm block must decode to. */
const reference = (r: OrderFlowRow) => decodeRow(encodeRow(r), r.rowKey, r.sessionDate);

/** Where two values differ (keys, their order, or a number's bits), or null. */
function difference(a: unknown, b: unknown, path = 'row'): string | null {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !ArrayBuffer.isView(a)) {
    if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array against object`;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join('|') !== kb.join('|')) return `${path}: keys [${ka}] against [${kb}]`;
    for (const k of ka) {
      const d = difference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${path}: ${String(a)} (${typeof a}) against ${String(b)} (${typeof b})`;
}

/** Packs, stores as MessagePack, reads back and unpacks, as the warm tier does. */
function roundTrip(codec: OrderFlowWarmCodec, rows: readonly OrderFlowRow[], sessionDate = rows[0]?.sessionDate ?? DATE): OrderFlowRow[] {
  return codec.unpack(packr.unpack(packr.pack(codec.pack(rows))), sessionDate);
}

/** Asserts a block of rows decodes to exactly their references, row for row. */
function expectExactRoundTrip(codec: OrderFlowWarmCodec, rows: readonly OrderFlowRow[]): void {
  const back = roundTrip(codec, rows);
  expect(back).toHaveLength(rows.length);
  const diffs: string[] = [];
  for (let i = 0; i < rows.length && diffs.length < 3; i++) {
    const d = difference(back[i], reference(rows[i]), `rows[${i}]`);
    if (d) diffs.push(d);
  }
  expect(diffs).toEqual([]);
}

/** Rows of one ticker in (tradeTime, rowKey) order, cut into blocks of `size`. */
function blocksOf<R extends OrderFlowRow>(rows: readonly R[], size: number): R[][] {
  const byTicker = new Map<string, R[]>();
  for (const r of rows) {
    const list = byTicker.get(r.ticker) ?? [];
    list.push(r);
    byTicker.set(r.ticker, list);
  }
  const out: R[][] = [];
  for (const list of byTicker.values()) {
    list.sort((a, b) => a.tradeTime - b.tradeTime || (a.rowKey < b.rowKey ? -1 : a.rowKey > b.rowKey ? 1 : 0));
    for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  }
  return out;
}

// ---- realistic rows: the simulator's prints through the processor's own fold ------------------

const market = new SimulatedMarket(42, PROFILES.dev);
// Busy names (blocks of realistic size), an index and a dividend payer.
const symbols = new Set(['SPY', 'QQQ', 'SPX', 'TSLA', 'NVDA', 'AAPL', 'XOM']);
const openInterest = new Map(sampleOpenInterest(market, DATE, symbols).map((o) => [o.osi, o.openInterest]));

/**
 * The first `limit` option prints of the session, enriched and consolidated by the processor's
 * fold (OrderFlowPartition) priced at `rate`; open interest joined as the projectors join it.
 */
function simulatedRows(rate: number, limit: number): { prints: OrderFlowPrintRow[]; consolidated: OrderFlowConsolidatedRow[] } {
  const offsets: number[] = new Array(MARKET_PARTITIONS).fill(0);
  const parts = new Map<number, OrderFlowPartition>();
  const prints: OrderFlowPrintRow[] = [];
  const latest = new Map<string, ConsolidatedTradeEvent>();
  const tick = market.session(DATE, 'tick', symbols);
  for (let k = 0; k < tick.chunks && prints.length < limit; k++) {
    for (const e of tick.chunk(k)) {
      if (e.type !== 'option-print' || prints.length >= limit) continue;
      const raw = e.data as unknown as OptionPrint;
      const inst = market.bySymbol.get(raw.ticker)!;
      const p = partitionOf(raw.ticker, MARKET_PARTITIONS);
      if (!parts.has(p)) parts.set(p, new OrderFlowPartition(p, rate));
      const out = parts.get(p)!.apply(raw, offsets[p]++, inst);
      const { printId, rowFormat, ...row } = out.enriched;
      prints.push({ ...row, ...openInterestFlags(row, openInterest.get(row.osi) ?? 0) });
      latest.set(out.consolidated.rowKey, out.consolidated);
    }
  }
  const consolidated: OrderFlowConsolidatedRow[] = [];
  for (const c of latest.values()) {
    const { comprisingTrades, version, rowFormat, tradeConsolidationType, ...row } = c;
    if (isConsolidatedRow(tradeConsolidationType))
      consolidated.push({ ...row, tradeConsolidationType, ...openInterestFlags(row, openInterest.get(row.osi) ?? 0) });
  }
  return { prints, consolidated };
}

const sim = simulatedRows(RISK_FREE_RATE, 6_000);
/** The same prints priced at another rate than any the codec tries. */
const otherRate = simulatedRows(0.0525, 1_000);

describe('the simulated session', () => {
  it('has both tapes, null and derivable implied volatility, and the cases the codec must survive', () => {
    expect(sim.prints.length).toBe(6_000);
    expect(sim.consolidated.length).toBeGreaterThan(100);
    expect(sim.prints.filter((r) => r.impliedVolatility === null).length).toBeGreaterThan(100);
    expect(sim.prints.filter((r) => r.greeks !== null).length).toBeGreaterThan(3_000);
    expect(new Set(sim.consolidated.map((r) => r.tradeConsolidationType))).toEqual(new Set(['SWEEP', 'SPLIT', 'BLOCK']));
    expect(sim.consolidated.some((r) => r.size > 0 && r.optionPrice !== r.premium / r.size / 100)).toBe(true);
    expect(sim.prints.some((r) => r.openInterest > 0)).toBe(true);
  });
});

describe.each(codecs)('warm blocks, %s', (_, codec) => {
  it('every block of 256 simulated print rows decodes to exactly the hot tier rows', () => {
    for (const b of blocksOf(sim.prints, 256)) expectExactRoundTrip(codec, b);
  });

  it('every block of simulated consolidated rows (128, 512) decodes exactly', () => {
    for (const b of [...blocksOf(sim.consolidated, 128), ...blocksOf(sim.consolidated, 512)]) expectExactRoundTrip(codec, b);
  });

  it('derives every derivable field of simulated rows: nothing but implied volatility (when kept) is stored explicitly', () => {
    const ivDerived = codec !== orderFlowWarmCodec;
    for (const b of [...blocksOf(sim.prints, 256), ...blocksOf(sim.consolidated, 256)]) {
      const stats = orderFlowWarmBlockStats(codec.pack(b));
      const { impliedVolatility = 0, premium = 0, optionPrice = 0, ...rest } = stats.explicit;
      expect(rest).toEqual({});
      const withIv = b.filter((r) => r.impliedVolatility !== null).length;
      if ('tradeConsolidationType' in b[0]) {
        // A trade's volatility is its first print's, solved from the mid or from that print's
        // price, which the row does not hold when it is an average: those few are kept.
        expect(impliedVolatility).toBeLessThanOrEqual(ivDerived ? Math.ceil(b.length / 10) : withIv);
        // A trade's premium is a sum and its price an average: either may be a double that is no cents.
        expect(premium + optionPrice).toBeLessThanOrEqual(b.length);
      } else {
        expect(impliedVolatility).toBe(ivDerived ? 0 : withIv);
        expect(premium + optionPrice).toBe(0);
      }
    }
  });

  it('rows priced at another rate keep their greeks and implied volatility explicitly, exactly', () => {
    const blocks = blocksOf(otherRate.prints, 256);
    for (const b of blocks) {
      expectExactRoundTrip(codec, b);
      const withGreeks = b.filter((r) => r.greeks !== null).length;
      expect(orderFlowWarmBlockStats(codec.pack(b)).explicit.greeks ?? 0).toBe(withGreeks);
    }
    // One block mixing both rates: the rate of its first row with greeks is the block's; the others are explicit.
    const mixed = blocksOf(
      sim.prints.slice(0, 1_000).map((r, i) => (i % 2 ? otherRate.prints[i] : r)),
      400,
    )[0];
    expectExactRoundTrip(codec, mixed);
    const explicit = orderFlowWarmBlockStats(codec.pack(mixed)).explicit.greeks ?? 0;
    expect(explicit).toBeGreaterThan(0);
    expect(explicit).toBeLessThan(mixed.filter((r) => r.greeks !== null).length);
  });

  it('a block of one row, and an empty block', () => {
    for (const r of [sim.prints[0], sim.prints.find((x) => x.greeks !== null)!, sim.consolidated[0]]) expectExactRoundTrip(codec, [r]);
    expect(roundTrip(codec, [])).toEqual([]);
  });

  it('rows of layout 1 (upgraded on decode: greeks and moneyness recomputed, trade types mapped) round-trip exactly', () => {
    // Trade types layout 1 could not tell apart read back as another type.
    const lossy = ['AUCT_ISO', 'TIED_FLR', 'MULTI_CROSS'] as const;
    const stored = [...sim.prints.slice(0, 300), ...sim.consolidated.slice(0, 100)].map((r, i) => (i % 5 ? r : { ...r, tradeType: lossy[i % 3] }));
    const upgraded = stored.map((r) => decodeRow(layout1(r), r.rowKey, r.sessionDate));
    expect(upgraded.filter((r, i) => r.tradeType !== stored[i].tradeType).length).toBe(80);
    for (const b of [...blocksOf(upgraded.slice(0, 300), 256), ...blocksOf(upgraded.slice(300), 256)]) expectExactRoundTrip(codec, b);
  });

  it('expired and expiring prints (dte zero or negative: no implied volatility, degenerate greeks) and prices that are no cents', () => {
    const rows = edgePrints();
    expect(rows.some((r) => r.dte === 0) && rows.some((r) => r.dte < 0)).toBe(true);
    expect(rows.some((r) => Math.round(r.optionPrice * 100) / 100 !== r.optionPrice)).toBe(true);
    expect(rows.some((r) => r.greeks !== null && r.dte <= 0 && r.greeks.gamma === 0)).toBe(true);
    expectExactRoundTrip(codec, rows);
    expect(orderFlowWarmBlockStats(codec.pack(rows)).explicit.greeks ?? 0).toBe(0);
  });

  it('odd values: -0, NaN, infinities, huge integers, non-OSI symbols, non-UUID ids, unusual strings, keys outside the dictionaries', () => {
    const base = sim.prints.find((r) => r.greeks !== null)!;
    const odd: OrderFlowPrintRow[] = [
      { ...base, rowKey: 'not-a-row-key', id: 'NOT-A-UUID', osi: 'weird osi ✓', sector: 'Ünïcode sector 🚀', industry: '', exchange: 'X\u0000Y' },
      { ...base, rowKey: '9900000001', id: base.id.toUpperCase(), dte: -0, premium: -0, stockPrice: 1e-300, bidPrice: -0.015, askPrice: Infinity },
      { ...base, rowKey: '99zzzzzzzz', tradeTime: 2 ** 53 - 1, volume: 2 ** 53 - 1, openInterest: 2 ** 40, size: 2.5, impliedVolatility: NaN },
      { ...base, rowKey: '990000000a', tradeTime: 1.5, size: 0, premium: 0, optionPrice: 0, greeks: { ...base.greeks!, rho: -0, gamma: NaN, delta: 5e-324 } },
      { ...base, rowKey: '990000000b', tradeType: 'SOMETHING_NEW' as never, tradeSideCode: 'NOWHERE' as never, sentimentType: 'MIXED' as never },
      {
        ...base,
        rowKey: '990000000c',
        contractType: 'PUT',
        strikePrice: 123.456,
        expirationDate: '2026-13-45',
        moneyness: { degree: -0, degreeInPercent: NaN, moneyType: 'DEEP' as never },
      },
      { ...base, rowKey: '990000000d', isETF: 1 as never, isIndex: 0 as never, ticker: 'OTHER' },
      { ...base, rowKey: '990000000f', ticker: 'constructor' },
      { ...base, rowKey: '990000000e', id: base.id.replace(/-/g, ''), bidAskSpread: 0.1 + 0.2, volume: -3, openInterest: -0 },
    ];
    expectExactRoundTrip(codec, odd);
    for (const r of odd) expectExactRoundTrip(codec, [r]);
    // A ticker named like a member of Object is priced with no dividend, as any unknown ticker.
    const g = bsmGreeks({
      right: base.contractType,
      spot: base.stockPrice,
      strike: base.strikePrice,
      t: base.dte / 365,
      rate: RISK_FREE_RATE,
      dividend: 0,
      vol: base.impliedVolatility!,
    });
    const constructorRow = { ...base, ticker: 'constructor', greeks: g };
    expectExactRoundTrip(codec, [constructorRow]);
    expect(orderFlowWarmBlockStats(codec.pack([constructorRow])).explicit).not.toHaveProperty('greeks');
    const consolidated = sim.consolidated[0];
    expectExactRoundTrip(codec, [
      { ...consolidated, isGoldenSweep: !consolidated.isGoldenSweep, lastTradeTime: 0.5 },
      { ...consolidated, rowKey: '9900000000', tradeConsolidationType: 'MEGA' as never, lastTradeTime: -1, premium: 2_000_000, tradeSideCode: 'ASK' },
    ]);
  });

  it('rows whose greeks are not a function of the row at all (the view tests fixture)', () => {
    const f = orderFlowFixture({ sessions: [DATE], printsPerSession: 600, seed: 9 });
    for (const b of [...blocksOf(expectedPrintRows(f), 256), ...blocksOf(expectedConsolidatedRows(f), 256)]) expectExactRoundTrip(codec, b);
  });

  it('property: any block of mutated rows decodes to exactly the hot tier rows', () => {
    const bases = [...sim.prints.slice(0, 200), ...sim.consolidated.slice(0, 50)];
    const num = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(-0, 0, NaN, Infinity, -Infinity, 0.1, 1.005, 2 ** 53, -(2 ** 31), 5e-324),
      fc.integer({ min: -1_000_000, max: 1_000_000 }).map((c) => c / 100),
    );
    const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom('SPY', 'CBOE', 'AUTO', 'ASK', 'CALL', 'PUT', 'SWEEP', ''));
    const mutation = fc.record(
      {
        rowKey: fc.oneof(
          text,
          fc.nat({ max: 36 ** 8 - 1 }).map((n) => `07${n.toString(36).padStart(8, '0')}`),
        ),
        id: fc.oneof(fc.uuid(), text),
        osi: text,
        ticker: text,
        contractType: text,
        strikePrice: num,
        expirationDate: fc.oneof(text, fc.constantFrom('2026-11-20', '2026-11-19', '2025-01-17')),
        dte: num,
        premium: num,
        size: num,
        volume: num,
        stockPrice: num,
        askPrice: num,
        bidPrice: num,
        bidAskSpread: num,
        optionPrice: num,
        impliedVolatility: fc.oneof(num, fc.constant(null)),
        greeks: fc.oneof(fc.constant(null), fc.array(num, { minLength: 15, maxLength: 15 })),
        moneyness: fc.tuple(num, num, text),
        tradeSideCode: fc.oneof(text, fc.constantFrom(...TRADE_SIDES)),
        sentimentType: text,
        tradeType: text,
        isETF: fc.boolean(),
        isIndex: fc.boolean(),
        sector: text,
        industry: text,
        exchange: text,
        tradeTime: num,
        openInterest: num,
        tradeConsolidationType: text,
        isGoldenSweep: fc.boolean(),
        lastTradeTime: num,
      },
      { requiredKeys: [] },
    );
    const row = fc.tuple(fc.nat({ max: bases.length - 1 }), mutation).map(([k, m]) => mutate(bases[k], m));
    fc.assert(
      fc.property(fc.boolean(), fc.array(row, { minLength: 1, maxLength: 40 }), (consolidated, rows) => {
        const block = rows.filter((r) => 'tradeConsolidationType' in r === consolidated);
        if (!block.length) return;
        expectExactRoundTrip(codec, block);
      }),
      { numRuns: 300, seed: 35 },
    );
  });
});

/** A row with some fields replaced (greeks and moneyness given as their values in order). */
function mutate(base: OrderFlowRow, m: Record<string, unknown>): OrderFlowRow {
  const r: Record<string, unknown> = { ...base, sessionDate: DATE };
  for (const [k, v] of Object.entries(m)) {
    if (k === 'greeks')
      r.greeks = v && Object.fromEntries(Object.keys(base.greeks ?? sim.prints.find((x) => x.greeks)!.greeks!).map((n, i) => [n, (v as number[])[i]]));
    else if (k === 'moneyness') r.moneyness = { degree: (v as unknown[])[0], degreeInPercent: (v as unknown[])[1], moneyType: (v as unknown[])[2] };
    else if (['tradeConsolidationType', 'isGoldenSweep', 'lastTradeTime'].includes(k)) {
      if ('tradeConsolidationType' in base) r[k] = v;
    } else r[k] = v;
  }
  return r as unknown as OrderFlowRow;
}

/** A row as layout 1 stored it (row-codec's earlier layout): seven greeks, moneyness as a fraction, old trade-type names. */
function layout1(r: OrderFlowRow): Buffer {
  const a = packr.unpack(encodeRow(r)) as unknown[];
  a.pop();
  const g = r.greeks;
  a[16] = g && [g.delta, g.gamma, g.theta, g.vega, g.rho, g.charm, g.vanna];
  const signed = (r.contractType === 'CALL' ? r.stockPrice - r.strikePrice : r.strikePrice - r.stockPrice) / r.strikePrice;
  a[17] = [signed, signed * 100, ['ATM', 'ITM', 'OTM'].indexOf(r.moneyness.moneyType)];
  const legacy: Record<string, string> = { AUTO: 'ELECTRONIC', ISO: 'INTERMARKET_SWEEP', AUCT: 'AUCTION', CROSS: 'CROSS', MULTI_AUTO: 'MULTI_LEG' };
  a[20] = ['ELECTRONIC', 'AUCTION', 'INTERMARKET_SWEEP', 'CROSS', 'MULTI_LEG', 'OTHER'].indexOf(legacy[r.tradeType] ?? 'OTHER');
  return packr.pack(a);
}

/** Prints at, after and just before their contract's expiry, and at prices that are no cents, enriched as the processor does. */
function edgePrints(): OrderFlowPrintRow[] {
  const expiry = optionExpiryMs('2026-11-20');
  const osi = 'SPY   261120C00600000';
  const ctx = {
    volumeBefore: 0,
    sector: 'NOT_APPLICABLE',
    industry: 'NOT_APPLICABLE',
    isETF: true,
    isIndex: false,
    rate: RISK_FREE_RATE,
    dividend: dividendYield('SPY'),
  };
  const cases: Partial<RawPrint>[] = [
    { time: expiry },
    { time: expiry + 60_000 },
    { time: expiry + 86_400_000 * 3, underlyingPrice: 590 },
    { time: expiry - 1 },
    { time: expiry - 60_000, price: 1.2345, bidPrice: 1.2, askPrice: 1.3 },
    { time: expiry - 3_600_000, underlyingPrice: 600.005, price: 0.105 },
    { time: expiry - 7_200_000, price: 0.001, bidPrice: 0, askPrice: 0.01 },
    { time: expiry - 86_400_000, osi: 'SPY   261120P00600000', underlyingPrice: 612.3 },
  ];
  const rows: OrderFlowPrintRow[] = cases.map((c, i) => {
    const raw: RawPrint = {
      id: `edge-${i}`,
      osi,
      ticker: 'SPY',
      time: expiry,
      price: 2.5,
      size: 3,
      exchange: 'CBOE',
      conditions: ['AUTO'],
      bidPrice: 2.4,
      askPrice: 2.6,
      underlyingPrice: 601.5,
      ...c,
    };
    const { printId, rowFormat, ...row } = enrichPrint(raw, { partition: 11, offset: 1_000 + i }, { ...ctx, volumeBefore: i * 10 });
    // The expiry lies in the next session for some of these: one block is one session.
    return { ...row, sessionDate: DATE, ...openInterestFlags(row, 7) };
  });
  // The processor gives no volatility at or after expiry; an upgraded layout-1 row with one has
  // the greeks of expiry (zero but for delta and omega), priced with dte clamped to 0.
  const expired = rows.filter((r) => r.dte <= 0).map((r) => upgradeOrderFlowEvent({ ...r, impliedVolatility: 0.31, rowFormat: 1 }, RISK_FREE_RATE));
  return [...rows, ...expired.map(({ rowFormat, ...r }, i) => ({ ...r, rowKey: `12${String(i).padStart(8, '0')}` }))];
}

describe('a block is self-contained', () => {
  it('decodes the same when the configured rate changes after packing (the rate is in the block)', () => {
    const b = blocksOf(sim.prints, 256)[0];
    const stored = packr.pack(orderFlowWarmCodec.pack(b));
    const before = process.env.MDQ_RISK_FREE_RATE;
    process.env.MDQ_RISK_FREE_RATE = '0.0525';
    try {
      const back = orderFlowWarmCodec.unpack(packr.unpack(stored), DATE);
      b.forEach((r, i) => expect(difference(back[i], reference(r))).toBeNull());
      // Packed now, rows priced at the configured rate derive their greeks, the others are explicit.
      expect(orderFlowWarmBlockStats(orderFlowWarmCodec.pack(blocksOf(otherRate.prints, 256)[0])).explicit.greeks ?? 0).toBe(0);
    } finally {
      if (before === undefined) delete process.env.MDQ_RISK_FREE_RATE;
      else process.env.MDQ_RISK_FREE_RATE = before;
    }
  });

  it('refuses a block of another layout version, of two sessions or of both views', () => {
    const packed = orderFlowWarmCodec.pack(sim.prints.slice(0, 3)) as unknown[];
    expect(() => orderFlowWarmCodec.unpack([99, ...packed.slice(1)], DATE)).toThrow(/version/);
    expect(() => orderFlowWarmCodec.pack([sim.prints[0], { ...sim.prints[1], sessionDate: '2026-11-20' }])).toThrow(/one session/);
    expect(() => orderFlowWarmCodec.pack([sim.prints[0], sim.consolidated[0]])).toThrow(/one order-flow view/);
  });

  it('its trade-side and sentiment rules agree with the processor’s', () => {
    // The codec keeps its own copies (services do not import projections): a divergence would only
    // make blocks larger, and shows in "nothing is stored explicitly" above; this pins it directly.
    const prices = [0, 0.99, 0.999999, 1, 1.0000005, 1.000002, 1.5, 1.999999, 2, 2.0000009, 2.01, 3];
    for (const right of ['CALL', 'PUT'] as const)
      for (const p of prices) {
        const side = tradeSideOf(p, 1, 2);
        const row = {
          ...sim.prints[0],
          contractType: right,
          optionPrice: p,
          bidPrice: 1,
          askPrice: 2,
          tradeSideCode: side,
          sentimentType: sentimentOf(right, side),
        };
        expect(orderFlowWarmBlockStats(orderFlowWarmCodec.pack([row])).explicit).not.toHaveProperty('tradeSideCode');
        expect(orderFlowWarmBlockStats(orderFlowWarmCodec.pack([row])).explicit).not.toHaveProperty('sentimentType');
      }
  });
});

// ---- stored blocks keep decoding the same ---------------------------------------------------

/** A stable text of a value: every number as its IEEE-754 bits, keys in their order. */
function canonical(x: unknown): string {
  if (typeof x === 'number') {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(x);
    return b.toString('hex');
  }
  if (x === null || typeof x !== 'object') return JSON.stringify(x) ?? 'undefined';
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  return `{${Object.entries(x)
    .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
    .join(',')}}`;
}
const digest = (rows: unknown[]) => crypto.createHash('sha256').update(canonical(rows)).digest('hex');

/**
 * Blocks packed once (MessagePack, base64) and what they decode to. A block derives greeks,
 * implied volatility, moneyness, dte, trade side... when read, with the code of the day: if
 * this fails, a derivation (services/domain pricing, moneyness, calendar, osi, or the codec)
 * changed how stored blocks decode, and the order-flow views' format must be bumped so they are
 * rebuilt.
 */
const GOLDEN: { name: string; block: string; rows: number; digest: string }[] = [
  {
    name: 'prints',
    block:
      '3AAhARkAyz+nCj1wo9cKkcs/ip++dsi0OZKSojExojEy3AAZAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEBAdwAGQEBAgIBAwEBAQEBAQEBzQPWAQEBAQEBAdH8' +
      'EQEBxQGQiauV6/wcXPSn6rXOjwvHZkuQqDykqVcRufD6KfzAe8yQZkGYidVa+ZzFZ3MSJX3H9tCHZm7KU3CYbIEnwlnj5bwQfY04xFSFs8LOIVMGRE3BTGdv' +
      'RNhcA4YFvrr8NQ7Vbm787VWKVDGXPuxHoA8mrwhmTZ95IF1dolZrs12kSb6cyjW/s6ZUHo8Vw7kdi97IJ8KlCyL9Uta9TTjOgKoypnux81ejslVhhBUyrLwg' +
      'CyCR/zqJyCpZtILHkJ3MVZh5czaqaFP1VvC8EgOIz+UDcWkPPQiFmFfQhtTdFqjvG5beRb9lfYhW5pGgOlZNPczFMBJFZUEJVKa4dkPCci/8KBn3iqSzpFXY' +
      'qivXR3agAQFrF4qS8nlSJoZP1V1XWDCshvtwZBdoUWusqvgJrSiBOJdFE0h9flf6ottBleYwpKLJHOGm04lWGJA5tuj+dvRdFm9TiwyeXl6zkYITATCz595F' +
      'v2V9iFbmkaA6Vk09zMUwEkVlQQlUprh2Q8JyL/woGfeKpLOkVdiqK9dHdqABAZYAkaNTUFmbzgAD+/8AAAABAAAAA1EAmwAAAAEAAAABAAAAm84ACNmgzScQ' +
      'zTqY0v//Y8DRxWjNYajNYagAzU4g0YrQzU4g3AAZAAIDBAEEBAQEBAUICgkGBgYGBgYGBwYGBpGjU1BZ3AAZy0J6H0NuzJAAzQhWzQYdzQMOzQjDzQSszQJq' +
      'zLslQjjNBAfNATHNApvOBos1MM3qYM4Pcimg0vCM6//S//8VodL/yfvg0v/JEYDS+0eBAM4FJlwAzepgzg9yKaDcABnN7Nr+AQL+AQMAAAAA+QD70f4lANH7' +
      'gs0EfgAAAM0EONH7yADR+4LcABnNCZzMlwHNFJbNBfUABQAAAM0LdwLNAVTNBqnM8AAAANCIeNH/EMzwzPAAANwAGc0BXgoBzQLkzNzNAuTNAt/NAt/NAt/N' +
      'At/NAZ8CFMyMFBQUFAoUARQUFBTcABkEAgICAQECBAUHASEBAQMDAwMDAwMDAwMD3AAZAQEBAQEBAQEBAQEBAQEBAQEBAAAAAQEBAdwAGQAFAM0C5MzmzQFy' +
      'AAAAAAAAFAAKCgoKAAAACgoKCgIA3AAZAAAAAAAAAAAAAAAAAAAABwcHBwcHRtDBBwfcABnNAjrMhs0BNM0DWc0BwgAAAAAAzQgHAAAABwAAAAAAAAcAAADc' +
      'ABkDAQECAQEDAwMDAwEBAQMDAwMDAQMBBAQE3AAZAgEBAQEBAgICAgIBAQECAgICAgECAQEBAZKSpEFVVE+kQVVDVNwAGQABAAAAAAAAAAAAAAAAAAAAAAAA' +
      'AAAAAACSmKRBUkNBpEFNRVijSVNFokMypEVNTESkTUlBWKNCT1ikQ0JPRdwAGQABAgIDBAUFBQUGBQEHBwcHBwcHBwcHBweRrk5PVF9BUFBMSUNBQkxFka5O' +
      'T1RfQVBQTElDQUJMRZHDkcIAAJYJkRORy0CCwAo9cKPXDZMSExSTyz/zwIMSbpeNyz+64UeuFHrhyz9QYk3S8an8xBjX19ejo6NwcHA9PT0KCgrX19fT09M/' +
      'Pz8=',
    rows: 25,
    digest: '92c167f157c81ea0a0ec3caa304ad61c2e6610d20f8b87d82bc10d9aa904724e',
  },
  {
    name: 'consolidated',
    block:
      '3AAhAQwByz+nCj1wo9cKkcs/ip++dsi0OZGiMTGcCypCGQYSEyQPDAQRxMCDMSxEiBxbnoJHd5iebNanq1Tnb4IaVJGyFpfkTBwoLgbat2h0TFaHmfctqlUs' +
      'mGoIU8liApVU+Z5B1CKE4RHwu3uvl2q3WPmFGfEhwMy50W1UOszZjltVja8Wq8anD+NlXMJ329xeApckhE2Z37wx9ycJNxq5XayfGsN3fuD5aSKD9KYk3Fh/' +
      'lK3JPMJTpGIVKYYaer1VGrm+TptcpZFyfM/0bRNmU4+lS/dI/kmGQE6AMvL4/VI7iJ1PvFYH7AyWAJGjU1BZm84AA/v/AAAAAAEAAABUDpsAAQEBAQAAAAEA' +
      'AZvOAAiykNHseM0nEM0nEM1OINL//ykozWGozWGo0v/+2wjOAAFzGNL//1A4nAUABAgBCgYCCQcDBZGjU1BZnMtCeh9DcOIwAM1J0s2I7M1RGs0EI80cUM0r' +
      '381ht80jzc0Va80G0c0wUpzN7N3qAP0CCvL8GAEDAJzNFJvNDTQZAQEszQteAUvNAmwB+5zNAt/NAdsCAQEFzQGaAQY8Ac0C5JwSBggICw8PBjEGBwmcAQEB' +
      'AQEBAQEAAQEBnAAAAAAABf0DADwBzQLknAIAAgICAgICAgEBApwAAAAAAAAAAADOAAY5wM0FeACcAwAABgkBDAgCEQAhnM0DWcy2Ls0E9s0BNM0GYc0IB80C' +
      'pADNB6LMuACcAwEBAQEBAwEBAQEBnAIBAQEBAQIBAQEBAZKSpEFVVE+jSVNPnAAAAAAAAAAAAQAAAJKYpE1JQVijSVNFpEFSQ0GkUEhMWKROU0RRpENCT0Wk' +
      'TVBSTKNCWlicAAEBAgMDBAQFBgcAka5OT1RfQVBQTElDQUJMRZGuTk9UX0FQUExJQ0FCTEWRw5HCkpKlU1BMSVSlU1dFRVCcAAAAAAAAAQABAAAAnM0BIszB' +
      'zQFCzQJKzQIYzLTNATtuAszOzQJBzQEilgaRAZHLQNPN//////8NkQiRyz/p64UeuFHtxAA=',
    rows: 12,
    digest: '7bb1653b48742ae6fd5e660112437aabdb24d2af9c9efbcc3b7cd8e4ed87ee56',
  },
];

describe('stored blocks', () => {
  it.each(GOLDEN.map((g) => [g.name, g] as const))('%s decodes to the very rows it was packed from', (_, g) => {
    const rows = orderFlowWarmCodec.unpack(packr.unpack(Buffer.from(g.block, 'base64')), DATE);
    expect(rows).toHaveLength(g.rows);
    expect(digest(rows)).toBe(g.digest);
  });

  it('there are golden blocks of both views', () => {
    expect(GOLDEN.map((g) => g.name)).toEqual(['prints', 'consolidated']);
  });
});

// ---- size ------------------------------------------------------------------------------------

describe('size', () => {
  const brotli = (b: Buffer) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }).length;
  const bytesPerRow = (codec: OrderFlowWarmCodec, rows: OrderFlowRow[], size: number) => {
    const blocks = blocksOf(rows, size);
    return blocks.reduce((n, b) => n + brotli(packr.pack(codec.pack(b))), 0) / rows.length;
  };

  it('a simulated print row takes at most 40 bytes after brotli (quality 5) in blocks of 256, against ~340 in the hot row alone', () => {
    expect(bytesPerRow(orderFlowWarmCodec, sim.prints, 256)).toBeLessThan(40);
    expect(bytesPerRow(createOrderFlowWarmCodec({ deriveImpliedVolatility: true }), sim.prints, 256)).toBeLessThan(32);
    expect(sim.prints.slice(0, 500).reduce((n, r) => n + encodeRow(r).length, 0) / 500).toBeGreaterThan(300);
  });

  it('a simulated consolidated row takes at most 60 bytes in a block of 50 rows or more', () => {
    const blocks = blocksOf(sim.consolidated, 256).filter((b) => b.length >= 50);
    expect(blocks.length).toBeGreaterThan(0);
    const rows = blocks.reduce((n, b) => n + b.length, 0);
    expect(blocks.reduce((n, b) => n + brotli(packr.pack(orderFlowWarmCodec.pack(b))), 0) / rows).toBeLessThan(60);
  });
});
