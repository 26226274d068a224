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
import { upgradeOrderFlowEvent } from '../../services/domain/order-flow-upgrade';
import type { Greeks } from '../../services/domain/pricing';
import {
  type EnrichedPrintEvent,
  type TradeType,
  CONDITION_TRADE_TYPE,
  LEGACY_TRADE_TYPE,
  TRADE_TYPES,
  openInterestFlags,
  rowKeyOf,
  tradeTypeOf,
} from '../../services/domain/order-flow';
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

  it('gives the degree in dollars, |strike - stock price|, never negative, and in percent of the stock price', () => {
    // The vendor's observed rows: 222.5 - 203.8 = 18.7 dollars, 18.7 / 203.8 x 100 = 9.1757 %.
    const otm = moneynessOf('CALL', 203.8, 222.5);
    expect(otm.degree).toBeCloseTo(18.7, 12);
    expect(otm.degreeInPercent).toBeCloseTo(9.1757, 4);
    expect(otm.moneyType).toBe('OTM');
    expect(moneynessOf('CALL', 660, 600)).toEqual({ degree: 60, degreeInPercent: (60 / 660) * 100, moneyType: 'ITM' });
    // The same distance for the put: the sign is never carried; moneyType tells the side.
    expect(moneynessOf('PUT', 660, 600)).toEqual({ degree: 60, degreeInPercent: (60 / 660) * 100, moneyType: 'OTM' });
    expect(moneynessOf('PUT', 540, 600)).toEqual({ degree: 60, degreeInPercent: (60 / 540) * 100, moneyType: 'ITM' });
    expect(moneynessOf('CALL', 600, 600)).toEqual({ degree: 0, degreeInPercent: 0, moneyType: 'ATM' });
  });
});

describe('trade type', () => {
  it.each([
    [['AUTO'], 'AUTO'],
    [['ISOI'], 'ISO'],
    [['SLAN'], 'AUCT'],
    [['SLAI'], 'AUCT_ISO'],
    [['SLCN'], 'CROSS'],
    [['SLCI'], 'CROSS_ISO'],
    [['SLFT'], 'FLR'],
    [['MLET'], 'MULTI_AUTO'],
    [['MLAT'], 'MULTI_AUCT'],
    [['MLCT'], 'MULTI_CROSS'],
    [['MLFT'], 'MULTI_FLR'],
    [['MESL'], 'M2S_AUTO'],
    [['MASL'], 'M2S_AUCT'],
    [['MFSL'], 'M2S_FLR'],
    [['TLET'], 'TIED_AUTO'],
    [['TLAT'], 'TIED_AUCT'],
    [['TLCT'], 'TIED_CROSS'],
    [['TLFT'], 'TIED_FLR'],
    [['XYZ', 'SLCN'], 'CROSS'], // the first recognised code decides
    [['XYZ'], 'AUTO'],
    [[], 'AUTO'],
  ])('%j is %s', (conditions, type) => expect(tradeTypeOf(conditions)).toBe(type));

  it('maps every condition code to a vendor trade type, and every vendor type has a code', () => {
    expect(new Set(Object.values(CONDITION_TRADE_TYPE))).toEqual(new Set(TRADE_TYPES));
  });

  it('reads the earlier trade-type names as vendor names', () => {
    expect(LEGACY_TRADE_TYPE).toEqual({
      ELECTRONIC: 'AUTO',
      AUCTION: 'AUCT',
      INTERMARKET_SWEEP: 'ISO',
      CROSS: 'CROSS',
      MULTI_LEG: 'MULTI_AUTO',
      OTHER: 'AUTO',
    });
  });
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
      tradeType: 'AUTO',
      rowFormat: 2,
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

describe('upgradeOrderFlowEvent (events of row format 1, replayed by a view rebuild)', () => {
  // SPY's dividend yield is 0.013 and ctx prices at 0.045: what the processor used.
  const current = enrichPrint({ ...base, conditions: ['SLAN'] }, at, ctx);
  const legacyOf = (e: EnrichedPrintEvent): EnrichedPrintEvent => {
    const g = e.greeks!;
    const signed = (e.stockPrice - e.strikePrice) / e.strikePrice;
    return {
      ...e,
      // What a format-1 event decodes to: seven greeks, the eight new ones null (schema default).
      greeks: { ...g, color: null, omega: null, sigma: null, speed: null, ultima: null, veta: null, vomma: null, zomma: null } as unknown as Greeks,
      moneyness: { degree: signed, degreeInPercent: signed * 100, moneyType: e.moneyness.moneyType },
      tradeType: 'AUCTION' as TradeType,
      rowFormat: 1,
    };
  };

  it('gives the event enrichPrint writes today: fifteen greeks, dollar moneyness, the vendor trade type', () => {
    expect(upgradeOrderFlowEvent(legacyOf(current), 0.045)).toEqual(current);
  });

  it('keeps null greeks null and leaves a current event untouched', () => {
    const noIv = { ...legacyOf(current), impliedVolatility: null, greeks: null };
    expect(upgradeOrderFlowEvent(noIv, 0.045).greeks).toBeNull();
    expect(noIv.rowFormat).toBe(2);
    const copy = structuredClone(current);
    expect(upgradeOrderFlowEvent(copy, 0.5)).toEqual(current);
  });
});
