import { v5 as uuidV5 } from 'uuid';
import {
  enrichPrint,
  moneynessOf,
  PRINT_ROW_NAMESPACE,
  sentimentOf,
  sessionDateAt,
  tradeSideOf,
  type PrintContext,
  type RawPrint,
} from '../../projections/enrich/enrich-print';
import { UuidV5 } from '../../projections/enrich/row-ids';
import { daysToExpiration, sessionDateOf } from '../../services/domain/calendar';
import { openInterestFlags, rowKeyOf, tradeTypeOf } from '../../services/domain/order-flow';
import { bsmGreeks, bsmPrice } from '../../services/domain/pricing';

const ctx: PrintContext = { volumeBefore: 0, sector: 'NOT_APPLICABLE', industry: 'NOT_APPLICABLE', isETF: true, isIndex: false, rate: 0.045, dividend: 0.013 };
// 2026-11-19 14:30 ET (19:30 UTC), the SPY 2026-12-18 600 call.
const TIME = Date.UTC(2026, 10, 19, 19, 30);
const at = { partition: 7, offset: 123_456 };
const base: RawPrint = {
  id: 'SPY261218C00600000-20261119-7.0',
  osi: 'SPY   261218C00600000',
  ticker: 'SPY',
  time: TIME,
  price: 12.5,
  size: 10,
  exchange: 'CBOE',
  conditions: ['AUTO'],
  bidPrice: 12.4,
  askPrice: 12.6,
  underlyingPrice: 602,
};

describe('trade side', () => {
  it.each([
    [12.61, 'ABOVE_ASK'],
    [12.6, 'ASK'],
    [12.6000004, 'ASK'],
    [12.5999996, 'ASK'],
    [12.59, 'MID_MARKET'],
    [12.41, 'MID_MARKET'],
    [12.4, 'BID'],
    [12.4000004, 'BID'],
    [12.39, 'BELOW_BID'],
  ])('price %d against 12.40 x 12.60 is %s', (price, side) => expect(tradeSideOf(price, 12.4, 12.6)).toBe(side));

  it.each([
    ['CALL', 'ASK', 'BULLISH'],
    ['CALL', 'ABOVE_ASK', 'BULLISH'],
    ['CALL', 'BID', 'BEARISH'],
    ['PUT', 'ASK', 'BEARISH'],
    ['PUT', 'BELOW_BID', 'BULLISH'],
    ['PUT', 'MID_MARKET', 'NEUTRAL'],
  ] as const)('%s at %s is %s', (right, side, sentiment) => expect(sentimentOf(right, side)).toBe(sentiment));
});

describe('moneyness', () => {
  it.each([
    ['CALL', 603, 600, 'ATM'], // 0.5 % away: the band's edge is inside
    ['CALL', 604, 600, 'ITM'],
    ['CALL', 596, 600, 'OTM'],
    ['PUT', 596, 600, 'ITM'],
    ['PUT', 604, 600, 'OTM'],
    ['PUT', 597, 600, 'ATM'],
  ] as const)('%s spot %d strike %d is %s', (right, spot, strike, type) => expect(moneynessOf(right, spot, strike).moneyType).toBe(type));

  it('gives the signed degree, positive in the money', () => {
    expect(moneynessOf('CALL', 660, 600)).toEqual({ degree: 0.1, degreeInPercent: 10, moneyType: 'ITM' });
    expect(moneynessOf('PUT', 660, 600).degree).toBeCloseTo(-0.1, 12);
  });
});

describe('trade type', () => {
  it.each([
    [['AUTO'], 'ELECTRONIC'],
    [['ISOI'], 'INTERMARKET_SWEEP'],
    [['SLCN'], 'CROSS'],
    [['SLAN'], 'AUCTION'],
    [['XYZ'], 'OTHER'],
    [[], 'OTHER'],
  ])('%j is %s', (conditions, type) => expect(tradeTypeOf(conditions)).toBe(type));
});

describe('enrichPrint', () => {
  const row = enrichPrint(base, at, ctx);

  it('derives contract, sizing and pricing fields', () => {
    expect(row).toMatchObject({
      contractType: 'CALL',
      strikePrice: 600,
      expirationDate: '2026-12-18',
      premium: 12_500,
      size: 10,
      volume: 10,
      stockPrice: 602,
      bidAskSpread: 0.2,
      optionPrice: 12.5,
      tradeSideCode: 'MID_MARKET',
      sentimentType: 'NEUTRAL',
      tradeType: 'ELECTRONIC',
      exchange: 'CBOE',
      tradeTime: TIME,
    });
    expect(row.dte).toBe(daysToExpiration(TIME, '2026-12-18'));
    expect(row.dte).toBeCloseTo(29 + 1.5 / 24, 9); // 29 days and 1.5 hours to 16:00 ET on the 18th
  });

  it('solves implied volatility from the NBBO midpoint and prices greeks with it', () => {
    const o = { right: 'CALL' as const, spot: 602, strike: 600, t: row.dte / 365, rate: 0.045, dividend: 0.013 };
    expect(bsmPrice({ ...o, vol: row.impliedVolatility! })).toBeCloseTo(12.5, 8);
    expect(row.greeks).toEqual(bsmGreeks({ ...o, vol: row.impliedVolatility! }));
    // A different aggressor price on the same NBBO gives the same volatility.
    expect(enrichPrint({ ...base, price: 12.6 }, at, ctx).impliedVolatility).toBe(row.impliedVolatility);
  });

  it('falls back to the print price, then to null, when the midpoint admits no volatility', () => {
    // A midpoint (94) below the deep ITM call's discounted intrinsic value (~103.2); the print at 105 is above it.
    const deep = { ...base, osi: 'SPY   261218C00500000', bidPrice: 90, askPrice: 98, price: 105 };
    expect(enrichPrint(deep, at, ctx).impliedVolatility).not.toBeNull();
    const none = enrichPrint({ ...deep, price: 95 }, at, ctx);
    expect(none.impliedVolatility).toBeNull();
    expect(none.greeks).toBeNull();
  });

  it('gives a stable UUID v5 id per print', () => {
    expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(enrichPrint(base, at, ctx).id).toBe(row.id);
    expect(enrichPrint({ ...base, id: 'other' }, at, ctx).id).not.toBe(row.id);
    expect(PRINT_ROW_NAMESPACE).toHaveLength(36);
    expect(row.id).toBe(uuidV5(base.id, PRINT_ROW_NAMESPACE));
  });

  it('carries its source position, session, volume and reference data', () => {
    expect(row.rowKey).toBe(rowKeyOf(7, 123_456));
    expect(row.rowKey).toBe('0700002n9c');
    expect(row.printId).toBe(base.id);
    expect(row.sessionDate).toBe('2026-11-19');
    expect(enrichPrint(base, at, { ...ctx, volumeBefore: 990 }).volume).toBe(1_000);
    expect(row).toMatchObject({ sector: 'NOT_APPLICABLE', industry: 'NOT_APPLICABLE', isETF: true, isIndex: false });
    // A print after midnight UTC but before midnight in New York belongs to the New York date.
    expect(enrichPrint({ ...base, time: Date.UTC(2026, 10, 20, 3, 0) }, at, ctx).sessionDate).toBe('2026-11-19');
  });

  it('leaves the open-interest fields to the projectors', () => {
    for (const k of ['openInterest', 'isOpeningPosition', 'isVolumeGreaterThanOpenInterest', 'isUnusual']) expect(row).not.toHaveProperty(k);
  });

  it('refuses a print without a valid OSI symbol', () => {
    expect(() => enrichPrint({ ...base, osi: 'SPY' }, at, ctx)).toThrow(/not an OSI symbol/);
  });
});

describe('openInterestFlags (joined by the projectors)', () => {
  const flags = (size: number, volume: number, premium: number, openInterest: number) => openInterestFlags({ size, volume, premium }, openInterest);

  it('echoes the open interest', () => expect(flags(1, 1, 100, 42).openInterest).toBe(42));

  it('isOpeningPosition: the print alone exceeds the open interest', () => {
    expect(flags(100, 100, 1, 100).isOpeningPosition).toBe(false);
    expect(flags(101, 101, 1, 100).isOpeningPosition).toBe(true);
    expect(flags(1, 1, 1, 0).isOpeningPosition).toBe(true); // no open interest published
  });

  it('isVolumeGreaterThanOpenInterest: the day so far, this print included, exceeds it', () => {
    expect(flags(10, 100, 1, 100).isVolumeGreaterThanOpenInterest).toBe(false);
    expect(flags(11, 101, 1, 100).isVolumeGreaterThanOpenInterest).toBe(true);
  });

  it('isUnusual: larger than the open interest and >= $25,000, or >= $1,000,000', () => {
    expect(flags(20, 20, 25_000, 19).isUnusual).toBe(true);
    expect(flags(20, 20, 24_999.99, 19).isUnusual).toBe(false);
    expect(flags(20, 20, 25_000, 20).isUnusual).toBe(false); // not larger than the open interest
    expect(flags(800, 800, 1_000_000, 1e6).isUnusual).toBe(true);
    expect(flags(799, 799, 999_999.99, 1e6).isUnusual).toBe(false);
  });

  it('agrees with the enriched premium of a print (price x size x 100)', () => {
    const row = enrichPrint({ ...base, size: 20, price: 12.5 }, at, ctx);
    expect(openInterestFlags(row, 19).isUnusual).toBe(true); // $25,000
    expect(openInterestFlags(enrichPrint({ ...base, size: 20, price: 12.49 }, at, ctx), 19).isUnusual).toBe(false); // $24,980
    expect(openInterestFlags(enrichPrint({ ...base, size: 800, price: 12.5 }, at, ctx), 1e6).isUnusual).toBe(true); // $1,000,000
  });
});

describe('row id and session date helpers', () => {
  it('UuidV5 equals the uuid package v5 for any name', () => {
    const ns = '07a82213-12e9-4324-8fd3-b06aa103e5f2';
    const ids = new UuidV5(ns);
    for (const name of [
      '',
      'a',
      'SPY261218C00600000-20261119-7.0',
      'é€😀 non-ASCII',
      'x'.repeat(1_000),
      ...Array.from({ length: 200 }, (_, i) => `p${i * 7919}`),
    ]) {
      expect(ids.of(name)).toBe(uuidV5(name, ns));
    }
  });

  it('sessionDateAt equals sessionDateOf, across midnights and DST switches, in any order', () => {
    const instants: number[] = [];
    for (const day of [Date.UTC(2026, 2, 7), Date.UTC(2026, 2, 8), Date.UTC(2026, 9, 31), Date.UTC(2026, 10, 1), Date.UTC(2026, 10, 19)]) {
      for (let m = 0; m < 48 * 60; m += 17) instants.push(day + m * 60_000 - 1, day + m * 60_000);
    }
    for (const t of instants) expect(sessionDateAt(t)).toBe(sessionDateOf(t));
    for (const t of [...instants].reverse()) expect(sessionDateAt(t)).toBe(sessionDateOf(t));
  });
});
