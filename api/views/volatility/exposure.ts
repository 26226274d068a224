import { orderedMap, strikeKey } from '../../request/aggregation/ordered-map';
import { legExposure, type GreekMode, type RepresentationMode } from '../../../services/domain/volatility';
import type { SurfaceLeg } from '../../../services/views/volatility';
import type { SurfaceLegRow } from '../../fields/volatility';
import type { Predicate } from '../../request/filter-expression';
import { sessionDateOf } from '../../../services/domain/calendar';
import type { TimeSelection } from '../../request/time-selectors';
import { VolatilityReader, legRow, priceUnavailable } from './reader';

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

/**
 * The exposures of one ticker at the snapshot a selection names, with the snapshot's underlying
 * price (exposure-by-strike, exposure-by-expiration, heat-map): a 422 when there is no snapshot or
 * it has no underlying price.
 */
export async function snapshotExposures(
  reader: VolatilityReader,
  ticker: string,
  sel: TimeSelection,
  greek: GreekMode,
  representation: RepresentationMode,
  keep: Predicate<SurfaceLegRow>,
): Promise<{ ms: number; spot: number; exposures: LegExposure[] }> {
  const ms = await reader.snapshot(ticker, sel);
  const s = ms === null ? null : await reader.surface(ticker, ms);
  if (ms === null || !s || s.spot === null) throw priceUnavailable(ticker, sel, ms);
  const oi = await reader.openInterest(ticker, sessionDateOf(ms));
  return { ms, spot: s.spot, exposures: surfaceExposures(ticker, s.legs, s.spot, oi, greek, representation, keep) };
}

/** A strike's cell of an exposure map: a leg without exposure omits its field. */
export interface ExposureCell {
  callExposure?: number;
  putExposure?: number;
}

/** A value of one leg of one contract, as the grids below take it. */
export interface LegValue {
  expiration: string;
  strike: number;
  right: 'CALL' | 'PUT';
  value: number;
}

/**
 * expiration (ascending) -> strike key (ascending) -> {[call]: sum, [put]: sum} of the legs'
 * values, a leg without one omitting its key: the shape of exposure maps, the skew and the
 * interval map's buckets. Empty entries give {}.
 */
export function legGrid<C extends string, P extends string>(
  entries: Iterable<LegValue>,
  call: C,
  put: P,
): Record<string, Record<string, Partial<Record<C | P, number>>>> {
  const byExp = new Map<string, Map<string, { call?: number; put?: number }>>();
  for (const e of entries) {
    let strikes = byExp.get(e.expiration);
    if (!strikes) byExp.set(e.expiration, (strikes = new Map()));
    const k = strikeKey(e.strike);
    const cell = strikes.get(k) ?? {};
    if (e.right === 'CALL') cell.call = (cell.call ?? 0) + e.value;
    else cell.put = (cell.put ?? 0) + e.value;
    strikes.set(k, cell);
  }
  return orderedMap(
    [...byExp].map(
      ([exp, strikes]) =>
        [
          exp,
          orderedMap(
            [...strikes].map(([k, c]) => [k, { ...(c.call !== undefined && { [call]: c.call }), ...(c.put !== undefined && { [put]: c.put }) }]),
            'decimal',
          ),
        ] as const,
    ),
    'date',
  ) as Record<string, Record<string, Partial<Record<C | P, number>>>>;
}

/** expiration (ascending) -> strike key (ascending) -> cell, from (expiration, strike, leg, exposure) entries. */
export function exposureMap(entries: Iterable<LegExposure>): Record<string, Record<string, ExposureCell>> {
  return legGrid(
    (function* () {
      for (const e of entries) yield { expiration: e.expiration, strike: e.strike, right: e.right, value: e.exposure };
    })(),
    'callExposure',
    'putExposure',
  );
}

/**
 * exposure-by-expiration's aggregation: per expiration one entry holding the sum of each leg's
 * exposure over the expiration's strikes, keyed by the strike nearest the snapshot price among the
 * strikes that contributed (the lower on a tie, iv-rank's at-the-money rule). A leg with no
 * contributing contract omits its field, as on exposure-by-strike.
 */
export function expirationTotals(exposures: readonly LegExposure[], spot: number): LegExposure[] {
  const byExp = new Map<string, LegExposure[]>();
  for (const e of exposures) {
    const list = byExp.get(e.expiration);
    if (list) list.push(e);
    else byExp.set(e.expiration, [e]);
  }
  const out: LegExposure[] = [];
  for (const [expiration, list] of byExp) {
    let key = list[0]!.strike;
    for (const e of list) {
      const d = Math.abs(e.strike - spot);
      const bd = Math.abs(key - spot);
      if (d < bd || (d === bd && e.strike < key)) key = e.strike;
    }
    for (const right of ['CALL', 'PUT'] as const) {
      const legs = list.filter((e) => e.right === right);
      if (legs.length) out.push({ expiration, strike: key, right, exposure: legs.reduce((s, e) => s + e.exposure, 0) });
    }
  }
  return out;
}
