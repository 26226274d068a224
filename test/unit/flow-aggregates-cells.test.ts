import fc from 'fast-check';
import {
  CONTRACT_FIELDS,
  CUBE_FIELDS,
  addSums,
  barOfPrint,
  cellField,
  cellFields,
  NET_FIELDS,
  EXCHANGE_FIELDS,
  TICKER_NET_FIELDS,
  parseExchangeCell,
  parsePremiumNetCell,
  premiumTier,
  tierPremium,
  isTierBound,
  PREMIUM_TIER_BOUNDS,
  parseTickerNetCell,
  cellOfPrint,
  contractId,
  decodeBar,
  decodeLast,
  encodeBar,
  encodeLast,
  laterOf,
  mergeBars,
  minuteOf,
  parseCell,
  sentimentOfCell,
  type Bar,
  type CubePrint,
} from '../../services/views/flow-aggregates';
import { sentimentOf } from '../../projections/enrich/enrich-print';
import { MONEY_TYPES, TRADE_SIDES } from '../../services/domain/order-flow';
import { UNCONSOLIDATED_FIELDS } from '../../api/fields/option-trade';
import { cubeWindow } from '../../api/views/flow-aggregates/reader';

const T0 = Date.UTC(2026, 10, 20, 14, 30);

const printArb: fc.Arbitrary<CubePrint> = fc
  .record({
    ticker: fc.constantFrom('SPY', 'AAPL', 'BRK.B'),
    contractType: fc.constantFrom('CALL' as const, 'PUT' as const),
    tradeSideCode: fc.constantFrom(...TRADE_SIDES),
    expirationDate: fc.constantFrom('2026-11-20', '2026-12-18'),
    strikePrice: fc.constantFrom(100, 212.5, 0.5, 1234.25),
    moneyType: fc.constantFrom(...MONEY_TYPES),
    exchange: fc.constantFrom('CBOE', 'ISE', 'MIAX'),
    sector: fc.constantFrom('TECHNOLOGY', 'NOT_APPLICABLE'),
    industry: fc.constantFrom('SEMICONDUCTORS', 'NOT_APPLICABLE'),
    isETF: fc.boolean(),
    isIndex: fc.boolean(),
    offset: fc.integer({ min: 0, max: 5_000 }),
    size: fc.integer({ min: 1, max: 1000 }),
    cents: fc.integer({ min: 1, max: 100_000 }),
    tradeTime: fc.integer({ min: T0, max: T0 + 3_600_000 }),
    stockPrice: fc.double({ min: 1, max: 1000, noNaN: true }),
  })
  .map((r) => ({
    ticker: r.ticker,
    contractType: r.contractType,
    tradeSideCode: r.tradeSideCode,
    expirationDate: r.expirationDate,
    strikePrice: r.strikePrice,
    moneyness: { moneyType: r.moneyType },
    exchange: r.exchange,
    sector: r.sector,
    industry: r.industry,
    isETF: r.isETF,
    isIndex: r.isIndex,
    rowKey: `03${r.offset.toString(36).padStart(8, '0')}`,
    sessionDate: '2026-11-20',
    osi: 'SPY   261218C00600000',
    optionPrice: r.cents / 100,
    premium: (r.cents / 100) * r.size * 100,
    size: r.size,
    stockPrice: r.stockPrice,
    tradeTime: r.tradeTime,
  }));

describe('flow-aggregates cells', () => {
  it("a cell field parses back to the print's dimensions, with or without the minute", () => {
    fc.assert(
      fc.property(printArb, (p) => {
        for (const withMinute of [true, false]) {
          const c = parseCell(p.ticker, cellField(p, withMinute), addSums(null, 123, 1, p.size), withMinute);
          const want = cellOfPrint(p, withMinute);
          expect(c).toEqual({ ...want, premiumCents: 123 });
        }
      }),
    );
  });

  it('a coarse cell drops the expiration and the strike, and keeps every other dimension', () => {
    fc.assert(
      fc.property(printArb, (p) => {
        const field = cellField(p, true, 'coarse');
        expect(field).toBe(cellField({ ...p, expirationDate: '2030-01-18', strikePrice: 1 }, true, 'coarse'));
        const c = parseCell(p.ticker, field, '1,1,1', true);
        const want = cellOfPrint(p, true);
        for (const f of CUBE_FIELDS)
          if (!CONTRACT_FIELDS.has(f)) expect(UNCONSOLIDATED_FIELDS.lookup(f)!.get(c as never)).toEqual(UNCONSOLIDATED_FIELDS.lookup(f)!.get(want as never));
        expect(c.minute).toBe(want.minute);
      }),
    );
  });

  it('a net cell keeps only the contract type and side (and sentiment, which follows from them)', () => {
    fc.assert(
      fc.property(printArb, printArb, (p, other) => {
        const field = cellField(p, true, 'net');
        const same = { ...other, contractType: p.contractType, tradeSideCode: p.tradeSideCode, tradeTime: p.tradeTime };
        expect(field).toBe(cellField(same, true, 'net'));
        const c = parseCell(p.ticker, field, '1,1,1', true);
        const want = cellOfPrint(p, true);
        for (const f of NET_FIELDS) expect(UNCONSOLIDATED_FIELDS.lookup(f)!.get(c as never)).toEqual(UNCONSOLIDATED_FIELDS.lookup(f)!.get(want as never));
        expect(c.minute).toBe(want.minute);
        expect(parseCell(p.ticker, cellField(p, false, 'net'), '1,1,1', false)).toMatchObject({
          minute: null,
          contractType: p.contractType,
          tradeSideCode: p.tradeSideCode,
        });
      }),
    );
  });

  it.each([
    ['exchange', EXCHANGE_FIELDS, (_t: string, f: string, v: string) => parseExchangeCell(f, v)],
    // The ticker is the hash's (one per underlying), not the field's.
    ['tickerNet', TICKER_NET_FIELDS, (t: string, f: string, v: string) => parseTickerNetCell(t, f, v, false)],
  ] as const)('the %s cell parses back to the fields its level carries; prints alike in those fields share it', (level, carries, parse) => {
    fc.assert(
      fc.property(printArb, printArb, (p, other) => {
        const field = cellFields(p)[level];
        const c = parse(p.ticker, field, '7,2,9');
        const want = cellOfPrint(p, false);
        for (const f of carries) expect(UNCONSOLIDATED_FIELDS.lookup(f)!.get(c as never)).toEqual(UNCONSOLIDATED_FIELDS.lookup(f)!.get(want as never));
        expect(c).toMatchObject({ minute: null, premiumCents: 7, tradeCount: 2, volume: 9 });
        if (level === 'tickerNet') expect(parseTickerNetCell(p.ticker, `${cellFields(p).minute}|${field}`, '1,1,1', true).minute).toBe(minuteOf(p.tradeTime));
        // Another print with the same values of the carried fields falls in the same cell; the field says nothing else.
        const same = {
          ...other,
          contractType: p.contractType,
          tradeSideCode: p.tradeSideCode,
          ticker: p.ticker,
          exchange: p.exchange,
          sector: p.sector,
          industry: p.industry,
          isETF: p.isETF,
          isIndex: p.isIndex,
        };
        expect(cellFields(same)[level]).toBe(field);
      }),
    );
  });

  it('cellFields builds the same fields as cellField at every level', () => {
    fc.assert(
      fc.property(printArb, (p) => {
        const f = cellFields(p);
        for (const level of ['contract', 'coarse', 'net'] as const) {
          expect(f[level]).toBe(cellField(p, false, level));
          expect(`${f.minute}|${f[level]}`).toBe(cellField(p, true, level));
        }
      }),
    );
  });

  it('the minute of a cell is the minute its print falls in', () => {
    expect(minuteOf(T0 + 59_999)).toBe(T0);
    expect(minuteOf(T0 + 60_000)).toBe(T0 + 60_000);
    const p = fc.sample(printArb, 1)[0];
    expect(cellOfPrint({ ...p, tradeTime: T0 + 61_234 }, true).minute).toBe(T0 + 60_000);
    expect(cellOfPrint(p, false).minute).toBeNull();
  });

  it('a cell premium is the print premium in integer cents', () => {
    const p = fc.sample(printArb, 1)[0];
    expect(cellOfPrint({ ...p, premium: 1234.565 }, false).premiumCents).toBe(123457);
    expect(cellOfPrint({ ...p, premium: 0.1 + 0.2 }, false).premiumCents).toBe(30);
  });

  it("sentiment of a cell is the enrichment's rule for every contract type and side", () => {
    for (const ct of ['CALL', 'PUT'] as const) for (const s of TRADE_SIDES) expect(sentimentOfCell(ct, s)).toBe(sentimentOf(ct, s));
  });

  it('sums add field by field', () => {
    expect(addSums(null, 5, 1, 10)).toBe('5,1,10');
    expect(addSums('5,1,10', -3, 2, 7)).toBe('2,3,17');
  });

  it('every cube field is a filterable field of the option-trade reference', () => {
    for (const f of CUBE_FIELDS) expect(UNCONSOLIDATED_FIELDS.lookup(f)?.name).toBe(f);
  });

  it('a cell exposes the row properties the cube fields read, so a row predicate applies to it', () => {
    const p = fc.sample(printArb, 1)[0];
    const c = cellOfPrint(p, true);
    for (const f of CUBE_FIELDS)
      expect(UNCONSOLIDATED_FIELDS.lookup(f)!.get(c as never)).toEqual(
        UNCONSOLIDATED_FIELDS.lookup(f)!.get({ ...p, sentimentType: sentimentOf(p.contractType, p.tradeSideCode) } as never),
      );
  });

  it('contract ids keep the strike exactly', () => {
    expect(contractId('SPX', '2026-12-18', 'PUT', 5412.5)).toBe('SPX|2026-12-18|P|5412.5');
  });
});

describe('premium tiers', () => {
  const bound = fc.constantFrom(...PREMIUM_TIER_BOUNDS);
  // Premiums at the bounds, a cent either side, and anywhere between and beyond them.
  const premium = fc.oneof(
    bound,
    bound.map((b) => b + 0.01),
    bound.map((b) => b - 0.01),
    fc.double({ min: 0, max: 30_000_000, noNaN: true }),
    fc.constant(0),
  );

  it('every premium of a tier gets the verdict of the tier premium for any range or comparison with tier bounds', () => {
    fc.assert(
      fc.property(premium, fc.option(bound, { nil: null }), fc.option(bound, { nil: null }), bound, (p, lo, hi, b) => {
        const inRange = (x: number) => (lo === null || x >= lo) && (hi === null || x <= hi);
        const t = tierPremium(premiumTier(p));
        expect(inRange(t)).toBe(inRange(p));
        // The comparisons of a PREMIUM term with a bound, each.
        for (const cmp of [(x: number) => x < b, (x: number) => x > b, (x: number) => x === b, (x: number) => x !== b]) expect(cmp(t)).toBe(cmp(p));
        expect(isTierBound(lo) && isTierBound(hi)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a bound itself has a tier of its own; a premium between bounds shares its tier with its neighbours', () => {
    expect(premiumTier(1_000)).toBe('=0');
    expect(premiumTier(999.99)).toBe('0');
    expect(premiumTier(1_000.01)).toBe('1');
    expect(premiumTier(4_999.99)).toBe('1');
    expect(premiumTier(20_000_000)).toBe(String(PREMIUM_TIER_BOUNDS.length));
    expect(isTierBound(1_500)).toBe(false);
    const p = fc.sample(printArb, 1)[0];
    const c = parsePremiumNetCell(`7|${cellFields({ ...p, premium: 5_000 }).premiumNet}`, '1,2,3', true);
    expect(c).toMatchObject({
      minute: 7 * 60_000,
      premium: 5_000,
      contractType: p.contractType,
      tradeSideCode: p.tradeSideCode,
      premiumCents: 1,
      tradeCount: 2,
      volume: 3,
    });
  });
});

describe('bars and last prices', () => {
  const bruteBar = (ps: CubePrint[]): Bar => {
    const sorted = [...ps].sort((a, b) => a.tradeTime - b.tradeTime || (a.rowKey < b.rowKey ? -1 : 1));
    return {
      openTime: sorted[0].tradeTime,
      openKey: sorted[0].rowKey,
      open: sorted[0].optionPrice,
      high: Math.max(...ps.map((p) => p.optionPrice)),
      low: Math.min(...ps.map((p) => p.optionPrice)),
      closeTime: sorted[sorted.length - 1].tradeTime,
      closeKey: sorted[sorted.length - 1].rowKey,
      close: sorted[sorted.length - 1].optionPrice,
      volume: ps.reduce((s, p) => s + p.size, 0),
    };
  };
  const unique = fc.uniqueArray(printArb, { minLength: 1, maxLength: 30, selector: (p) => p.rowKey });

  it('merging bars in any order and grouping gives the brute-force bar (open/close by time, then print)', () => {
    fc.assert(
      fc.property(unique, fc.integer({ min: 1, max: 7 }), fc.integer(), (ps, chunk, seed) => {
        // Chunked like a replay: each chunk merged, then the chunks merged in a shuffled order.
        const chunks: Bar[] = [];
        for (let i = 0; i < ps.length; i += chunk)
          chunks.push(
            ps
              .slice(i, i + chunk)
              .map(barOfPrint)
              .reduce((a: Bar | null, b) => mergeBars(a, b), null)!,
          );
        const order = chunks.map((c, i) => [c, Math.sin(seed + i)] as const).sort((a, b) => a[1] - b[1]);
        const merged = order.reduce((a: Bar | null, [b]) => mergeBars(a, b), null)!;
        expect(merged).toEqual(bruteBar(ps));
        expect(decodeBar(encodeBar(merged))).toEqual(merged);
      }),
    );
  });

  it('the last price is the latest print by time, ties broken by print, whatever the order', () => {
    fc.assert(
      fc.property(unique, (ps) => {
        const ls = ps.map((p) => ({ time: p.tradeTime, rowKey: p.rowKey, price: p.stockPrice }));
        const fwd = ls.reduce((a: ReturnType<typeof laterOf> | null, b) => laterOf(a, b), null)!;
        const back = [...ls].reverse().reduce((a: ReturnType<typeof laterOf> | null, b) => laterOf(a, b), null)!;
        expect(fwd).toEqual(back);
        const want = [...ls].sort((a, b) => b.time - a.time || (a.rowKey < b.rowKey ? 1 : -1))[0];
        expect(fwd).toEqual(want);
        expect(decodeLast(encodeLast(fwd))).toEqual(fwd);
      }),
    );
  });
});

describe('which windows the cube answers', () => {
  it('whole sessions and windows on whole minutes; any other window scans', () => {
    expect(cubeWindow(null)).toBe(true);
    expect(cubeWindow({ startMs: T0, endMs: T0 + 60_000 })).toBe(true);
    expect(cubeWindow({ startMs: T0 + 1, endMs: T0 + 60_000 })).toBe(false);
    expect(cubeWindow({ startMs: T0, endMs: T0 + 90_000 })).toBe(false);
  });
});
