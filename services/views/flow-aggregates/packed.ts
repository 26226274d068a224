import { fromDayNumber, toDayNumber } from '../../domain/calendar';
import { INDUSTRIES, SECTORS } from '../../domain/enums';
import { MONEY_TYPES } from '../../domain/order-flow';
import { OPTION_EXCHANGE_CODES } from '../../domain/venues';

/**
 * The cube's packed blocks: many logical hash entries (field -> value, the strings cells.ts builds
 * and parses) stored as one binary Redis hash value. A busy underlying's cells were one hash field
 * each, past Redis's compact listpack encoding, so every cell paid a hash-table entry (~60 bytes)
 * beside its ~60-character text; a block pays that once for all the cells of, say, one minute.
 *
 * Lossless for any strings: a field is split at '|' and a value at its family's separator, and each
 * token is written as a varint `payload * 8 + kind`:
 *
 *   0 canonical non-negative integer (cents, counts, epoch minutes and ms)   payload = the integer
 *   1 a token of the shared dictionary STATIC (sides, money types, exchanges, sectors, industries)
 *   2 any other string                        payload = its UTF-8 length, the bytes follow
 *   3 canonical positive decimal (strikes, prices)     payload = mantissa * 8 + (fraction digits - 1)
 *   4 a yyyy-MM-dd date (expirations)                                         payload = day number
 *   5 a print's rowKey (order-flow.ts rowKeyOf)                   payload = offset * 100 + partition
 *   6 the same text as an earlier token of the field or value (not in STATIC)   payload = its index
 *
 * A token is only given kind 0, 3, 4 or 5 when decoding gives back exactly its text, so anything
 * else (a leading zero, an exponent, a negative) is written as a string.
 *
 * Block: varint flags (1: every field's first token is the block's name and is left out), then per
 * entry varint length and bytes of the field's tokens, varint length and bytes of the value's. An
 * entry's bytes depend on it alone, so a writer copies the entries it does not change as bytes and
 * encodes only those it does (updateBlock); entries stay in the order they were first written,
 * which is the order of the topic, so a rebuild in any chunking gives the same bytes.
 */

/** The shared dictionary; its order is part of the view's format (the most common first: one byte each). */
const STATIC: readonly string[] = [
  '',
  '*',
  'C',
  'P',
  'A',
  'B',
  'M',
  'AA',
  'BB',
  ...MONEY_TYPES,
  '00',
  '01',
  ...OPTION_EXCHANGE_CODES,
  ...SECTORS,
  ...INDUSTRIES,
];
const STATIC_INDEX = new Map(STATIC.map((s, i) => [s, i]));

const DECIMAL_RE = /^(0|[1-9]\d{0,7})\.(\d{0,5}[1-9])$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const ROW_KEY_RE = /^\d\d[0-9a-z]{8}$/;
const MAX_INT = 2 ** 50;

/** Flag of a block whose fields leave out their first token, the block's name. */
const STRIPPED = 1;

class Writer {
  buf = Buffer.allocUnsafe(128);
  n = 0;
  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.n + k));
    this.buf.copy(next, 0, 0, this.n);
    this.buf = next;
  }
  varint(v: number): void {
    this.room(8);
    while (v >= 128) {
      this.buf[this.n++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    this.buf[this.n++] = v;
  }
  /** Bytes [from, to) of `b`. */
  copyFrom(b: Buffer, from: number, to: number): void {
    this.room(to - from);
    b.copy(this.buf, this.n, from, to);
    this.n += to - from;
  }
  /** A value's tokens, length-prefixed (encoded in the scratch writer first, for the length). */
  value(s: string, sep: string): void {
    scratch.n = 0;
    scratch.tokens(s, sep, 0);
    this.varint(scratch.n);
    this.copyFrom(scratch.buf, 0, scratch.n);
  }
  /** A token: its code, or its text as a string. */
  token(s: string): void {
    const code = tokenCode(s);
    if (code >= 0) return this.varint(code);
    const len = Buffer.byteLength(s);
    this.varint(len * 8 + 2);
    this.room(len);
    this.n += this.buf.write(s, this.n);
  }
  /** The tokens of `s` split at `sep`, from the `skip`-th on. */
  tokens(s: string, sep: string, skip: number): void {
    const parts = s.split(sep);
    next: for (let i = skip; i < parts.length; i++) {
      const t = parts[i];
      // A repeat (a one-print bar's open, high, low and close) refers back to the first occurrence.
      if (!STATIC_INDEX.has(t)) {
        for (let j = skip; j < i; j++) {
          if (parts[j] === t) {
            this.varint((j - skip) * 8 + 6);
            continue next;
          }
        }
      }
      this.token(t);
    }
  }
  /** A string of bytes, one per character (an encoding made by latin1()). */
  latin1String(s: string): void {
    this.room(s.length);
    this.n += this.buf.write(s, this.n, 'latin1');
  }
  latin1(): string {
    return this.buf.toString('latin1', 0, this.n);
  }
  done(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.n));
  }
}

class Reader {
  constructor(
    private readonly buf: Buffer,
    public i = 0,
  ) {}
  varint(): number {
    let v = 0;
    let scale = 1;
    for (;;) {
      const b = this.buf[this.i++];
      if (b === undefined) throw new Error('truncated flow-aggregates block');
      v += (b & 127) * scale;
      if (b < 128) return v;
      scale *= 128;
    }
  }
  token(seen: readonly string[]): string {
    const code = this.varint();
    const kind = code % 8;
    const payload = (code - kind) / 8;
    switch (kind) {
      case 0:
        return String(payload);
      case 1:
        return STATIC[payload];
      case 2: {
        const s = this.buf.toString('utf8', this.i, this.i + payload);
        this.i += payload;
        return s;
      }
      case 3: {
        const digits = payload % 8;
        const m = String((payload - digits) / 8).padStart(digits + 2, '0');
        return `${m.slice(0, m.length - digits - 1)}.${m.slice(m.length - digits - 1)}`;
      }
      case 4: {
        let d = DATE_STRINGS.get(payload);
        if (d === undefined) {
          d = fromDayNumber(payload);
          if (DATE_STRINGS.size < 100_000) DATE_STRINGS.set(payload, d);
        }
        return d;
      }
      case 5: {
        const partition = payload % 100;
        return `${String(partition).padStart(2, '0')}${((payload - partition) / 100).toString(36).padStart(8, '0')}`;
      }
      case 6:
        if (payload >= seen.length) throw new Error('a flow-aggregates block refers to a token not yet read');
        return seen[payload];
      default:
        throw new Error(`unknown token kind ${kind} in a flow-aggregates block`);
    }
  }
  /** The tokens up to `end`, joined by `sep`. */
  joined(end: number, sep: string): string {
    const seen: string[] = [];
    while (this.i < end) seen.push(this.token(seen));
    return seen.join(sep);
  }
}

/** Dates by day number, so a reader converts each expiration once. */
const DATE_STRINGS = new Map<number, string>();

/** Day numbers of the dates seen (few: expirations), so a date is checked and converted once. */
const DATE_CODES = new Map<string, number>();

/** A token's code, or -1 when it is written as a string. */
function tokenCode(t: string): number {
  const s = STATIC_INDEX.get(t);
  if (s !== undefined) return s * 8 + 1;
  const c = t.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    const n = canonicalInt(t);
    if (n >= 0) return n * 8;
    const dec = DECIMAL_RE.exec(t);
    if (dec) {
      const frac = dec[2];
      return (Number(dec[1] + frac) * 8 + frac.length - 1) * 8 + 3;
    }
    if (t.length === 10) {
      if (ROW_KEY_RE.test(t)) return (parseInt(t.slice(2), 36) * 100 + Number(t.slice(0, 2))) * 8 + 5;
      let d = DATE_CODES.get(t);
      if (d === undefined && DATE_RE.test(t)) {
        const n = dayNumberOf(t);
        d = n !== null && n >= 0 && fromDayNumber(n) === t ? n * 8 + 4 : -1;
        if (DATE_CODES.size < 100_000) DATE_CODES.set(t, d);
      }
      if (d !== undefined) return d;
    }
  }
  return -1;
}

/** A canonical non-negative integer's value (no sign, no leading zero, at most MAX_INT), else -1. */
function canonicalInt(t: string): number {
  const len = t.length;
  if (len > 16 || (len > 1 && t.charCodeAt(0) === 48)) return -1;
  let n = 0;
  for (let i = 0; i < len; i++) {
    const d = t.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return len > 0 && n <= MAX_INT ? n : -1;
}

/** A yyyy-MM-dd token's day number, or null for a day that does not exist (2026-02-30). */
function dayNumberOf(t: string): number | null {
  try {
    return toDayNumber(t);
  } catch {
    return null;
  }
}

/** How a family's entries are split into blocks (keys.ts PACKING). */
export interface BlockFormat {
  valueSep: string;
  /** Fields start with their block's name, which the block then leaves out. */
  stripFirst: boolean;
}

/** Scratch space for encoding one field or value (reused: the projector encodes many per chunk). */
const scratch = new Writer();

/** The encoded tokens of `s` (from the `skip`-th) as a map key (latin1: one character per byte). */
function tokensKey(s: string, sep: string, skip: number): string {
  scratch.n = 0;
  scratch.tokens(s, sep, skip);
  return scratch.latin1();
}

/**
 * Encoded fields by field text (without the block's name in a stripped block, so a cell's minute
 * field and its whole-session field share an entry): the cells of a session and of the current
 * minute are written again chunk after chunk, and encoding their nine tokens was most of a block
 * update's work. Emptied when full, so it stays bounded.
 */
const FIELD_KEYS = new Map<string, string>();
const FIELD_KEYS_MAX = 200_000;

function fieldKey(field: string, stripFirst: boolean): string {
  let body = field;
  if (stripFirst) {
    const at = field.indexOf('|');
    if (at < 0) return '';
    body = field.slice(at + 1);
  }
  let key = FIELD_KEYS.get(body);
  if (key === undefined) {
    key = tokensKey(body, '|', 0);
    if (FIELD_KEYS.size >= FIELD_KEYS_MAX) FIELD_KEYS.clear();
    FIELD_KEYS.set(body, key);
  }
  return key;
}

/** One entry's bytes: field tokens (from the second when stripped) and value tokens, each length-prefixed. */
function entryBytes(w: Writer, field: string, value: string, f: BlockFormat): void {
  const fb = fieldKey(field, f.stripFirst);
  w.varint(fb.length);
  w.latin1String(fb);
  w.value(value, f.valueSep);
}

/** Compares an encoded field (a latin1 key) with the stored bytes [from, to): byte order, a prefix first. */
function compareKey(key: string, buf: Buffer, from: number, to: number): number {
  const n = Math.min(key.length, to - from);
  for (let i = 0; i < n; i++) {
    const d = key.charCodeAt(i) - buf[from + i];
    if (d !== 0) return d;
  }
  return key.length - (to - from);
}

const byKey = (a: { key: string }, b: { key: string }): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Packs entries (field -> value) into one block named `name`, in the order of their encoded fields. */
export function packBlock(name: string, entries: ReadonlyMap<string, string>, f: BlockFormat): Buffer {
  const w = new Writer();
  w.varint(f.stripFirst ? STRIPPED : 0);
  const sorted = [...entries].map(([field, value]) => ({ field, value, key: fieldKey(field, f.stripFirst) })).sort(byKey);
  for (const { field, value } of sorted) {
    if (f.stripFirst) checkStripped(name, field);
    entryBytes(w, field, value, f);
  }
  return w.done();
}

function checkStripped(name: string, field: string): void {
  if (!field.startsWith(name) || (field.length > name.length && field[name.length] !== '|')) {
    throw new Error(`field ${field} does not start with its block's name ${name}`);
  }
}

/** The entries of block `name`, in their order; `visit` sees each field and value. */
export function unpackBlock(name: string, buf: Buffer, valueSep: string, visit: (field: string, value: string) => void): void {
  const r = new Reader(buf);
  const stripped = (r.varint() & STRIPPED) !== 0;
  while (r.i < buf.length) {
    const fEnd = r.varint() + r.i;
    let field = stripped ? name : '';
    if (r.i < fEnd) field = stripped ? `${name}|${r.joined(fEnd, '|')}` : r.joined(fEnd, '|');
    const vEnd = r.varint() + r.i;
    visit(field, r.i < vEnd ? r.joined(vEnd, valueSep) : '');
  }
}

/**
 * The entries of block `name` whose field starts with the tokens of `prefix` (a '|'-separated
 * list of whole tokens; the block must not strip its name): the others are skipped on their bytes,
 * undecoded (one contract's bars among its expiration's).
 */
export function unpackBlockWhere(name: string, buf: Buffer, valueSep: string, prefix: string, visit: (field: string, value: string) => void): void {
  const want = tokensKey(prefix, '|', 0);
  const r = new Reader(buf);
  if (r.varint() & STRIPPED) throw new Error(`block ${name} strips its name: no prefix to match`);
  while (r.i < buf.length) {
    const fLen = r.varint();
    const fFrom = r.i;
    const fEnd = fFrom + fLen;
    let match = fLen >= want.length;
    for (let i = 0; match && i < want.length; i++) match = buf[fFrom + i] === want.charCodeAt(i);
    if (!match) {
      r.i = fEnd;
      const vLen = r.varint();
      r.i += vLen;
      continue;
    }
    const field = r.joined(fEnd, '|');
    const vEnd = r.varint() + r.i;
    visit(field, r.joined(vEnd, valueSep));
  }
}

/** unpackBlock into a Map. */
export function blockEntries(name: string, buf: Buffer | null, valueSep: string): Map<string, string> {
  const out = new Map<string, string>();
  if (buf !== null) unpackBlock(name, buf, valueSep, (fd, v) => out.set(fd, v));
  return out;
}

const SUMS: number[] = [0, 0, 0];

/**
 * Writes the stored sums [from, to) plus `add` as a length-prefixed value, encoded as tokens()
 * encodes their text (integers, a repeat as a reference to its first occurrence); false, writing
 * nothing, when the stored value is not three such integers or a sum leaves the integer range.
 */
function addedSums(w: Writer, buf: Buffer, from: number, to: number, add: readonly number[]): boolean {
  const r = new Reader(buf, from);
  let n = 0;
  while (r.i < to) {
    if (n === 3) return false;
    const code = r.varint();
    const kind = code % 8;
    const payload = (code - kind) / 8;
    if (kind === 0) SUMS[n] = payload;
    else if (kind === 6 && payload < n) SUMS[n] = SUMS[payload];
    else return false;
    n++;
  }
  if (n !== 3) return false;
  for (let i = 0; i < 3; i++) {
    const x = SUMS[i] + add[i];
    if (!Number.isInteger(x) || x < 0 || x > MAX_INT) return false;
    SUMS[i] = x;
  }
  scratch.n = 0;
  for (let i = 0; i < 3; i++) {
    let j = 0;
    while (j < i && SUMS[j] !== SUMS[i]) j++;
    scratch.varint(j < i ? j * 8 + 6 : SUMS[i] * 8);
  }
  w.varint(scratch.n);
  w.copyFrom(scratch.buf, 0, scratch.n);
  return true;
}

/**
 * Block `name` (stored bytes, or null) with `changes` applied: `next` gives an entry's new value
 * from its stored one (null: none yet). Entries not changed are copied as bytes, new ones inserted
 * in the order of the encoded fields, so a block's bytes do not depend on the order its entries
 * arrived in (a view partition interleaves several source partitions).
 */
export function updateBlock<V>(
  name: string,
  stored: Buffer | null,
  changes: ReadonlyMap<string, V>,
  f: BlockFormat,
  next: (was: string | null, change: V) => string,
  /**
   * For sums ("cents,prints,contracts", cells.ts addSums): the change as three integers, added to
   * the stored varints without going through text (same bytes; the text path is the fallback).
   */
  sumsOf?: (change: V) => readonly number[],
): Buffer {
  const pending: { field: string; key: string }[] = [];
  for (const field of changes.keys()) {
    if (f.stripFirst) checkStripped(name, field);
    pending.push({ field, key: fieldKey(field, f.stripFirst) });
  }
  pending.sort(byKey);
  const w = new Writer();
  w.varint(f.stripFirst ? STRIPPED : 0);
  let p = 0;
  if (stored !== null) {
    const r = new Reader(stored);
    if (((r.varint() & STRIPPED) !== 0) !== f.stripFirst) throw new Error(`block ${name} is not of the expected format`);
    // Unchanged entries are copied as runs of the stored bytes.
    let run = r.i;
    while (r.i < stored.length && p < pending.length) {
      const start = r.i;
      const fLen = r.varint();
      const fFrom = r.i;
      const fEnd = fFrom + fLen;
      r.i = fEnd;
      const vLen = r.varint();
      const vFrom = r.i;
      const end = vFrom + vLen;
      r.i = end;
      let c = 1;
      while (p < pending.length && (c = compareKey(pending[p].key, stored, fFrom, fEnd)) < 0) {
        // A new entry before this one.
        w.copyFrom(stored, run, start);
        run = start;
        const { field } = pending[p++];
        entryBytes(w, field, next(null, changes.get(field)!), f);
      }
      if (c !== 0) continue;
      const { field } = pending[p++];
      w.copyFrom(stored, run, fEnd);
      run = end;
      if (sumsOf && addedSums(w, stored, vFrom, end, sumsOf(changes.get(field)!))) continue;
      const was = vLen ? new Reader(stored, vFrom).joined(end, f.valueSep) : '';
      w.value(next(was, changes.get(field)!), f.valueSep);
    }
    w.copyFrom(stored, run, stored.length);
  }
  // New entries after every stored one.
  for (; p < pending.length; p++) entryBytes(w, pending[p].field, next(null, changes.get(pending[p].field)!), f);
  return w.done();
}

/**
 * The entries of a block of sums ("cents,prints,contracts") as their encoded fields, a latin1
 * string of the stored bytes (equal fields, equal strings; fieldOfKey gives the text, without the
 * block's name in a stripped block), and their three sums, read from the varints without going
 * through text: for folds of many cells over few distinct fields (derived.ts).
 */
export function forEachSums(buf: Buffer, visit: (key: string, cents: number, prints: number, contracts: number) => void): void {
  const r = new Reader(buf);
  r.varint();
  while (r.i < buf.length) {
    const fEnd = r.varint() + r.i;
    const key = buf.toString('latin1', r.i, fEnd);
    r.i = fEnd;
    const vEnd = r.varint() + r.i;
    const vFrom = r.i;
    let n = 0;
    while (r.i < vEnd && n < 3) {
      const code = r.varint();
      const kind = code % 8;
      const payload = (code - kind) / 8;
      if (kind === 0) SUMS[n] = payload;
      else if (kind === 6 && payload < n) SUMS[n] = SUMS[payload];
      else break;
      n++;
    }
    if (n !== 3 || r.i !== vEnd) {
      // Not three integers as the writer encodes them: through the text.
      const v = new Reader(buf, vFrom).joined(vEnd, ',').split(',');
      if (v.length !== 3) throw new Error(`flow-aggregates entry ${fieldOfKey(key)} is not a cell`);
      [SUMS[0], SUMS[1], SUMS[2]] = [Number(v[0]), Number(v[1]), Number(v[2])];
    }
    r.i = vEnd;
    visit(key, SUMS[0], SUMS[1], SUMS[2]);
  }
}

/** The text of an encoded field (forEachSums' key). */
export function fieldOfKey(key: string): string {
  const buf = Buffer.from(key, 'latin1');
  return new Reader(buf).joined(buf.length, '|');
}
