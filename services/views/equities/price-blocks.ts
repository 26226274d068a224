/**
 * Price blocks of the stock-price view (stock-prices.ts): every price event of a ticker and
 * session, packed per block of BLOCK_MINUTES minutes into one field of a hash,
 *
 *   <date>:px:<TICKER>   hash  field = the block's number from the session date's UTC midnight
 *                              (decimal), value = the block's events, packed (below)
 *
 * A block holds the distinct (time, price) pairs of its minutes in the order of the view: by time,
 * then by the price's decimal string byte for byte (the order the old `<time>:<price>` zset members
 * had, so a second with two prices reads as it did). It is a function of that set alone, so a
 * replay gives the same bytes however it is chunked or ordered, and a redelivered event changes
 * nothing. A block whose minutes each hold at most two events, at distinct times, is not stored:
 * the minutes' bars (price-bars.ts) hold those events as their open and close (a daily-tier session,
 * its official open and close only, has no block at all).
 *
 * Packing: a header byte (bits 0-3 the price grid's decimals k, bit 4 set when every time is a
 * whole number of seconds from one phase; the phase in ms follows as a varint), then one token per
 * event against the previous event (the first against time 0 of the block and price 0):
 *   0x00-0xFD  one time unit later, the price `zigzag(token)` grid steps away (-127..126)
 *   0xFE       varint time units later, zigzag-varint grid steps away
 *   0xFF       varint time units later, a price off the grid: float64 little-endian (the grid's
 *              running price does not move)
 * A time unit is a second when bit 4 is set, else a millisecond. The grid is 10^-k dollars for the
 * smallest k (at most MAX_DECIMALS) that holds every price that is on some such grid; a price is on
 * it when `round(p * 10^k) / 10^k === p` exactly, so decoding divides and gives back the very double.
 * Feed prices are whole cents a second apart: one byte per event.
 */

export const MINUTE_MS = 60_000;
export const BLOCK_MINUTES = 5;
export const BLOCK_MS = BLOCK_MINUTES * MINUTE_MS;
const MAX_DECIMALS = 12;
/** Grid steps beyond this are not kept on the grid: a zigzag stays a safe integer. */
const MAX_STEPS = 2 ** 50;
const POW10 = Array.from({ length: MAX_DECIMALS + 1 }, (_, k) => 10 ** k);
const SECONDS_FLAG = 0x10;
const TOKEN_WIDE = 0xfe;
const TOKEN_DOUBLE = 0xff;

/** One price event. */
export interface PricePoint {
  time: number;
  price: number;
}

/** The epoch-ms of a session date's UTC midnight, the origin of its block numbers. */
export function blockOrigin(sessionDate: string): number {
  const ms = Date.parse(`${sessionDate}T00:00:00Z`);
  if (!Number.isFinite(ms)) throw new RangeError(`not a session date: ${sessionDate}`);
  return ms;
}

/** The block number (hash field) of `time` in the session whose origin is `origin`. */
export function blockNumber(origin: number, time: number): number {
  return Math.floor((time - origin) / BLOCK_MS);
}

/** The first epoch-ms of block `n`. */
export function blockStart(origin: number, n: number): number {
  return origin + n * BLOCK_MS;
}

/** The view's order: time, then the price's decimal string byte for byte. */
export function comparePoints(a: PricePoint, b: PricePoint): number {
  if (a.time !== b.time) return a.time - b.time;
  if (a.price === b.price) return 0;
  const x = String(a.price);
  const y = String(b.price);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `points` sorted in the view's order without repeats (a new array). */
export function canonical(points: readonly PricePoint[]): PricePoint[] {
  // Feeds arrive in time order: a strictly ascending run needs no sort.
  let i = 1;
  while (i < points.length && points[i - 1].time < points[i].time) i++;
  if (i >= points.length) return points.slice();
  const s = [...points].sort(comparePoints);
  const out: PricePoint[] = [];
  for (const p of s) if (!out.length || comparePoints(out[out.length - 1], p) !== 0) out.push(p);
  return out;
}

/** Whether sorted, distinct points of one minute are held by its bar: at most two, at distinct times. */
export function barHolds(minute: readonly PricePoint[]): boolean {
  return minute.length <= 1 || (minute.length === 2 && minute[0].time !== minute[1].time);
}

/** Whether a block of sorted, distinct points needs storing: some minute's bar does not hold it. */
export function needsBlock(points: readonly PricePoint[]): boolean {
  let i = 0;
  while (i < points.length) {
    const m = points[i].time - (points[i].time % MINUTE_MS);
    let j = i + 1;
    while (j < points.length && points[j].time < m + MINUTE_MS) j++;
    if (j - i > 2 || (j - i === 2 && points[i].time === points[i + 1].time)) return true;
    i = j;
  }
  return false;
}

/** The decimals of the finest grid that `price` is on, or -1 when none up to MAX_DECIMALS is. */
function decimalsOf(price: number): number {
  for (let k = 0; k <= MAX_DECIMALS; k++) if (onGrid(price, k)) return k;
  return -1;
}

function onGrid(price: number, k: number): boolean {
  const n = Math.round(price * POW10[k]);
  return Math.abs(n) <= MAX_STEPS && n / POW10[k] === price;
}

/** Appends an unsigned varint (any safe integer, not only 32-bit). */
function putVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

const zigzag = (v: number) => (v >= 0 ? 2 * v : -2 * v - 1);
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

/** Packs the sorted, distinct points of the block starting at `start` (canonical()'s output). */
export function encodeBlock(start: number, points: readonly PricePoint[]): Buffer {
  if (!points.length) throw new Error('an empty price block');
  let k = 0;
  let phase = (points[0].time - start) % 1000;
  let seconds = true;
  for (const p of points) {
    if (!(p.time >= start && p.time < start + BLOCK_MS)) throw new RangeError(`a price at ${p.time} is outside the block from ${start}`);
    const d = decimalsOf(p.price);
    if (d > k) k = d;
    if (seconds && (p.time - start) % 1000 !== phase) seconds = false;
  }
  if (!seconds) phase = 0;
  const unit = seconds ? 1000 : 1;
  const scale = POW10[k];
  const out: number[] = [k | (seconds ? SECONDS_FLAG : 0)];
  if (seconds) putVarint(out, phase);
  const doubles: [number, number][] = [];
  let prevUnits = 0;
  let prevSteps = 0;
  for (const p of points) {
    const units = (p.time - start - phase) / unit;
    const dt = units - prevUnits;
    if (dt < 0) throw new RangeError('price block points must be in time order (canonical())');
    prevUnits = units;
    const steps = Math.round(p.price * scale);
    if (Math.abs(steps) <= MAX_STEPS && steps / scale === p.price) {
      const z = zigzag(steps - prevSteps);
      prevSteps = steps;
      if (dt === 1 && z < TOKEN_WIDE) out.push(z);
      else {
        out.push(TOKEN_WIDE);
        putVarint(out, dt);
        putVarint(out, z);
      }
    } else {
      out.push(TOKEN_DOUBLE);
      putVarint(out, dt);
      doubles.push([out.length, p.price]);
      for (let b = 0; b < 8; b++) out.push(0);
    }
  }
  const buf = Buffer.from(out);
  for (const [at, price] of doubles) buf.writeDoubleLE(price, at);
  return buf;
}

/** Walks a block packed by encodeBlock event by event, allocating nothing per event. */
export class BlockReader {
  /** The current event's time and price, after next() returned true. */
  time = 0;
  price = 0;
  private i = 0;
  private readonly base: number;
  private readonly unit: number;
  private readonly scale: number;
  private units = 0;
  private steps = 0;

  constructor(
    start: number,
    private readonly buf: Buffer,
  ) {
    if (!buf.length) throw new Error('an empty price block');
    const head = buf[this.i++];
    const k = head & 0x0f;
    if (k > MAX_DECIMALS || head & 0xe0) throw new Error(`a price block of unknown header ${head}`);
    const seconds = (head & SECONDS_FLAG) !== 0;
    this.base = start + (seconds ? this.varint() : 0);
    this.unit = seconds ? 1000 : 1;
    this.scale = POW10[k];
  }

  /** Moves to the next event; false at the block's end. */
  next(): boolean {
    const buf = this.buf;
    if (this.i >= buf.length) return false;
    const t = buf[this.i++];
    if (t < TOKEN_WIDE) {
      this.units += 1;
      this.steps += unzigzag(t);
      this.price = this.steps / this.scale;
    } else if (t === TOKEN_WIDE) {
      this.units += this.varint();
      this.steps += unzigzag(this.varint());
      this.price = this.steps / this.scale;
    } else {
      this.units += this.varint();
      if (this.i + 8 > buf.length) throw new Error('a price block ends inside a price');
      this.price = buf.readDoubleLE(this.i);
      this.i += 8;
    }
    this.time = this.base + this.units * this.unit;
    return true;
  }

  private varint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (this.i >= this.buf.length) throw new Error('a price block ends inside a varint');
      const b = this.buf[this.i++];
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  }
}

/** The points of a block packed by encodeBlock (in the view's order). */
export function decodeBlock(start: number, buf: Buffer): PricePoint[] {
  const out: PricePoint[] = [];
  const r = new BlockReader(start, buf);
  while (r.next()) out.push({ time: r.time, price: r.price });
  return out;
}

/** The price of a block's last event before `bound` (exclusive), or undefined without one. */
export function lastBefore(start: number, buf: Buffer, bound: number): number | undefined {
  let price: number | undefined;
  const r = new BlockReader(start, buf);
  while (r.next() && r.time < bound) price = r.price;
  return price;
}
