import { bsmPrice, normCdf } from '../../services/domain/pricing';
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
