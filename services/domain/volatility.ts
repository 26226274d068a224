import { bsmGreeks, impliedVolatility, type OptionRight } from './pricing';
import { daysToExpiration } from './calendar';

/**
 * The volatility surface of one quote snapshot: per contract the implied volatility solved from
 * the NBBO midpoint and the greeks the exposure endpoints need, with the underlying price of the
 * snapshot and the configured rate and dividend yield. Shared by the volatility projection (which
 * computes it) and the tests (which recompute it independently of Redis).
 *
 * IV source: the midpoint (bid + ask) / 2 of a two-sided quote (bid > 0, ask > 0, bid <= ask). A
 * one-sided quote (a side at 0) or a crossed one (bid > ask) has no IV, nor does a midpoint no
 * volatility in (0, 5] reproduces (below intrinsic value, above the no-arbitrage bound); such a
 * contract stays in the surface with null greeks and counts nowhere.
 */

export interface SurfaceQuote {
  right: OptionRight;
  strike: number;
  expiration: string;
  bid: number;
  ask: number;
}

export interface SurfaceGreeks {
  iv: number;
  delta: number;
  gamma: number;
  charm: number;
  vanna: number;
}

/** The midpoint a surface solves IV from, or null for a one-sided or crossed quote. */
export function quoteMid(bid: number, ask: number): number | null {
  if (!(bid > 0) || !(ask > 0) || bid > ask) return null;
  return (bid + ask) / 2;
}

/** Years to the option's expiry (16:00 New York on the expiration date) from `atMs`, never negative. */
export function yearsToExpiry(atMs: number, expiration: string): number {
  return Math.max(daysToExpiration(atMs, expiration), 0) / 365;
}

/** The IV of one contract at a snapshot, or null when the quote admits none. */
export function surfaceIv(q: SurfaceQuote, spot: number, atMs: number, rate: number, dividend: number): number | null {
  const mid = quoteMid(q.bid, q.ask);
  if (mid === null || !(spot > 0)) return null;
  return impliedVolatility(mid, { right: q.right, spot, strike: q.strike, t: yearsToExpiry(atMs, q.expiration), rate, dividend });
}

/**
 * The greeks of a contract at its IV, `t` being yearsToExpiry of the snapshot: what a surface
 * stores only the IV of, since these follow from it (and the snapshot's price, rate and dividend).
 */
export function greeksAtIv(right: OptionRight, strike: number, t: number, spot: number, rate: number, dividend: number, iv: number): SurfaceGreeks {
  const g = bsmGreeks({ right, spot, strike, t, rate, dividend, vol: iv });
  return { iv, delta: g.delta, gamma: g.gamma, charm: g.charm, vanna: g.vanna };
}

/** IV and greeks of one contract at a snapshot, or null when the quote admits no IV. */
export function surfaceGreeks(q: SurfaceQuote, spot: number, atMs: number, rate: number, dividend: number): SurfaceGreeks | null {
  const iv = surfaceIv(q, spot, atMs, rate, dividend);
  return iv === null ? null : greeksAtIv(q.right, q.strike, yearsToExpiry(atMs, q.expiration), spot, rate, dividend, iv);
}

export const GREEK_MODES = ['CHARM', 'DELTA', 'GAMMA', 'VANNA'] as const;
export type GreekMode = (typeof GREEK_MODES)[number];
export const REPRESENTATION_MODES = ['PER_ONE_DOLLAR_MOVE', 'PER_ONE_PERCENT_MOVE', 'RAW'] as const;
export type RepresentationMode = (typeof REPRESENTATION_MODES)[number];

const GREEK_OF: Record<GreekMode, keyof SurfaceGreeks> = { CHARM: 'charm', DELTA: 'delta', GAMMA: 'gamma', VANNA: 'vanna' };

/**
 * Exposure of one leg: open interest x greek x 100 shares, then for the two move representations
 * valued in dollars at the spot (x S) and scaled by the move (x 1 for $1, x 0.01 S for 1 %):
 *   RAW                   OI * g * 100
 *   PER_ONE_DOLLAR_MOVE   OI * g * 100 * S
 *   PER_ONE_PERCENT_MOVE  OI * g * 100 * S * 0.01 * S
 * The sign is the greek's own (holders' view, the spec's sign rule): call delta positive, put
 * delta negative; gamma positive on both legs; charm and vanna as they come out.
 */
export function legExposure(openInterest: number, g: SurfaceGreeks, greek: GreekMode, representation: RepresentationMode, spot: number): number {
  const raw = openInterest * g[GREEK_OF[greek]] * 100;
  if (representation === 'RAW') return raw;
  if (representation === 'PER_ONE_DOLLAR_MOVE') return raw * spot;
  return raw * spot * 0.01 * spot;
}

/**
 * "The" IV of a leg of one expiration for iv-rank: the IV of the contract of that leg whose strike
 * is nearest the close (the lower strike on a tie), among the strikes of the leg that have an IV.
 */
export function atmIv(legs: readonly { strike: number; iv: number }[], spot: number): number | null {
  let best: { strike: number; iv: number } | null = null;
  for (const l of legs) {
    if (best === null) best = l;
    else {
      const d = Math.abs(l.strike - spot);
      const bd = Math.abs(best.strike - spot);
      if (d < bd || (d === bd && l.strike < best.strike)) best = l;
    }
  }
  return best === null ? null : best.iv;
}
