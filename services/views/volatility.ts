import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { partitionOf } from '../kafka/partition';
import { parseOsi, type OsiParts } from '../domain/osi';
import type { OptionRight } from '../domain/pricing';
import type { SurfaceGreeks } from '../domain/volatility';
import { PartitionKeys } from './keys';

/**
 * The volatility view: per underlying, the surface of every option-quote snapshot, the underlying
 * prices the snapshots are priced at, the open interest of each session and a compact per-session
 * record for iv-rank. Per partition (every key carries the partition's hash tag):
 *
 *   snaps:<T>          zset   snapshot instants of ticker T (member and score: epoch-ms)
 *   s:<T>:<ms>         string the surface at that instant (encodeSurface)
 *   px:<T>:<date>      hash   epoch-ms -> "<kind><price>" for the prices a snapshot can be priced at:
 *                             the official OPEN (O) and CLOSE (C) and the TICKs on whole minutes (T)
 *   oi:<T>:<date>      string open interest of the session, JSON {osi: contracts} (sorted keys)
 *   ivx:<T>            hash   session date -> JSON {p: close, e: [[expiration, callIv, putIv]...]}:
 *                             the at-the-money IV of each expiration at the end-of-day snapshot
 *   ans:<T>:<ms>       hash   the snapshot's answers in response form (volatility-answers.ts): its
 *                             price, term-structure data, the exposure map of every greek and
 *                             representation and the interval-map cells of every greek; only for a
 *                             snapshot with an underlying price
 *
 * Strings rather than hashes hold a surface and a session's open interest: they are read whole,
 * and a string costs a fraction of a hash's per-field overhead over hundreds of sessions.
 */

export const VOLATILITY_VIEW = 'volatility';
/**
 * Version of the layout above: a view stored under another layout is rebuilt when the projector
 * starts. 2: the snapshots' stored answers (ans:<T>:<ms>).
 */
export const VOLATILITY_LAYOUT_FORMAT = 2;

export function volatilityKeys(prefix: string, version: number, ticker: string): PartitionKeys {
  return new PartitionKeys(prefix, VOLATILITY_VIEW, version, partitionOf(ticker, MARKET_PARTITIONS));
}

export const volKey = {
  snaps: (k: PartitionKeys, ticker: string) => k.key('snaps', ticker),
  surface: (k: PartitionKeys, ticker: string, ms: number) => k.key('s', ticker, String(ms)),
  prices: (k: PartitionKeys, ticker: string, date: string) => k.key('px', ticker, date),
  openInterest: (k: PartitionKeys, ticker: string, date: string) => k.key('oi', ticker, date),
  ivIndex: (k: PartitionKeys, ticker: string) => k.key('ivx', ticker),
  answers: (k: PartitionKeys, ticker: string, ms: number) => k.key('ans', ticker, String(ms)),
};

/** One contract of a surface: its quote and, when the quote admits one, its IV and greeks. */
export interface SurfaceContract {
  osi: string;
  bid: number;
  ask: number;
  greeks: SurfaceGreeks | null;
}

export interface Surface {
  /** The underlying price the snapshot is priced at; null while none is known. */
  spot: number | null;
  /** By osi. */
  contracts: Map<string, SurfaceContract>;
}

type StoredContract = [string, number, number] | [string, number, number, number, number, number, number, number];

/** Contracts sorted by osi, so the same surface encodes to the same bytes whatever order its quotes came in. */
export function encodeSurface(s: Surface): string {
  const list: StoredContract[] = [...s.contracts.values()]
    .sort((a, b) => (a.osi < b.osi ? -1 : a.osi > b.osi ? 1 : 0))
    .map((c) => (c.greeks ? [c.osi, c.bid, c.ask, c.greeks.iv, c.greeks.delta, c.greeks.gamma, c.greeks.charm, c.greeks.vanna] : [c.osi, c.bid, c.ask]));
  return JSON.stringify({ s: s.spot, c: list });
}

export function decodeSurface(text: string): Surface {
  const o = JSON.parse(text) as { s: number | null; c: StoredContract[] };
  const contracts = new Map<string, SurfaceContract>();
  for (const c of o.c) {
    const greeks = c.length === 8 ? { iv: c[3], delta: c[4], gamma: c[5], charm: c[6], vanna: c[7] } : null;
    contracts.set(c[0], { osi: c[0], bid: c[1], ask: c[2], greeks });
  }
  return { spot: o.s, contracts };
}

/** A surface contract with its OSI parts, as the endpoints read it. */
export interface SurfaceLeg extends SurfaceContract {
  right: OptionRight;
  strike: number;
  expiration: string;
}

// Every read of a surface needs its contracts' OSI parts, and parsing a symbol costs microseconds
// (a regex and a date check): parsed once per process, bounded so a long-running API does not keep
// every contract it ever served.
const OSI_CACHE_MAX = 200_000;
const osiCache = new Map<string, OsiParts | null>();
export function osiParts(osi: string): OsiParts | null {
  let p = osiCache.get(osi);
  if (p === undefined) {
    if (osiCache.size >= OSI_CACHE_MAX) osiCache.clear();
    osiCache.set(osi, (p = parseOsi(osi)));
  }
  return p;
}

export function surfaceLegs(s: Surface): SurfaceLeg[] {
  const out: SurfaceLeg[] = [];
  for (const c of s.contracts.values()) {
    const p = osiParts(c.osi);
    if (p) out.push({ ...c, right: p.right, strike: p.strike, expiration: p.expiration });
  }
  return out;
}

/**
 * The legs with greeks of a stored surface that `want` keeps (by osi), straight from the stored
 * form: a reader that needs a few legs (those with open interest, say) builds no object for the
 * others, which in a large chain are most of them.
 */
export function decodePricedLegs(text: string, want: (osi: string) => boolean): { spot: number | null; legs: SurfaceLeg[] } {
  const o = JSON.parse(text) as { s: number | null; c: StoredContract[] };
  const legs: SurfaceLeg[] = [];
  for (const c of o.c) {
    if (c.length !== 8 || !want(c[0])) continue;
    const p = osiParts(c[0]);
    if (p)
      legs.push({
        osi: c[0],
        bid: c[1],
        ask: c[2],
        greeks: { iv: c[3], delta: c[4], gamma: c[5], charm: c[6], vanna: c[7] },
        right: p.right,
        strike: p.strike,
        expiration: p.expiration,
      });
  }
  return { spot: o.s, legs };
}

/** Price kinds in px hashes, by precedence at one instant: the official close over a tick over the open. */
export const PRICE_KIND_RANK: Record<string, number> = { O: 0, T: 1, C: 2 };

/** The underlying price of a snapshot at `atMs`: the last stored price at or before it in its session. */
export function spotAt(prices: ReadonlyMap<number, string>, atMs: number): number | null {
  let bestT = -Infinity;
  let best: string | null = null;
  for (const [t, v] of prices) {
    if (t <= atMs && t > bestT) {
      bestT = t;
      best = v;
    }
  }
  return best === null ? null : Number(best.slice(1));
}

export interface IvIndexEntry {
  /** underlying close */
  p: number;
  /** [expiration, call ATM IV, put ATM IV], ascending by expiration */
  e: [string, number | null, number | null][];
}
