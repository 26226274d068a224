import { legExposure, type GreekMode, type RepresentationMode } from '../../../services/domain/volatility';
import type { SurfaceLeg } from '../../../services/views/volatility';
import type { SurfaceLegRow } from '../../fields/volatility';
import type { Predicate } from '../../request/filter-expression';
import { legRow } from './reader';

/** One leg's exposure at a snapshot. */
export interface LegExposure {
  expiration: string;
  strike: number;
  right: 'CALL' | 'PUT';
  exposure: number;
}

/**
 * The exposure of every leg of a surface that passes `keep`: legs without greeks (no IV) or
 * without open interest in the session (none published, or zero) have no exposure and are left
 * out, as the spec's "a leg with no exposure omits its field" asks.
 */
export function surfaceExposures(
  ticker: string,
  legs: readonly SurfaceLeg[],
  spot: number,
  openInterest: ReadonlyMap<string, number>,
  greek: GreekMode,
  representation: RepresentationMode,
  keep: Predicate<SurfaceLegRow>,
): LegExposure[] {
  const out: LegExposure[] = [];
  for (const l of legs) {
    const oi = openInterest.get(l.osi);
    if (!oi || !l.greeks) continue;
    const row = legRow(ticker, l, spot);
    if (!row || !keep(row)) continue;
    out.push({ expiration: l.expiration, strike: l.strike, right: l.right, exposure: legExposure(oi, l.greeks, greek, representation, spot) });
  }
  return out;
}
