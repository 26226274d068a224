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
    const fwdIntrinsic =
      o.right === 'CALL'
        ? s * Math.exp(-q * Math.max(t, 0)) - k * Math.exp(-r * Math.max(t, 0))
        : k * Math.exp(-r * Math.max(t, 0)) - s * Math.exp(-q * Math.max(t, 0));
    return Math.max(0, fwdIntrinsic);
  }
  const sq = vol * Math.sqrt(t);
  const d1 = (Math.log(s / k) + (r - q + (vol * vol) / 2) * t) / sq;
  const d2 = d1 - sq;
  if (o.right === 'CALL') return s * Math.exp(-q * t) * normCdf(d1) - k * Math.exp(-r * t) * normCdf(d2);
  return k * Math.exp(-r * t) * normCdf(-d2) - s * Math.exp(-q * t) * normCdf(-d1);
}

/**
 * Black-Scholes-Merton sensitivities: the fifteen of an order-flow row (the vendor's set), in the
 * units a trader reads them in. "Per day" is per calendar day of time passing (1/365 of a year;
 * the sign is that of the change as expiry approaches), "per vol point" per 0.01 of annual
 * volatility, "per rate point" per 0.01 of the continuously compounded rate.
 * - delta: value change per $1 of the underlying (calls 0..1, puts -1..0)
 * - gamma: delta change per $1 of the underlying
 * - speed: gamma change per $1 of the underlying (third derivative in spot)
 * - theta: value change per day (time decay, usually negative)
 * - charm: delta change per day (delta decay)
 * - color: gamma change per day
 * - vega: value change per vol point
 * - vanna: delta change per vol point (equally: vega change per $1 of the underlying, / 100)
 * - zomma: gamma change per vol point
 * - vomma: vega change (per vol point) per vol point (second derivative in volatility / 100^2)
 * - ultima: vomma change per vol point (third derivative in volatility / 100^3)
 * - veta: vega change (per vol point) per day
 * - rho: value change per rate point
 * - omega: elasticity (lambda), delta x spot / model value: percent value change per 1 % of the
 *   underlying; dimensionless; 0 when the model value is 0
 * - sigma: the volatility priced with, fractional (the row's implied volatility, e.g. 0.394)
 * At or after expiry, or with zero volatility, every sensitivity is 0 except delta (the intrinsic
 * 0 or ±e^{-qT}) and omega (from that delta and the intrinsic value); sigma is the input.
 */
export interface Greeks {
  charm: number;
  color: number;
  delta: number;
  gamma: number;
  omega: number;
  rho: number;
  sigma: number;
  speed: number;
  theta: number;
  ultima: number;
  vanna: number;
  vega: number;
  veta: number;
  vomma: number;
  zomma: number;
}

/** The fifteen greek names, alphabetical (the vendor's order; the codec's and the schemas'). */
export const GREEK_NAMES = [
  'charm',
  'color',
  'delta',
  'gamma',
  'omega',
  'rho',
  'sigma',
  'speed',
  'theta',
  'ultima',
  'vanna',
  'vega',
  'veta',
  'vomma',
  'zomma',
] as const satisfies readonly (keyof Greeks)[];
export type GreekName = (typeof GREEK_NAMES)[number];

/** Each greek's unit and scaling, as the API documents it (see Greeks). */
export const GREEK_UNITS: Readonly<Record<GreekName, string>> = {
  charm: 'delta change per calendar day',
  color: 'gamma change per calendar day',
  delta: 'value change per $1 of the underlying',
  gamma: 'delta change per $1 of the underlying',
  omega: 'elasticity: % value change per 1 % of the underlying (delta x S / V)',
  rho: 'value change per 1 % of the risk-free rate',
  sigma: 'the implied volatility, fractional',
  speed: 'gamma change per $1 of the underlying',
  theta: 'value change per calendar day',
  ultima: 'vomma change per volatility point',
  vanna: 'delta change per volatility point (0.01)',
  vega: 'value change per volatility point (0.01)',
  veta: 'vega change per calendar day',
  vomma: 'vega change per volatility point',
  zomma: 'gamma change per volatility point',
};

const DAYS_PER_YEAR = 365;
/** Volatility and rate points: sensitivities are quoted per 0.01, not per 1.00. */
const POINT = 100;

export function bsmGreeks(o: BsmInputs): Greeks {
  const { spot: s, strike: k, t, vol, rate: r, dividend: q } = o;
  const call = o.right === 'CALL';
  if (t <= 0 || vol <= 0) {
    const itm = call ? s > k : s < k;
    const delta = itm ? (call ? 1 : -1) * Math.exp(-q * Math.max(t, 0)) : 0;
    const value = bsmPrice(o);
    return {
      charm: 0,
      color: 0,
      delta,
      gamma: 0,
      omega: value > 0 ? (delta * s) / value : 0,
      rho: 0,
      sigma: vol,
      speed: 0,
      theta: 0,
      ultima: 0,
      vanna: 0,
      vega: 0,
      veta: 0,
      vomma: 0,
      zomma: 0,
    };
  }
  const sqrtT = Math.sqrt(t);
  const sq = vol * sqrtT;
  const d1 = (Math.log(s / k) + (r - q + (vol * vol) / 2) * t) / sq;
  const d2 = d1 - sq;
  const eq = Math.exp(-q * t);
  const er = Math.exp(-r * t);
  const pdf = normPdf(d1);
  const nd1 = normCdf(call ? d1 : -d1);
  const nd2 = normCdf(call ? d2 : -d2);
  const sign = call ? 1 : -1;
  const value = call ? s * eq * nd1 - k * er * nd2 : k * er * nd2 - s * eq * nd1;
  const delta = sign * eq * nd1;
  const gamma = (eq * pdf) / (s * sq);
  const vegaUnit = s * eq * pdf * sqrtT;
  const thetaYear = (-s * eq * pdf * vol) / (2 * sqrtT) - sign * r * k * er * nd2 + sign * q * s * eq * nd1;
  const rhoUnit = sign * k * t * er * nd2;
  // The time derivatives below are of calendar time passing, i.e. minus those in time to expiry.
  const charmYear = sign * q * eq * nd1 - (eq * pdf * (2 * (r - q) * t - d2 * sq)) / (2 * t * sq);
  const colorYear = ((eq * pdf) / (2 * s * t * sq)) * (2 * q * t + 1 + ((2 * (r - q) * t - d2 * sq) / sq) * d1);
  const vetaYear = s * eq * pdf * sqrtT * (q + ((r - q) * d1) / sq - (1 + d1 * d2) / (2 * t));
  const vannaUnit = (-eq * pdf * d2) / vol;
  const vommaUnit = (vegaUnit * d1 * d2) / vol;
  const ultimaUnit = (-vegaUnit / (vol * vol)) * (d1 * d2 * (1 - d1 * d2) + d1 * d1 + d2 * d2);
  const speed = (-gamma / s) * (d1 / sq + 1);
  const zommaUnit = (gamma * (d1 * d2 - 1)) / vol;
  return {
    charm: charmYear / DAYS_PER_YEAR,
    color: colorYear / DAYS_PER_YEAR,
    delta,
    gamma,
    omega: value > 0 ? (delta * s) / value : 0,
    rho: rhoUnit / POINT,
    sigma: vol,
    speed,
    theta: thetaYear / DAYS_PER_YEAR,
    ultima: ultimaUnit / (POINT * POINT * POINT),
    vanna: vannaUnit / POINT,
    vega: vegaUnit / POINT,
    veta: vetaYear / (POINT * DAYS_PER_YEAR),
    vomma: vommaUnit / (POINT * POINT),
    zomma: zommaUnit / POINT,
  };
}

/** The volatility-independent terms of one implied-volatility solve (and the last d1). */
interface IvTerms {
  call: boolean;
  seq: number;
  ker: number;
  sqrtT: number;
  logSK: number;
  rq: number;
  t: number;
  d1: number;
}
const SQRT_2PI = Math.sqrt(2 * Math.PI);

/** bsmPrice at `vol` from the precomputed terms (the same expressions, in the same order). */
function priceAt(c: IvTerms, vol: number): number {
  const sq = vol * c.sqrtT;
  const d1 = (c.logSK + (c.rq + (vol * vol) / 2) * c.t) / sq;
  c.d1 = d1;
  const d2 = d1 - sq;
  return c.call ? c.seq * normCdf(d1) - c.ker * normCdf(d2) : c.ker * normCdf(-d2) - c.seq * normCdf(-d1);
}

/**
 * The volatility at which bsmPrice equals `price`, or null when no volatility in (0, 5] can
 * produce it (a price below the discounted intrinsic value or above the no-arbitrage bound).
 * Newton's method from the Brenner-Subrahmanyam guess, falling back to bisection whenever a step
 * leaves the bracket, so it converges also deep in or out of the money where vega vanishes.
 *
 * The order-flow processor solves this twice per print, so the iteration is written on scalars:
 * the terms that do not depend on the volatility are computed once, and price and vega share
 * d1. Every expression is the one bsmPrice and bsmGreeks evaluate, in the same order, so the
 * result is bit for bit what iterating with those functions gives (unit-tested).
 */
export function impliedVolatility(price: number, o: Omit<BsmInputs, 'vol'>, tolerance = 1e-10): number | null {
  const { spot: s, strike: k, t, rate: r, dividend: q } = o;
  if (!(price > 0) || !(t > 0)) return null;
  const call = o.right === 'CALL';
  const eq = Math.exp(-q * t);
  const er = Math.exp(-r * t);
  const seq = s * eq;
  const ker = k * er;
  // bsmPrice at zero volatility (the discounted forward intrinsic value) and the upper bound.
  const lowBound = Math.max(
    0,
    call ? s * Math.exp(-q * Math.max(t, 0)) - k * Math.exp(-r * Math.max(t, 0)) : k * Math.exp(-r * Math.max(t, 0)) - s * Math.exp(-q * Math.max(t, 0)),
  );
  const highBound = call ? seq : ker;
  if (price <= lowBound || price >= highBound) return null;
  const c: IvTerms = { call, seq, ker, sqrtT: Math.sqrt(t), logSK: Math.log(s / k), rq: r - q, t, d1: 0 };
  let lo = 1e-6;
  let hi = 5;
  if (priceAt(c, hi) < price) return null;
  let v = Math.min(hi, Math.max(0.01, Math.sqrt((2 * Math.PI) / t) * (price / s)));
  for (let i = 0; i < 100; i++) {
    const diff = priceAt(c, v) - price;
    if (Math.abs(diff) < tolerance) return v;
    if (diff > 0) hi = v;
    else lo = v;
    // bsmGreeks' vega (per volatility point) times 100, with d1 of this volatility.
    const vega = ((seq * (Math.exp((-c.d1 * c.d1) / 2) / SQRT_2PI) * c.sqrtT) / 100) * 100;
    let next = vega > 1e-12 ? v - diff / vega : NaN;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - v) < 1e-14) return v;
    v = next;
  }
  return v;
}
