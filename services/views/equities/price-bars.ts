/**
 * Price bars of the stock-price view (stock-prices.ts): per ticker and session, the open, high,
 * low and close of the underlying's price events, for the session and for each minute that has an
 * event, so stock-price-over-time (and dark-flow's stockPrice, volatility-drift's minute closes)
 * reads one record per minute, or one per session for day and week buckets, instead of every price
 * second. Per partition (hash tag):
 *
 *   <date>:pb:<TICKER>   string  record 0: the session's bar; records 1..: the minutes' bars, ascending
 *
 * A record is 48 bytes, little-endian float64s: openTime, open, high, low, closeTime, close (times
 * epoch-ms). A minute's start is floor(openTime / 60 s). Open is the price of the earliest event,
 * close of the latest (by event time, not arrival): merging two bars keeps the earlier open and
 * the later close, so the table is the same however a replay is chunked or ordered, and a
 * redelivered event changes nothing. Two prices at one instant (the feed has one, an import may
 * not) are ordered as the price blocks order them (price-blocks.ts: by the price's decimal string),
 * the open the first and the close the last, so a bar never depends on arrival order either.
 */

import { MINUTE_MS, decodeBlock, type PricePoint } from './price-blocks';

export { MINUTE_MS };
const RECORD_BYTES = 48;

/** Whether a price at time t comes before the price p0 at t0 in the view's order (price-blocks.ts). */
function before(t: number, p: number, t0: number, p0: number): boolean {
  return t < t0 || (t === t0 && p !== p0 && String(p) < String(p0));
}

export interface PriceBar {
  openTime: number;
  open: number;
  high: number;
  low: number;
  closeTime: number;
  close: number;
}

export function priceBarsSuffix(sessionDate: string, ticker: string): string[] {
  return [sessionDate, 'pb', ticker];
}

/** The bar of one price event. */
export function barOf(time: number, price: number): PriceBar {
  return { openTime: time, open: price, high: price, low: price, closeTime: time, close: price };
}

/** `a` and `b` as one bar (either may be null); neither is modified. */
export function mergeBar(a: PriceBar | null, b: PriceBar): PriceBar {
  if (!a) return b;
  const first = before(b.openTime, b.open, a.openTime, a.open) ? b : a;
  const last = before(a.closeTime, a.close, b.closeTime, b.close) ? b : a;
  return {
    openTime: first.openTime,
    open: first.open,
    high: Math.max(a.high, b.high),
    low: Math.min(a.low, b.low),
    closeTime: last.closeTime,
    close: last.close,
  };
}

/**
 * The events of a minute that its bar holds when its block is not stored (price-blocks.ts): the
 * open, and the close when it is another instant.
 */
export function barEvents(b: PriceBar): PricePoint[] {
  const open = { time: b.openTime, price: b.open };
  return b.closeTime === b.openTime ? [open] : [open, { time: b.closeTime, price: b.close }];
}

/**
 * The events of the minute starting at `minute` with times in [from, to), in the view's order:
 * from its block (starting at `blockStart`) when that is stored, else from its bar (none without one).
 */
export function minuteEvents(bar: PriceBar | undefined, block: Buffer | null, blockStart: number, minute: number, from: number, to: number): PricePoint[] {
  const lo = Math.max(from, minute);
  const hi = Math.min(to, minute + MINUTE_MS);
  const all = block ? decodeBlock(blockStart, block) : bar ? barEvents(bar) : [];
  return all.filter((p) => p.time >= lo && p.time < hi);
}

/** A session's bars: the session bar and the minute bars by minute start. */
export interface SessionBars {
  session: PriceBar | null;
  minutes: Map<number, PriceBar>;
}

/** Adds a price event into `into` (its bars are updated in place). */
export function addPrice(into: SessionBars, time: number, price: number): void {
  if (into.session) extend(into.session, time, price);
  else into.session = barOf(time, price);
  const m = time - (time % MINUTE_MS);
  const bar = into.minutes.get(m);
  if (bar) extend(bar, time, price);
  else into.minutes.set(m, barOf(time, price));
}

/** Adds one event into a bar, in place. */
function extend(b: PriceBar, time: number, price: number): void {
  if (before(time, price, b.openTime, b.open)) {
    b.openTime = time;
    b.open = price;
  }
  if (before(b.closeTime, b.close, time, price)) {
    b.closeTime = time;
    b.close = price;
  }
  if (price > b.high) b.high = price;
  if (price < b.low) b.low = price;
}

/** Adds a stored table (or its decoded bars) into `into`. */
export function addBars(into: SessionBars, table: Buffer | SessionBars): void {
  const got = Buffer.isBuffer(table) ? decodeBars(table) : table;
  if (got.session) into.session = mergeBar(into.session, got.session);
  for (const [m, b] of got.minutes) into.minutes.set(m, mergeBar(into.minutes.get(m) ?? null, b));
}

function writeBar(buf: Buffer, o: number, b: PriceBar): void {
  buf.writeDoubleLE(b.openTime, o);
  buf.writeDoubleLE(b.open, o + 8);
  buf.writeDoubleLE(b.high, o + 16);
  buf.writeDoubleLE(b.low, o + 24);
  buf.writeDoubleLE(b.closeTime, o + 32);
  buf.writeDoubleLE(b.close, o + 40);
}

function readBar(buf: Buffer, o: number): PriceBar {
  return {
    openTime: buf.readDoubleLE(o),
    open: buf.readDoubleLE(o + 8),
    high: buf.readDoubleLE(o + 16),
    low: buf.readDoubleLE(o + 24),
    closeTime: buf.readDoubleLE(o + 32),
    close: buf.readDoubleLE(o + 40),
  };
}

/** The stored table: the session bar, then the minutes ascending. */
export function encodeBars(bars: SessionBars): Buffer {
  if (!bars.session) throw new Error('a price-bar table needs its session bar');
  const minutes = [...bars.minutes.keys()].sort((a, b) => a - b);
  const buf = Buffer.allocUnsafe((minutes.length + 1) * RECORD_BYTES);
  writeBar(buf, 0, bars.session);
  minutes.forEach((m, i) => writeBar(buf, (i + 1) * RECORD_BYTES, bars.minutes.get(m)!));
  return buf;
}

export function decodeBars(table: Buffer): SessionBars {
  if (table.length % RECORD_BYTES !== 0 || table.length === 0) throw new Error(`a price-bar table of ${table.length} bytes is not whole records`);
  const minutes = new Map<number, PriceBar>();
  for (let o = RECORD_BYTES; o < table.length; o += RECORD_BYTES) {
    const b = readBar(table, o);
    minutes.set(Math.floor(b.openTime / MINUTE_MS) * MINUTE_MS, b);
  }
  return { session: readBar(table, 0), minutes };
}

/** The bytes of record 0 (GETRANGE key 0 SESSION_BAR_LAST): the session bar alone. */
export const SESSION_BAR_LAST = RECORD_BYTES - 1;

/** The session bar from the first record of a table (or from the record alone). */
export function decodeSessionBar(buf: Buffer): PriceBar {
  if (buf.length < RECORD_BYTES) throw new Error(`a session bar of ${buf.length} bytes`);
  return readBar(buf, 0);
}

/** A session's minute closes from its bars (volatility-drift's stockPrice and arv inputs). */
export interface MinuteCloses {
  /** The price at the open: the last event at or before `open`; null without one. */
  atOpen: number | null;
  /**
   * Per minute from `open`: the last event before the minute's end, i.e. the close of its bar
   * ([m, m + 60 s)), carried forward from earlier bars through minutes without one; null before
   * the session's first event.
   */
  closes: (number | null)[];
}

/**
 * The closes of `count` minutes from `open` (epoch-ms, a minute start) and the price at the open,
 * from a session's bars: an event exactly at a minute's end is the next minute's (the bars' own
 * boundaries). Bars before the open (an event of the session earlier than it) carry forward too.
 */
export function minuteCloses(bars: SessionBars, open: number, count: number): MinuteCloses {
  const starts = [...bars.minutes.keys()].sort((a, b) => a - b);
  let atOpen: number | null = null;
  for (const m of starts) {
    if (m > open) break;
    const b = bars.minutes.get(m)!;
    if (m < open) atOpen = b.close;
    else if (b.openTime === open) atOpen = b.open;
  }
  const closes: (number | null)[] = [];
  let carried: number | null = null;
  let j = 0;
  for (let i = 0; i < count; i++) {
    const m = open + i * MINUTE_MS;
    for (; j < starts.length && starts[j] <= m; j++) carried = bars.minutes.get(starts[j])!.close;
    closes.push(carried);
  }
  return { atOpen, closes };
}
