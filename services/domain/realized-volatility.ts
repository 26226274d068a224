/**
 * Adjusted realized volatility of an underlying from its 1-minute log returns (volatility-drift's
 * `arv`, docs/decisions.md "volatility-drift").
 *
 * Minute i's close c_i is the underlying's last price event before the end of the minute (in it,
 * else carried forward); c_-1 is the price at the session's open (the last event at or before it). Minute i's return is r_i = ln(c_i / c_(i-1)), absent when either
 * price is. The arv of minute i is taken over the returns of the trailing window of ARV_WINDOW
 * minutes ending with minute i (those present, n of them):
 *
 *   arv_i = sqrt( MINUTES_PER_YEAR * sum_j (r_j - mean)^2 / (n - 1) )
 *
 * i.e. the sample standard deviation of the returns (demeaned, with Bessel's n - 1 correction for
 * the small sample) annualized by 252 sessions of 390 minutes; null while fewer than
 * ARV_MIN_RETURNS returns are in the window. Returns never cross sessions (no overnight gap).
 */

/** Minutes of the trailing window. */
export const ARV_WINDOW = 30;
/** Fewer returns in the window than this: arv is null. */
export const ARV_MIN_RETURNS = 10;
/** 252 sessions of 390 one-minute returns: the annualization of a minute variance. */
export const MINUTES_PER_YEAR = 252 * 390;

/** The 1-minute log returns of `closes` after `base` (the opening price); null where a price is missing. */
export function minuteReturns(base: number | null, closes: readonly (number | null)[]): (number | null)[] {
  const out: (number | null)[] = [];
  let prev = base;
  for (const c of closes) {
    out.push(prev !== null && c !== null && prev > 0 && c > 0 ? Math.log(c / prev) : null);
    prev = c;
  }
  return out;
}

/** arv per minute (fraction, annualized), from the opening price and each minute's close. */
export function adjustedRealizedVolatility(base: number | null, closes: readonly (number | null)[]): (number | null)[] {
  const r = minuteReturns(base, closes);
  return r.map((_, i) => {
    const window: number[] = [];
    for (let j = Math.max(0, i - ARV_WINDOW + 1); j <= i; j++) if (r[j] !== null) window.push(r[j]!);
    const n = window.length;
    if (n < ARV_MIN_RETURNS) return null;
    const mean = window.reduce((s, x) => s + x, 0) / n;
    const ss = window.reduce((s, x) => s + (x - mean) * (x - mean), 0);
    return Math.sqrt((MINUTES_PER_YEAR * ss) / (n - 1));
  });
}
