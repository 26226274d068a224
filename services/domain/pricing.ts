/**
 * Black-Scholes-Merton pricing of European options with a continuous dividend yield. Shared by
 * the simulator (theoretical value behind simulated quotes) and the processors (implied
 * volatility and greeks), so both sides price with the same formulas.
 */

export type OptionRight = 'CALL' | 'PUT';

/**
 * Standard normal cumulative distribution, Hart's double-precision algorithm as given by
 * G. West, "Better approximations to cumulative normal functions" (2005): absolute error below
 * 1e-14, which keeps implied-volatility round trips exact to many digits.
 */
export function normCdf(x: number): number {
  const z = Math.abs(x);
  let c: number;
  if (z > 37) {
    c = 0;
  } else {
    const e = Math.exp((-z * z) / 2);
    if (z < 7.07106781186547) {
      let n = 3.52624965998911e-2 * z + 0.700383064443688;
      n = n * z + 6.37396220353165;
      n = n * z + 33.912866078383;
      n = n * z + 112.079291497871;
      n = n * z + 221.213596169931;
      n = n * z + 220.206867912376;
      let d = 8.83883476483184e-2 * z + 1.75566716318264;
      d = d * z + 16.064177579207;
      d = d * z + 86.7807322029461;
      d = d * z + 296.564248779674;
      d = d * z + 637.333633378831;
      d = d * z + 793.826512519948;
      d = d * z + 440.413735824752;
      c = (e * n) / d;
    } else {
      let d = z + 0.65;
      d = z + 4 / d;
      d = z + 3 / d;
      d = z + 2 / d;
      d = z + 1 / d;
      c = e / d / 2.506628274631;
    }
  }
  return x > 0 ? 1 - c : c;
}

export function normPdf(x: number): number {
  return Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
}

export interface BsmInputs {
  right: OptionRight;
  /** underlying price */
  spot: number;
  strike: number;
  /** years to expiry */
  t: number;
  /** annual volatility, fractional */
  vol: number;
  /** continuously compounded risk-free rate */
  rate: number;
  /** continuous dividend yield */
  dividend: number;
}

/** BSM value; at or after expiry (t <= 0) or with zero volatility, the discounted intrinsic value. */
export function bsmPrice(o: BsmInputs): number {
  const { spot: s, strike: k, t, vol, rate: r, dividend: q } = o;
  if (t <= 0 || vol <= 0) {
    const fwdIntrinsic = o.right === 'CALL' ? s * Math.exp(-q * Math.max(t, 0)) - k * Math.exp(-r * Math.max(t, 0)) : k * Math.exp(-r * Math.max(t, 0)) - s * Math.exp(-q * Math.max(t, 0));
    return Math.max(0, fwdIntrinsic);
  }
  const sq = vol * Math.sqrt(t);
  const d1 = (Math.log(s / k) + (r - q + (vol * vol) / 2) * t) / sq;
  const d2 = d1 - sq;
  if (o.right === 'CALL') return s * Math.exp(-q * t) * normCdf(d1) - k * Math.exp(-r * t) * normCdf(d2);
  return k * Math.exp(-r * t) * normCdf(-d2) - s * Math.exp(-q * t) * normCdf(-d1);
}
