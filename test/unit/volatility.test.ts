import { optionExpiryMs } from '../../services/domain/calendar';
import { bsmGreeks, bsmPrice } from '../../services/domain/pricing';
import { atmIv, legExposure, quoteMid, surfaceGreeks, yearsToExpiry, type GreekMode, type SurfaceGreeks } from '../../services/domain/volatility';
import { decodeSurface, encodeSurface, spotAt, type SurfaceContract } from '../../services/views/volatility';
import { sampleExpiration } from '../../api/endpoints/options/iv-rank';

const DAY = 86_400_000;

describe('IV and greeks at a snapshot', () => {
  // Hull, "The Greek letters": S=49, K=50, r=5%, vol=20%, T=20 weeks (0.3846 y): delta 0.522, gamma 0.066.
  const expiration = '2026-12-18';
  const t = 0.3846;
  const at = optionExpiryMs(expiration) - Math.round(t * 365 * DAY);
  const base = { spot: 49, strike: 50, rate: 0.05, dividend: 0 };

  it('recovers the textbook volatility and greeks from the quote midpoint', () => {
    const yrs = yearsToExpiry(at, expiration);
    expect(yrs).toBeCloseTo(t, 9);
    const price = bsmPrice({ ...base, right: 'CALL', t: yrs, vol: 0.2 });
    const g = surfaceGreeks({ right: 'CALL', strike: 50, expiration, bid: price - 0.005, ask: price + 0.005 }, 49, at, 0.05, 0)!;
    expect(g.iv).toBeCloseTo(0.2, 9);
    expect(g.delta).toBeCloseTo(0.522, 3);
    expect(g.gamma).toBeCloseTo(0.066, 3);
    const ref = bsmGreeks({ ...base, right: 'CALL', t: yrs, vol: g.iv });
    expect(g).toEqual({ iv: g.iv, delta: ref.delta, gamma: ref.gamma, charm: ref.charm, vanna: ref.vanna });
  });

  it('prices puts with a dividend yield the same way', () => {
    const yrs = yearsToExpiry(at, expiration);
    const price = bsmPrice({ spot: 600, strike: 590, rate: 0.045, dividend: 0.013, right: 'PUT', t: yrs, vol: 0.17 });
    const g = surfaceGreeks({ right: 'PUT', strike: 590, expiration, bid: price - 0.02, ask: price + 0.02 }, 600, at, 0.045, 0.013)!;
    expect(g.iv).toBeCloseTo(0.17, 9);
    expect(g.delta).toBeLessThan(0);
    expect(g.delta).toBeCloseTo(bsmGreeks({ spot: 600, strike: 590, rate: 0.045, dividend: 0.013, right: 'PUT', t: yrs, vol: 0.17 }).delta, 8);
  });

  it('has no IV for one-sided, crossed or impossible quotes', () => {
    expect(quoteMid(1, 1.2)).toBeCloseTo(1.1, 12);
    expect(quoteMid(0, 1.2)).toBeNull();
    expect(quoteMid(1.2, 0)).toBeNull();
    expect(quoteMid(1.3, 1.2)).toBeNull();
    expect(surfaceGreeks({ right: 'CALL', strike: 50, expiration, bid: 0, ask: 1 }, 49, at, 0.05, 0)).toBeNull();
    expect(surfaceGreeks({ right: 'CALL', strike: 50, expiration, bid: 2, ask: 1 }, 49, at, 0.05, 0)).toBeNull();
    // Below intrinsic value: no volatility reproduces it.
    expect(surfaceGreeks({ right: 'CALL', strike: 40, expiration, bid: 1, ask: 1.1 }, 49, at, 0.05, 0)).toBeNull();
  });
});

describe('exposure formulas', () => {
  const call: SurfaceGreeks = { iv: 0.2, delta: 0.55, gamma: 0.03, charm: -0.002, vanna: 0.004 };
  const put: SurfaceGreeks = { iv: 0.22, delta: -0.45, gamma: 0.03, charm: 0.0015, vanna: -0.003 };
  const S = 600;

  it.each([
    ['DELTA', 'delta'],
    ['GAMMA', 'gamma'],
    ['CHARM', 'charm'],
    ['VANNA', 'vanna'],
  ] as const)('%s: RAW = OI x greek x 100, $1 = RAW x S, 1 %% = RAW x S x 0.01 S', (mode, key) => {
    for (const g of [call, put]) {
      const raw = 1234 * g[key] * 100;
      expect(legExposure(1234, g, mode as GreekMode, 'RAW', S)).toBeCloseTo(raw, 9);
      expect(legExposure(1234, g, mode as GreekMode, 'PER_ONE_DOLLAR_MOVE', S)).toBeCloseTo(raw * S, 6);
      expect(legExposure(1234, g, mode as GreekMode, 'PER_ONE_PERCENT_MOVE', S)).toBeCloseTo(raw * S * 6, 6);
    }
  });

  it('follows the sign of the greek: calls positive and puts negative for delta, both positive for gamma', () => {
    for (const rep of ['RAW', 'PER_ONE_DOLLAR_MOVE', 'PER_ONE_PERCENT_MOVE'] as const) {
      expect(legExposure(10, call, 'DELTA', rep, S)).toBeGreaterThan(0);
      expect(legExposure(10, put, 'DELTA', rep, S)).toBeLessThan(0);
      expect(legExposure(10, call, 'GAMMA', rep, S)).toBeGreaterThan(0);
      expect(legExposure(10, put, 'GAMMA', rep, S)).toBeGreaterThan(0);
      expect(Math.sign(legExposure(10, call, 'CHARM', rep, S))).toBe(Math.sign(call.charm));
      expect(Math.sign(legExposure(10, put, 'CHARM', rep, S))).toBe(Math.sign(put.charm));
      expect(Math.sign(legExposure(10, call, 'VANNA', rep, S))).toBe(Math.sign(call.vanna));
      expect(Math.sign(legExposure(10, put, 'VANNA', rep, S))).toBe(Math.sign(put.vanna));
    }
  });
});

describe('surface storage and selection rules', () => {
  it('encodes a surface the same whatever order its quotes arrived in', () => {
    const cs: SurfaceContract[] = [
      { osi: 'SPY   261218C00600000', bid: 10, ask: 10.2, greeks: { iv: 0.2, delta: 0.5, gamma: 0.01, charm: 0, vanna: 0.001 } },
      { osi: 'SPY   261218P00600000', bid: 0, ask: 9, greeks: null },
    ];
    const a = encodeSurface({ spot: 601.5, contracts: new Map(cs.map((c) => [c.osi, c])) });
    const b = encodeSurface({ spot: 601.5, contracts: new Map([...cs].reverse().map((c) => [c.osi, c])) });
    expect(a).toBe(b);
    expect(decodeSurface(a)).toEqual({ spot: 601.5, contracts: new Map(cs.map((c) => [c.osi, c])) });
  });

  it('prices a snapshot at the last stored price at or before it', () => {
    const px = new Map<number, string>([
      [1000, 'O100'],
      [60_000, 'T101'],
      [120_000, 'C102'],
    ]);
    expect(spotAt(px, 999)).toBeNull();
    expect(spotAt(px, 1000)).toBe(100);
    expect(spotAt(px, 119_999)).toBe(101);
    expect(spotAt(px, 120_000)).toBe(102);
  });

  it('takes the IV of the strike nearest the close, the lower one on a tie', () => {
    const legs = [
      { strike: 95, iv: 0.3 },
      { strike: 100, iv: 0.25 },
      { strike: 105, iv: 0.22 },
    ];
    expect(atmIv(legs, 101)).toBe(0.25);
    expect(atmIv(legs, 102.5)).toBe(0.25);
    expect(atmIv(legs, 104)).toBe(0.22);
    expect(atmIv([], 100)).toBeNull();
  });

  it('samples the expiration nearest the maturity within 50 % either side', () => {
    const entry = {
      p: 600,
      e: [
        ['2026-11-27', 0.1, 0.11],
        ['2026-12-18', 0.2, 0.21],
        ['2027-01-15', 0.3, null],
      ] as [string, number | null, number | null][],
    };
    // 2026-11-20 + 28 days = 2026-12-18; + 56 = 2027-01-15.
    expect(sampleExpiration('2026-11-20', entry, 30, ['CALL', 'PUT'])).toEqual({ expirationDate: '2026-12-18', stockPrice: 600, iv: { CALL: 0.2, PUT: 0.21 } });
    expect(sampleExpiration('2026-11-20', entry, 56, ['PUT'])).toEqual({ expirationDate: '2026-12-18', stockPrice: 600, iv: { PUT: 0.21 } });
    expect(sampleExpiration('2026-11-20', entry, 56, ['CALL'])).toEqual({ expirationDate: '2027-01-15', stockPrice: 600, iv: { CALL: 0.3 } });
    // Band 150-450 days: nothing listed there.
    expect(sampleExpiration('2026-11-20', entry, 300, ['CALL', 'PUT'])).toBeNull();
  });
});
