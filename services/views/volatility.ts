import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { partitionOf } from '../kafka/partition';
import { deflateRawSync, inflateRawSync } from 'zlib';
import { parseOsi, type OsiParts } from '../domain/osi';
import type { OptionRight } from '../domain/pricing';
import { greeksAtIv, yearsToExpiry, type SurfaceGreeks } from '../domain/volatility';
import { ByteReader, ByteWriter, exactCents, readDoublePlanes, writeDoublePlanes } from './volatility-codec';
import { PartitionKeys } from './keys';

/**
 * The volatility view: per underlying, the surface of every option-quote snapshot, the underlying
 * prices the snapshots are priced at, the open interest of each session and a compact per-session
 * record for iv-rank. Per partition (every key carries the partition's hash tag):
 *
 *   snaps:<T>          zset   snapshot instants of ticker T (member and score: epoch-ms)
 *   s:<T>:<ms>         string the surface at that instant (encodeSurface: deflated, binary)
 *   px:<T>:<date>      hash   epoch-ms -> "<kind><price>" for the prices a snapshot can be priced at:
 *                             the official OPEN (O) and CLOSE (C) and the TICKs on whole minutes (T)
 *   oi:<T>:<date>      string open interest of the session by osi (encodeOpenInterest: deflated, binary)
 *   ivx:<T>            hash   session date -> JSON {p: close, e: [[expiration, callIv, putIv]...]}:
 *                             the at-the-money IV of each expiration at the end-of-day snapshot
 *
 * Strings rather than hashes hold a surface and a session's open interest: they are read whole,
 * and a string costs a fraction of a hash's per-field overhead over hundreds of sessions. Both are
 * packed and deflated, each on its own (a read stays one GET): a surface is a tenth of its JSON.
 */

export const VOLATILITY_VIEW = 'volatility';
/** Version of the layout above: a view stored under another layout is rebuilt when the projector starts. */
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
};

/** One contract of a surface: its quote and, when the quote admits one, its IV. */
export interface SurfaceContract {
  osi: string;
  bid: number;
  ask: number;
  iv: number | null;
}

export interface Surface {
  /** The underlying price the snapshot is priced at; null while none is known. */
  spot: number | null;
  /** By osi. */
  contracts: Map<string, SurfaceContract>;
}

/** The rate and dividend yield a surface's IVs were solved with, so its greeks follow from them. */
export interface SurfacePricing {
  rate: number;
  dividend: number;
}

// The first byte of a layout-2 surface or open-interest value; a layout-1 value is JSON, so its
// first byte is "{". The API reads the old version of the view while the projector rebuilds the
// new one, so its readers take both (surfaceLegsAt, decodeOpenInterest).
const LAYOUT_2 = 2;
const JSON_OPEN = 0x7b;

function packed(body: Buffer): Buffer {
  return Buffer.concat([Buffer.of(LAYOUT_2), deflateRawSync(body)]);
}

function unpacked(stored: Buffer): ByteReader {
  if (stored[0] !== LAYOUT_2) throw new Error(`not a layout-${LAYOUT_2} volatility value (first byte ${stored[0]})`);
  return new ByteReader(inflateRawSync(stored.subarray(1)));
}

// Per-contract kind bits of a stored surface.
const PRICED = 1;
const BID_CENTS = 2;
const ASK_CENTS = 4;

/**
 * A surface as stored: a 2 (the layout), then raw deflate of
 *
 *   u8 1 when a spot follows, f64 spot, f64 rate, f64 dividend, varint n,
 *   n front-coded osi (sorted), n kind bytes (priced, bid in cents, ask in cents),
 *   n bids (varint cents, else f64), n asks (zigzag cents over the bid when both are cents,
 *   varint cents, else f64), and the IVs of the priced contracts as f64 byte planes.
 *
 * Quotes come in whole cents, so a price is its cents unless cents / 100 is not exactly it. The
 * greeks are not stored: they follow from the IV (greeksAtIv) and cost less to compute on a read
 * than they took to store and parse. Sorted by osi, so the same surface encodes to the same bytes
 * whatever order its quotes came in.
 */
export function encodeSurface(s: Surface, pricing: SurfacePricing): Buffer {
  const list = [...s.contracts.values()].sort((a, b) => (a.osi < b.osi ? -1 : a.osi > b.osi ? 1 : 0));
  const w = new ByteWriter();
  if (s.spot === null) w.u8(0);
  else {
    w.u8(1);
    w.f64(s.spot);
  }
  w.f64(pricing.rate);
  w.f64(pricing.dividend);
  w.varint(list.length);
  w.frontCoded(list.map((c) => c.osi));
  const bids: (number | null)[] = [];
  const asks: (number | null)[] = [];
  const ivs: number[] = [];
  for (const c of list) {
    const bid = exactCents(c.bid);
    const ask = exactCents(c.ask);
    bids.push(bid);
    asks.push(ask);
    if (c.iv !== null) ivs.push(c.iv);
    w.u8((c.iv !== null ? PRICED : 0) | (bid !== null ? BID_CENTS : 0) | (ask !== null ? ASK_CENTS : 0));
  }
  list.forEach((c, i) => (bids[i] !== null ? w.varint(bids[i]!) : w.f64(c.bid)));
  list.forEach((c, i) => {
    const bid = bids[i];
    const ask = asks[i];
    if (ask === null) w.f64(c.ask);
    else if (bid !== null) w.signed(ask - bid);
    else w.varint(ask);
  });
  writeDoublePlanes(w, ivs);
  return packed(w.done());
}

export function decodeSurface(stored: Buffer): Surface & { pricing: SurfacePricing } {
  const r = unpacked(stored);
  const spot = r.u8() === 1 ? r.f64() : null;
  const pricing = { rate: r.f64(), dividend: r.f64() };
  const n = r.varint();
  const osis = r.frontCoded(n);
  const kinds = r.bytes(n);
  const bidCents = new Array<number>(n);
  const bids = new Array<number>(n);
  const asks = new Array<number>(n);
  let priced = 0;
  for (let i = 0; i < n; i++) {
    if (kinds[i] & BID_CENTS) bids[i] = (bidCents[i] = r.varint()) / 100;
    else bids[i] = r.f64();
    if (kinds[i] & PRICED) priced++;
  }
  for (let i = 0; i < n; i++) {
    const k = kinds[i];
    if (!(k & ASK_CENTS)) asks[i] = r.f64();
    else if (k & BID_CENTS) asks[i] = (bidCents[i] + r.signed()) / 100;
    else asks[i] = r.varint() / 100;
  }
  const ivs = readDoublePlanes(r, priced);
  if (r.remaining !== 0) throw new Error('volatility surface has trailing bytes');
  const contracts = new Map<string, SurfaceContract>();
  let j = 0;
  for (let i = 0; i < n; i++) contracts.set(osis[i], { osi: osis[i], bid: bids[i], ask: asks[i], iv: kinds[i] & PRICED ? ivs[j++] : null });
  return { spot, pricing, contracts };
}

/** A surface contract with its OSI parts and, when it has an IV, its greeks, as the endpoints read it. */
export interface SurfaceLeg {
  osi: string;
  bid: number;
  ask: number;
  greeks: SurfaceGreeks | null;
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

/**
 * The legs of a stored surface taken at `ms` (its instant) that `want` keeps (by osi; every leg
 * without it), each priced leg with its greeks at its IV: a reader that needs a few legs (those
 * with open interest, say) prices none of the others, which in a large chain are most of them.
 * `pricedOnly` leaves the legs without an IV out.
 */
export function surfaceLegsAt(
  stored: Buffer,
  ms: number,
  o: { want?: (osi: string) => boolean; pricedOnly?: boolean } = {},
): { spot: number | null; legs: SurfaceLeg[] } {
  if (stored[0] === JSON_OPEN) return layout1Legs(stored, o);
  const s = decodeSurface(stored);
  const { rate, dividend } = s.pricing;
  const years = new Map<string, number>();
  const legs: SurfaceLeg[] = [];
  for (const c of s.contracts.values()) {
    if ((o.pricedOnly && c.iv === null) || (o.want && !o.want(c.osi))) continue;
    const p = osiParts(c.osi);
    if (!p) continue;
    let greeks: SurfaceGreeks | null = null;
    if (c.iv !== null && s.spot !== null) {
      let t = years.get(p.expiration);
      if (t === undefined) years.set(p.expiration, (t = yearsToExpiry(ms, p.expiration)));
      greeks = greeksAtIv(p.right, p.strike, t, s.spot, rate, dividend, c.iv);
    }
    legs.push({ osi: c.osi, bid: c.bid, ask: c.ask, greeks, right: p.right, strike: p.strike, expiration: p.expiration });
  }
  return { spot: s.spot, legs };
}

/**
 * A session's open interest as stored: a 2 (the layout), then raw deflate of a 1, varint n, n
 * front-coded osi (sorted) and n values (varint); or of a 0 and its JSON object when a value is
 * not a whole number.
 */
export function encodeOpenInterest(values: ReadonlyMap<string, number>): Buffer {
  const list = [...values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const w = new ByteWriter();
  if (list.every(([, v]) => Number.isSafeInteger(v) && v >= 0 && !Object.is(v, -0))) {
    w.u8(1);
    w.varint(list.length);
    w.frontCoded(list.map(([osi]) => osi));
    for (const [, v] of list) w.varint(v);
  } else {
    w.u8(0);
    w.utf8(JSON.stringify(Object.fromEntries(list)));
  }
  return packed(w.done());
}

/** By osi, ascending. */
export function decodeOpenInterest(stored: Buffer): Map<string, number> {
  if (stored[0] === JSON_OPEN) return new Map(Object.entries(JSON.parse(stored.toString('utf8')) as Record<string, number>));
  const r = unpacked(stored);
  if (r.u8() === 0) return new Map(Object.entries(JSON.parse(r.utf8()) as Record<string, number>));
  const n = r.varint();
  const osis = r.frontCoded(n);
  const out = new Map<string, number>();
  for (const osi of osis) out.set(osi, r.varint());
  return out;
}

type Layout1Contract = [string, number, number] | [string, number, number, number, number, number, number, number];

/** surfaceLegsAt of a layout-1 surface: JSON {s: spot, c: [[osi, bid, ask, iv?, delta?, gamma?, charm?, vanna?]...]}. */
function layout1Legs(stored: Buffer, o: { want?: (osi: string) => boolean; pricedOnly?: boolean }): { spot: number | null; legs: SurfaceLeg[] } {
  const v = JSON.parse(stored.toString('utf8')) as { s: number | null; c: Layout1Contract[] };
  const legs: SurfaceLeg[] = [];
  for (const c of v.c) {
    if ((o.pricedOnly && c.length !== 8) || (o.want && !o.want(c[0]))) continue;
    const p = osiParts(c[0]);
    if (!p) continue;
    const greeks = c.length === 8 ? { iv: c[3], delta: c[4], gamma: c[5], charm: c[6], vanna: c[7] } : null;
    legs.push({ osi: c[0], bid: c[1], ask: c[2], greeks, right: p.right, strike: p.strike, expiration: p.expiration });
  }
  return { spot: v.s, legs };
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
