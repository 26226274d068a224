import { bsmGreeks, bsmPrice, impliedVolatility, normCdf, type BsmInputs } from '../../services/domain/pricing';
import { osiSymbol, parseOsi } from '../../services/domain/osi';

describe('normal CDF', () => {
  it.each([
    [0, 0.5],
    [1.959963984540054, 0.975],
    [-1, 0.15865525393145707],
    [3, 0.9986501019683699],
    [-8, 6.22096057427178e-16],
  ])('N(%d) = %d', (x, p) => {
    expect(Math.abs(normCdf(x) - p)).toBeLessThan(1e-14 + p * 1e-12);
  });
});

describe('Black-Scholes-Merton', () => {
  // Hull, Options, Futures and Other Derivatives, example 15.6: S=42, K=40, r=10%, vol=20%, T=0.5.
  const hull = { spot: 42, strike: 40, t: 0.5, vol: 0.2, rate: 0.1, dividend: 0 };
  it('prices the textbook call and put', () => {
    expect(bsmPrice({ ...hull, right: 'CALL' })).toBeCloseTo(4.7594, 4);
    expect(bsmPrice({ ...hull, right: 'PUT' })).toBeCloseTo(0.8086, 4);
  });

  it('satisfies put-call parity with a dividend yield', () => {
    const o = { spot: 600, strike: 610, t: 0.25, vol: 0.18, rate: 0.045, dividend: 0.013 };
    const c = bsmPrice({ ...o, right: 'CALL' });
    const p = bsmPrice({ ...o, right: 'PUT' });
    expect(c - p).toBeCloseTo(600 * Math.exp(-0.013 * 0.25) - 610 * Math.exp(-0.045 * 0.25), 10);
  });

  it('is the intrinsic value at expiry', () => {
    expect(bsmPrice({ ...hull, t: 0, right: 'CALL' })).toBe(2);
    expect(bsmPrice({ ...hull, t: 0, right: 'PUT' })).toBe(0);
  });
});

describe('OSI symbols', () => {
  it('builds the 21-character symbol', () => {
    expect(osiSymbol('SPY', '2026-11-20', 'CALL', 600)).toBe('SPY   261120C00600000');
    expect(osiSymbol('SPXW', '2026-12-01', 'PUT', 6012.5)).toBe('SPXW  261201P06012500');
    expect(osiSymbol('AAPL', '2027-01-15', 'CALL', 7.5)).toHaveLength(21);
  });

  it('parses what it builds', () => {
    expect(parseOsi('SPXW  261201P06012500')).toEqual({ root: 'SPXW', expiration: '2026-12-01', right: 'PUT', strike: 6012.5 });
  });

  it.each(['SPY 261120C00600000', 'SPY   261320C00600000', 'SPY   261120X00600000', 'spy   261120C00600000', '  SPY 261120C00600000', 'SPY   261120C00000000'])(
    'rejects %j',
    (s) => expect(parseOsi(s)).toBeNull(),
  );
});

describe('greeks', () => {
  // Hull, Options, Futures and Other Derivatives (section "The Greek letters"): S=49, K=50,
  // r=5%, vol=20%, T=20 weeks. Textbook values: delta 0.522, gamma 0.066, theta -4.31 a year,
  // vega 12.1 per 1.00 of volatility, rho 8.91 per 1.00 of rate.
  const o = { right: 'CALL' as const, spot: 49, strike: 50, t: 0.3846, vol: 0.2, rate: 0.05, dividend: 0 };
  const g = bsmGreeks(o);
  it('matches the textbook call', () => {
    expect(bsmPrice(o)).toBeCloseTo(2.4, 1);
    expect(g.delta).toBeCloseTo(0.522, 3);
    expect(g.gamma).toBeCloseTo(0.066, 3);
    expect(g.theta * 365).toBeCloseTo(-4.31, 2);
    expect(g.vega * 100).toBeCloseTo(12.1, 1);
    expect(g.rho * 100).toBeCloseTo(8.91, 2);
  });

  it('gives the elasticity and the volatility of the textbook call', () => {
    // omega = delta x S / V = 0.522 x 49 / 2.40 ≈ 10.7 (Hull's elasticity of the same call).
    expect(g.omega).toBeCloseTo((g.delta * 49) / bsmPrice(o), 12);
    expect(g.omega).toBeCloseTo(10.66, 1);
    expect(g.sigma).toBe(0.2);
  });

  // Every greek against central finite differences of the price (nested for the higher orders:
  // each step differentiates the previous finite difference, never a closed form), for calls and
  // puts, with and without a dividend yield, in and out of the money.
  const cases = [
    { right: 'CALL' as const, spot: 600, strike: 610, t: 0.1, vol: 0.18, rate: 0.045, dividend: 0.013 },
    { right: 'PUT' as const, spot: 600, strike: 560, t: 0.5, vol: 0.25, rate: 0.045, dividend: 0.013 },
    { right: 'PUT' as const, spot: 35, strike: 40, t: 0.02, vol: 0.6, rate: 0.03, dividend: 0 },
    { right: 'CALL' as const, spot: 120, strike: 90, t: 1.5, vol: 0.35, rate: 0.05, dividend: 0.02 },
  ];
  type In = (typeof cases)[number];
  type Fn = (c: In) => number;
  /** d/dx of f by a central difference with step h (relative to the input where it is a price). */
  const diff =
    (f: Fn, x: 'spot' | 'vol' | 't' | 'rate', h: number): Fn =>
    (c) =>
      (f({ ...c, [x]: c[x] + h }) - f({ ...c, [x]: c[x] - h })) / (2 * h);
  const price: Fn = (c) => bsmPrice(c);
  /** Relative agreement: |a - b| <= tol x max(|b|, floor) (the greeks span many magnitudes). */
  const near = (a: number, b: number, tol: number, floor: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(tol * Math.max(Math.abs(b), floor));

  it.each(cases)('agrees with finite differences of the price: %o', (c) => {
    const x = bsmGreeks(c);
    const hs = c.spot * 2e-4;
    const hv = 2e-4;
    const ht = c.t * 2e-3;
    const dS = (f: Fn) => diff(f, 'spot', hs);
    const dV = (f: Fn) => diff(f, 'vol', hv);
    // Calendar time passing is minus time to expiry.
    const dT =
      (f: Fn): Fn =>
      (i) =>
        -diff(f, 't', ht)(i);
    // Relative tolerances: first and second order 1e-4, third order 5e-4 (truncation and rounding).
    const tol = 1e-4;
    const tol3 = 5e-4;
    near(x.delta, dS(price)(c), tol, 1e-9);
    near(x.gamma, dS(dS(price))(c), tol, 1e-9);
    near(x.speed, dS(dS(dS(price)))(c), tol3, 1e-9);
    near(x.theta * 365, dT(price)(c), tol, 1e-9);
    near(x.charm * 365, dT(dS(price))(c), tol, 1e-9);
    near(x.color * 365, dT(dS(dS(price)))(c), tol3, 1e-9);
    near(x.vega * 100, dV(price)(c), tol, 1e-9);
    near(x.vanna * 100, dV(dS(price))(c), tol, 1e-9);
    near(x.zomma * 100, dV(dS(dS(price)))(c), tol3, 1e-9);
    near(x.vomma * 1e4, dV(dV(price))(c), tol, 1e-9);
    near(x.ultima * 1e6, dV(dV(dV(price)))(c), tol3, 1e-9);
    near(x.veta * 100 * 365, dT(dV(price))(c), tol, 1e-9);
    near(x.rho * 100, diff(price, 'rate', 1e-4)(c), tol, 1e-9);
    near(x.omega, (x.delta * c.spot) / bsmPrice(c), 1e-12, 1e-12);
    expect(x.sigma).toBe(c.vol);
    expect(Math.sign(x.delta)).toBe(c.right === 'CALL' ? 1 : -1);
    expect(Math.sign(x.omega)).toBe(c.right === 'CALL' ? 1 : -1);
  });

  it.each(cases)('has the same spot and volatility sensitivities of order >= 2 for the call and the put (put-call parity): %o', (c) => {
    const a = bsmGreeks({ ...c, right: 'CALL' });
    const b = bsmGreeks({ ...c, right: 'PUT' });
    for (const n of ['gamma', 'speed', 'color', 'vega', 'vanna', 'zomma', 'vomma', 'ultima', 'veta'] as const) near(a[n], b[n], 1e-9, 1e-12);
    // Delta differs by e^{-qT} exactly (parity: C - P = S e^{-qT} - K e^{-rT}).
    near(a.delta - b.delta, Math.exp(-c.dividend * c.t), 1e-12, 1);
  });

  it.each(cases)('satisfies the Black-Scholes-Merton equation theta + (r-q) S delta + sigma^2 S^2 gamma / 2 = r V: %o', (c) => {
    const x = bsmGreeks(c);
    const lhs = x.theta * 365 + (c.rate - c.dividend) * c.spot * x.delta + 0.5 * c.vol * c.vol * c.spot * c.spot * x.gamma;
    near(lhs, c.rate * bsmPrice(c), 1e-9, 1e-6);
  });

  it('is the intrinsic delta and no other sensitivity at expiry', () => {
    const z = { charm: 0, color: 0, gamma: 0, rho: 0, speed: 0, theta: 0, ultima: 0, vanna: 0, vega: 0, veta: 0, vomma: 0, zomma: 0 };
    // In the money at expiry: delta 1, value 5, so omega = 1 x 55 / 5 = 11.
    expect(bsmGreeks({ ...o, t: 0, spot: 55 })).toEqual({ ...z, delta: 1, omega: 11, sigma: 0.2 });
    expect(bsmGreeks({ ...o, t: 0, right: 'PUT', spot: 55 })).toEqual({ ...z, delta: 0, omega: 0, sigma: 0.2 });
  });
});

describe('implied volatility', () => {
  it('finds the textbook value', () => {
    // Hull: a European call with S=21, K=20, r=10%, T=0.25 priced 1.875 has an implied volatility of 23.5%.
    expect(impliedVolatility(1.875, { right: 'CALL', spot: 21, strike: 20, t: 0.25, rate: 0.1, dividend: 0 })).toBeCloseTo(0.235, 3);
  });

  it('round-trips prices across moneyness, expiries and volatilities', () => {
    for (const right of ['CALL', 'PUT'] as const) {
      for (const strike of [300, 450, 500, 550, 700]) {
        for (const t of [1 / 365, 0.05, 0.5, 2]) {
          for (const vol of [0.08, 0.3, 1.2]) {
            const o = { right, spot: 500, strike, t, rate: 0.045, dividend: 0.013 };
            const price = bsmPrice({ ...o, vol });
            const iv = impliedVolatility(price, o);
            // Where the option is worth (almost) nothing beyond its bounds, IV is not identifiable.
            if (price - bsmPrice({ ...o, vol: 0 }) < 1e-6) {
              expect(iv === null || Math.abs(bsmPrice({ ...o, vol: iv }) - price) < 1e-6).toBe(true);
              continue;
            }
            expect(iv).not.toBeNull();
            expect(Math.abs(bsmPrice({ ...o, vol: iv! }) - price)).toBeLessThan(1e-8);
            expect(iv!).toBeCloseTo(vol, 4);
          }
        }
      }
    }
  });

  it('is bit for bit the Newton/bisection iteration over bsmPrice and bsmGreeks (the scalar rewrite changes no value)', () => {
    // The solver as first written, iterating with the public functions.
    const reference = (price: number, o: Omit<BsmInputs, 'vol'>, tolerance = 1e-10): number | null => {
      if (!(price > 0) || !(o.t > 0)) return null;
      const lowBound = bsmPrice({ ...o, vol: 0 });
      const highBound = o.right === 'CALL' ? o.spot * Math.exp(-o.dividend * o.t) : o.strike * Math.exp(-o.rate * o.t);
      if (price <= lowBound || price >= highBound) return null;
      let lo = 1e-6;
      let hi = 5;
      if (bsmPrice({ ...o, vol: hi }) < price) return null;
      let v = Math.min(hi, Math.max(0.01, Math.sqrt((2 * Math.PI) / o.t) * (price / o.spot)));
      for (let i = 0; i < 100; i++) {
        const diff = bsmPrice({ ...o, vol: v }) - price;
        if (Math.abs(diff) < tolerance) return v;
        if (diff > 0) hi = v;
        else lo = v;
        const vega = bsmGreeks({ ...o, vol: v }).vega * 100;
        let next = vega > 1e-12 ? v - diff / vega : NaN;
        if (!(next > lo && next < hi)) next = (lo + hi) / 2;
        if (Math.abs(next - v) < 1e-14) return v;
        v = next;
      }
      return v;
    };
    let s = 12345;
    const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    for (let i = 0; i < 20_000; i++) {
      const spot = 5 + rnd() * 1000;
      const o = {
        right: rnd() < 0.5 ? ('CALL' as const) : ('PUT' as const),
        spot,
        strike: spot * (0.5 + rnd()),
        t: rnd() < 0.1 ? 0 : rnd() * 2,
        rate: 0.045,
        dividend: rnd() < 0.5 ? 0 : 0.013,
      };
      const price = rnd() < 0.8 ? bsmPrice({ ...o, vol: 0.05 + rnd() }) * (0.98 + rnd() * 0.04) : rnd() * spot * 0.3;
      expect(Object.is(impliedVolatility(price, o), reference(price, o))).toBe(true);
    }
  });

  it('is null for prices no volatility can produce', () => {
    const o = { right: 'CALL' as const, spot: 100, strike: 90, t: 0.5, rate: 0.05, dividend: 0 };
    expect(impliedVolatility(5, o)).toBeNull(); // below the discounted intrinsic value (~12.2)
    expect(impliedVolatility(100, o)).toBeNull(); // at the spot: above any option value
    expect(impliedVolatility(0, o)).toBeNull();
    expect(impliedVolatility(1, { ...o, t: 0 })).toBeNull();
  });
});
