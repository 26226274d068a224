/**
 * Byte-level pieces of the volatility view's compact values (services/views/volatility.ts): a
 * growable writer and its reader, unsigned varints, IEEE doubles and front-coded sorted strings.
 * Every value decodes to exactly what was encoded (doubles bit for bit, strings char for char).
 */

export class ByteWriter {
  private buf = Buffer.allocUnsafe(1024);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.at++] = v;
  }

  /** A non-negative safe integer, 7 bits a byte (arithmetic, not bitwise: values may pass 2^31). */
  varint(v: number): void {
    this.room(8);
    while (v >= 0x80) {
      this.buf[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.at++] = v;
  }

  /** A safe integer of either sign (zigzag: 0, -1, 1, -2 ... as 0, 1, 2, 3 ...). */
  signed(v: number): void {
    this.varint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  f64(v: number): void {
    this.room(8);
    this.buf.writeDoubleLE(v, this.at);
    this.at += 8;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  utf8(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.room(n);
    this.at += this.buf.write(s, this.at, 'utf8');
  }

  /**
   * Strings in the order given, each as the length it shares with the one before and the rest:
   * sorted contract symbols share most of their characters with their neighbour. Only ASCII
   * prefixes are shared, so a suffix never starts inside a character.
   */
  frontCoded(list: readonly string[]): void {
    let prev = '';
    for (const s of list) {
      const max = Math.min(prev.length, s.length);
      let p = 0;
      while (p < max && s.charCodeAt(p) === prev.charCodeAt(p) && s.charCodeAt(p) < 0x80) p++;
      this.varint(p);
      this.utf8(s.slice(p));
      prev = s;
    }
  }

  done(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

export class ByteReader {
  at = 0;
  constructor(private readonly buf: Buffer) {}

  u8(): number {
    if (this.at >= this.buf.length) throw new Error('volatility value truncated');
    return this.buf[this.at++];
  }

  varint(): number {
    let v = 0;
    let scale = 1;
    for (;;) {
      const b = this.u8();
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
    }
  }

  signed(): number {
    const z = this.varint();
    return z % 2 === 1 ? -(z + 1) / 2 : z / 2;
  }

  f64(): number {
    const v = this.buf.readDoubleLE(this.at);
    this.at += 8;
    return v;
  }

  /** `n` bytes, shared with the buffer read. */
  bytes(n: number): Buffer {
    if (this.at + n > this.buf.length) throw new Error('volatility value truncated');
    const b = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }

  utf8(): string {
    const n = this.varint();
    return this.bytes(n).toString('utf8');
  }

  frontCoded(n: number): string[] {
    const out: string[] = new Array<string>(n);
    let prev = '';
    for (let i = 0; i < n; i++) {
      const p = this.varint();
      prev = out[i] = prev.slice(0, p) + this.utf8();
    }
    return out;
  }

  get remaining(): number {
    return this.buf.length - this.at;
  }
}

/** Whole cents, when `v` is exactly cents / 100 (the quote feed's prices are); else null. */
export function exactCents(v: number): number | null {
  // + 0 turns -0 into 0, which then fails the check: a varint has no sign to keep.
  const c = Math.round(v * 100) + 0;
  return Number.isSafeInteger(c) && c >= 0 && Object.is(c / 100, v) ? c : null;
}

/**
 * Doubles as their eight byte planes (every value's lowest byte, then every value's next one...):
 * the sign, exponent and leading mantissa bytes of similar values repeat, which deflate then
 * finds; the raw interleaved bytes hide that.
 */
export function writeDoublePlanes(w: ByteWriter, values: readonly number[]): void {
  const n = values.length;
  const raw = Buffer.allocUnsafe(n * 8);
  for (let i = 0; i < n; i++) raw.writeDoubleLE(values[i], i * 8);
  const planes = Buffer.allocUnsafe(n * 8);
  for (let i = 0; i < n; i++) for (let b = 0; b < 8; b++) planes[b * n + i] = raw[i * 8 + b];
  w.bytes(planes);
}

export function readDoublePlanes(r: ByteReader, n: number): number[] {
  const planes = r.bytes(n * 8);
  const raw = Buffer.allocUnsafe(n * 8);
  for (let i = 0; i < n; i++) for (let b = 0; b < 8; b++) raw[i * 8 + b] = planes[b * n + i];
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = raw.readDoubleLE(i * 8);
  return out;
}
