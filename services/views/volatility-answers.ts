import { moneynessOf } from '../domain/order-flow';
import { GREEK_MODES, legExposure, scaleExposure, type GreekMode, type RepresentationMode } from '../domain/volatility';
import { strikeKey } from './ordered-map';
import { osiParts, type SurfaceContract, type SurfaceLeg } from './volatility';

/**
 * What a quote snapshot answers, as JSON text in response form: the term-structure `data` and
 * the RAW exposure of every greek (interval-map's cells; exposure-by-strike's map once its legs
 * are renamed and, for the move representations, its values scaled). The volatility projection
 * writes them once per snapshot (ans:<T>:<ms>, services/views/volatility.ts), so an unfiltered
 * request concatenates stored text; a request with a filter no stored answer serves writes the
 * same text from the surface with these same functions, so both paths give the same bytes.
 *
 * The text is what JSON.stringify gives for the endpoints' ordered maps (expirations ascending,
 * strikes ascending, CALL before PUT, a strike or expiration without a cell left out), written
 * directly: building objects for JSON.stringify to walk cost the projection most of its time.
 */

/** One strike of an expiration: its contracts that have greeks (and pass the request's filter). */
export interface StrikeLegs {
  strike: number;
  /** The response key ("585.0"). */
  key: string;
  CALL?: SurfaceContract;
  PUT?: SurfaceContract;
}

/** The contracts of a snapshot, by expiration then strike, both ascending. */
export type Chain = [expiration: string, strikes: StrikeLegs[]][];

/** Open interest of a contract in the snapshot's session (undefined when none is published). */
export type OpenInterestOf = (osi: string) => number | undefined;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A number as JSON.stringify writes it (non-finite as null). */
const num = (x: number) => (Number.isFinite(x) ? String(x) : 'null');

/**
 * The priced contracts of a surface that `keep` keeps (all when absent), grouped; a contract
 * without greeks is in no answer. The projection passes no `keep` and builds no leg objects.
 */
export function chainOf(contracts: Iterable<SurfaceContract>, keep?: (l: SurfaceLeg) => boolean): Chain {
  const byExp = new Map<string, Map<number, StrikeLegs>>();
  for (const c of contracts) {
    const p = c.greeks && osiParts(c.osi);
    if (!p || (keep && !keep({ ...c, right: p.right, strike: p.strike, expiration: p.expiration }))) continue;
    let strikes = byExp.get(p.expiration);
    if (!strikes) byExp.set(p.expiration, (strikes = new Map()));
    let s = strikes.get(p.strike);
    if (!s) strikes.set(p.strike, (s = { strike: p.strike, key: strikeKey(p.strike) }));
    s[p.right] = c;
  }
  return [...byExp].sort(([a], [b]) => byText(a, b)).map(([exp, strikes]) => [exp, [...strikes.values()].sort((a, b) => a.strike - b.strike)]);
}

/** `{"<expiration>":{"<strike>":<cell>,...},...}` with the strikes whose cell is not null. */
function writeMap(chain: Chain, cell: (s: StrikeLegs) => string | null): string {
  const exps: string[] = [];
  for (const [exp, strikes] of chain) {
    const parts: string[] = [];
    for (const s of strikes) {
      const c = cell(s);
      if (c !== null) parts.push(`"${s.key}":${c}`);
    }
    if (parts.length) exps.push(`"${exp}":{${parts.join(',')}}`);
  }
  return `{${exps.join(',')}}`;
}

/** `{"CALL":..,"PUT":..}` of the legs that have a value, or null when neither has. */
function writeCell(call: string | undefined, put: string | undefined): string | null {
  if (call === undefined && put === undefined) return null;
  if (put === undefined) return `{"CALL":${call}}`;
  if (call === undefined) return `{"PUT":${put}}`;
  return `{"CALL":${call},"PUT":${put}}`;
}

/** term-structure's `data`: per leg its delta, IV and moneyness at the snapshot price. */
export function termStructureJson(chain: Chain, spot: number): string {
  const leg = (c: SurfaceContract | undefined, right: 'CALL' | 'PUT', strike: number) =>
    c && `{"delta":${num(c.greeks!.delta)},"iv":${num(c.greeks!.iv)},"moneyType":"${moneynessOf(right, spot, strike).moneyType}"}`;
  return writeMap(chain, (s) => writeCell(leg(s.CALL, 'CALL', s.strike), leg(s.PUT, 'PUT', s.strike)));
}

/**
 * The RAW exposure map of a greek in interval-map's form (legs CALL and PUT), legExposure's
 * value per leg: a leg without open interest (none published, or 0) has none.
 */
export function rawExposureJson(chain: Chain, spot: number, oi: OpenInterestOf, greek: GreekMode): string {
  const leg = (c: SurfaceContract | undefined) => {
    const contracts = c && oi(c.osi);
    return contracts ? num(legExposure(contracts, c!.greeks!, greek, 'RAW', spot)) : undefined;
  };
  return writeMap(chain, (s) => writeCell(leg(s.CALL), leg(s.PUT)));
}

const LEG_VALUE = /"(CALL|PUT)":(-?[0-9.eE+-]+|null)/g;

/**
 * exposure-by-strike's map from a RAW map: legs renamed callExposure / putExposure and, for the
 * move representations, each value scaled by scaleExposure. A RAW value read back is the same
 * double (a JS number's text round-trips), so the scaled value has the bits legExposure gives.
 * One pass over the text: the strike keys carry a decimal point, so only legs match.
 */
export function exposureMapJson(raw: string, representation: RepresentationMode, spot: number): string {
  return raw.replace(LEG_VALUE, (_, right: string, v: string) => {
    const value = representation === 'RAW' || v === 'null' ? v : num(scaleExposure(Number(v), representation, spot));
    return `"${right === 'CALL' ? 'callExposure' : 'putExposure'}":${value}`;
  });
}

/** Field names of a snapshot's stored answers (hash ans:<T>:<ms>). */
export const answerField = {
  /** The snapshot's underlying price (stockPrice), as JSON. */
  spot: 'p',
  termStructure: 'ts',
  exposure: (greek: GreekMode) => `x:${greek}`,
};

/** The answers that depend on the surface alone, as HSET field-value pairs. */
export function surfaceAnswers(chain: Chain, spot: number): string[] {
  return [answerField.spot, num(spot), answerField.termStructure, termStructureJson(chain, spot)];
}

/**
 * The answers that also depend on the session's open interest, as HSET field-value pairs; null
 * when none is published yet (on a replay the quotes often come first): every map is then empty.
 */
export function exposureAnswers(chain: Chain, spot: number, oi: OpenInterestOf | null): string[] {
  return GREEK_MODES.flatMap((greek) => [answerField.exposure(greek), oi ? rawExposureJson(chain, spot, oi, greek) : '{}']);
}
