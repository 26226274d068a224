import { bsmGreeks, type GreekName, type OptionRight } from './pricing';
import { GREEK_MODES, quoteMid, yearsToExpiry, type GreekMode } from './volatility';

/**
 * heat-map's 46 data modes and the per-leg values of the 38 CALL_* / PUT_* ones, shared by the
 * endpoint and its tests. The eight NET_* modes are answered from the exposure maths
 * (volatility.ts legExposure), the session's open interest and the flow cube; see
 * docs/volatility-and-exposure.md.
 */

/** Per-leg quantities, in the vendor's order. */
export const LEG_QUANTITIES = [
  'ASK_PRICE',
  'BID_PRICE',
  'CHARM',
  'COLOR',
  'DELTA',
  'GAMMA',
  'IMPLIED_VOLATILITY',
  'OMEGA',
  'OPTION_PRICE',
  'RHO',
  'SIGMA',
  'SPEED',
  'THETA',
  'ULTIMA',
  'VANNA',
  'VEGA',
  'VETA',
  'VOMMA',
  'ZOMMA',
] as const;
export type LegQuantity = (typeof LEG_QUANTITIES)[number];

export const NET_MODES = [
  'NET_CHARM_EXPOSURE',
  'NET_DELTA_EXPOSURE',
  'NET_GAMMA_EXPOSURE',
  'NET_VANNA_EXPOSURE',
  'NET_OPEN_INTEREST',
  'NET_PREMIUM',
  'NET_TRADE_COUNT',
  'NET_VOLUME',
] as const;

export const HEAT_MAP_MODES: readonly string[] = [...NET_MODES, ...LEG_QUANTITIES.map((q) => `CALL_${q}`), ...LEG_QUANTITIES.map((q) => `PUT_${q}`)];

export type FlowMeasure = 'premium' | 'tradeCount' | 'volume';

/** What a mode reads and how its cell looks. */
export type HeatMapMode =
  | { type: 'contract'; source: 'exposure'; greek: GreekMode }
  | { type: 'contract'; source: 'openInterest' }
  | { type: 'contract'; source: 'flow'; measure: FlowMeasure }
  | { type: 'single'; source: 'leg'; right: OptionRight; quantity: LegQuantity };

/** The mode a dataMode names (one of HEAT_MAP_MODES; the request schema checks the enum). */
export function heatMapMode(name: string): HeatMapMode {
  const exposure = /^NET_([A-Z]+)_EXPOSURE$/.exec(name);
  if (exposure && (GREEK_MODES as readonly string[]).includes(exposure[1]!)) return { type: 'contract', source: 'exposure', greek: exposure[1] as GreekMode };
  if (name === 'NET_OPEN_INTEREST') return { type: 'contract', source: 'openInterest' };
  if (name === 'NET_PREMIUM') return { type: 'contract', source: 'flow', measure: 'premium' };
  if (name === 'NET_TRADE_COUNT') return { type: 'contract', source: 'flow', measure: 'tradeCount' };
  if (name === 'NET_VOLUME') return { type: 'contract', source: 'flow', measure: 'volume' };
  const leg = /^(CALL|PUT)_([A-Z_]+)$/.exec(name);
  if (leg && (LEG_QUANTITIES as readonly string[]).includes(leg[2]!))
    return { type: 'single', source: 'leg', right: leg[1] as OptionRight, quantity: leg[2] as LegQuantity };
  throw new Error(`unknown heat-map mode ${name}`);
}

/** A priced leg of a snapshot: its quote and the IV the surface solved from the quote's midpoint. */
export interface PricedLeg {
  right: OptionRight;
  strike: number;
  expiration: string;
  bid: number;
  ask: number;
  iv: number;
}

/**
 * One per-leg value at a snapshot `atMs` with underlying price `spot`:
 * - ASK_PRICE, BID_PRICE: the quote's sides; OPTION_PRICE: its midpoint, the price the IV is
 *   solved from (so the greeks describe that price);
 * - IMPLIED_VOLATILITY: the surface's IV (term-structure's), fractional;
 * - SIGMA: the volatility the greeks are evaluated at, the pricing module's `sigma` greek: equal to
 *   IMPLIED_VOLATILITY, as on the order-flow rows (`greeks.sigma`);
 * - the greeks: the pricing module's (services/domain/pricing.ts GREEK_UNITS) at that IV, the
 *   configured rate and the ticker's dividend yield, time to 16:00 New York on the expiration.
 */
export function legValue(quantity: LegQuantity, leg: PricedLeg, spot: number, atMs: number, rate: number, dividend: number): number {
  switch (quantity) {
    case 'ASK_PRICE':
      return leg.ask;
    case 'BID_PRICE':
      return leg.bid;
    case 'OPTION_PRICE':
      return quoteMid(leg.bid, leg.ask) ?? (leg.bid + leg.ask) / 2;
    case 'IMPLIED_VOLATILITY':
      return leg.iv;
    default: {
      const g = bsmGreeks({ right: leg.right, spot, strike: leg.strike, t: yearsToExpiry(atMs, leg.expiration), vol: leg.iv, rate, dividend });
      return g[quantity.toLowerCase() as GreekName];
    }
  }
}
