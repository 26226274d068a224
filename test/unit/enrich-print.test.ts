import { enrichPrint, moneynessOf, PRINT_ROW_NAMESPACE, sentimentOf, tradeSideOf, type PrintContext, type RawPrint } from '../../projections/enrich/enrich-print';
import { daysToExpiration } from '../../services/domain/calendar';
import { tradeTypeOf } from '../../services/domain/order-flow';
import { bsmGreeks, bsmPrice } from '../../services/domain/pricing';

const ctx: PrintContext = { volumeBefore: 0, openInterest: 1_000, sector: 'NOT_APPLICABLE', industry: 'NOT_APPLICABLE', isETF: true, isIndex: false, rate: 0.045, dividend: 0.013 };
// 2026-11-19 14:30 ET (19:30 UTC), the SPY 2026-12-18 600 call.
const TIME = Date.UTC(2026, 10, 19, 19, 30);
const base: RawPrint = { id: 'SPY261218C00600000-20261119-7.0', osi: 'SPY   261218C00600000', ticker: 'SPY', time: TIME, price: 12.5, size: 10, exchange: 'CBOE', conditions: ['AUTO'], bidPrice: 12.4, askPrice: 12.6, underlyingPrice: 602 };

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
  const row = enrichPrint(base, ctx);

  it('derives contract, sizing and pricing fields', () => {
    expect(row).toMatchObject({ contractType: 'CALL', strikePrice: 600, expirationDate: '2026-12-18', premium: 12_500, size: 10, volume: 10, openInterest: 1_000, stockPrice: 602, bidAskSpread: 0.2, optionPrice: 12.5, tradeSideCode: 'MID_MARKET', sentimentType: 'NEUTRAL', tradeType: 'ELECTRONIC', exchange: 'CBOE', tradeTime: TIME });
    expect(row.dte).toBeCloseTo(daysToExpiration(TIME, '2026-12-18'), 12);
    expect(row.dte).toBeCloseTo(29 + 1.5 / 24, 9); // 29 days and 1.5 hours to 16:00 ET on the 18th
  });

  it('solves implied volatility from the NBBO midpoint and prices greeks with it', () => {
    const o = { right: 'CALL' as const, spot: 602, strike: 600, t: row.dte / 365, rate: 0.045, dividend: 0.013 };
    expect(bsmPrice({ ...o, vol: row.impliedVolatility! })).toBeCloseTo(12.5, 8);
    expect(row.greeks).toEqual(bsmGreeks({ ...o, vol: row.impliedVolatility! }));
    // A different aggressor price on the same NBBO gives the same volatility.
    expect(enrichPrint({ ...base, price: 12.6 }, ctx).impliedVolatility).toBe(row.impliedVolatility);
  });

  it('falls back to the print price, then to null, when the midpoint admits no volatility', () => {
    // A midpoint (94) below the deep ITM call's discounted intrinsic value (~103.2); the print at 105 is above it.
    const deep = { ...base, osi: 'SPY   261218C00500000', bidPrice: 90, askPrice: 98, price: 105 };
    expect(enrichPrint(deep, ctx).impliedVolatility).not.toBeNull();
    const none = enrichPrint({ ...deep, price: 95 }, ctx);
    expect(none.impliedVolatility).toBeNull();
    expect(none.greeks).toBeNull();
  });

  it('gives a stable UUID v5 id per print', () => {
    expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(enrichPrint(base, ctx).id).toBe(row.id);
    expect(enrichPrint({ ...base, id: 'other' }, ctx).id).not.toBe(row.id);
    expect(PRINT_ROW_NAMESPACE).toHaveLength(36);
  });

  it('flags opening, volume over open interest and unusual prints at their boundaries', () => {
    const at = (size: number, volumeBefore: number, openInterest: number, price = 12.5) => enrichPrint({ ...base, size, price }, { ...ctx, volumeBefore, openInterest });
    expect(at(100, 0, 100).isOpeningPosition).toBe(false);
    expect(at(101, 0, 100).isOpeningPosition).toBe(true);
    expect(at(10, 90, 100).isVolumeGreaterThanOpenInterest).toBe(false);
    expect(at(11, 90, 100).isVolumeGreaterThanOpenInterest).toBe(true);
    // Unusual: larger than open interest and >= $25,000, or >= $1,000,000 whatever the open interest.
    expect(at(20, 0, 19, 12.5).isUnusual).toBe(true); // $25,000
    expect(at(20, 0, 19, 12.49).isUnusual).toBe(false); // $24,980
    expect(at(20, 0, 20, 12.5).isUnusual).toBe(false); // not larger than open interest
    expect(at(800, 0, 1e6, 12.5).isUnusual).toBe(true); // $1,000,000
    expect(at(799, 0, 1e6, 12.5).isUnusual).toBe(false);
  });

  it('refuses a print without a valid OSI symbol', () => {
    expect(() => enrichPrint({ ...base, osi: 'SPY' }, ctx)).toThrow(/not an OSI symbol/);
  });
});
