import { Command } from 'ioredis';

/**
 * Commands whose RESP bytes are written by us into one buffer per batch, handed to ioredis as
 * Command objects that only carry them: ioredis still queues them, matches their replies and
 * runs the transaction, but no longer builds their wire form.
 *
 * Why: a projector chunk of 3,000 rows is ~70,000 arguments in a few hundred variadic commands.
 * ioredis copies each command's arguments (`args.flat()`), then builds its wire form by string
 * concatenation, or, for a command with a Buffer argument (the stored rows), from a list of
 * small strings and Buffers joined at the end; the pipeline then joins every command's form
 * again, a large share of the projector's CPU and garbage (docs/benchmarks.md). Here each
 * argument is written once, in place, into a buffer sized for the batch.
 *
 * Only for clients without ioredis's `keyPrefix` option (it rewrites the key arguments, which
 * these commands no longer expose): RespBatch refuses such a client.
 */

/** A command that hands ioredis its already encoded wire form. */
class EncodedCommand extends Command {
  constructor(
    name: string,
    key: string,
    private readonly wire: Buffer,
  ) {
    // The key alone as the arguments ioredis sees: what an error report names, at no copying cost.
    super(name, [key]);
  }

  override toWritable(): Buffer {
    return this.wire;
  }
}

const CRLF0 = 0x0d;
const CRLF1 = 0x0a;
const MIN_SEGMENT = 1 << 20;

/**
 * Encodes the commands of one batch (a pipeline or a transaction) into segments of at least
 * MIN_SEGMENT bytes; each command's bytes are contiguous. A batch's buffers are never reused:
 * a command's bytes must stay as they are until the socket has taken them.
 */
export class RespBatch {
  private buf: Buffer = Buffer.allocUnsafe(0);
  private pos = 0;

  constructor(client: { options: { keyPrefix?: string } }) {
    if (client.options.keyPrefix) throw new Error('RespBatch: clients with a keyPrefix are not supported');
  }

  /**
   * A command for `args` = [name, key, ...arguments], to give to a pipeline's or transaction's
   * sendCommand. Strings are encoded as UTF-8, Buffers as they are.
   */
  command(args: readonly (string | Buffer)[], from = 0): Command {
    const name = args[from];
    const key = args[from + 1];
    if (typeof name !== 'string' || typeof key !== 'string') throw new Error('RespBatch.command: a name and a string key first');
    return new EncodedCommand(name.toLowerCase(), key, this.encode(args, from));
  }

  /** The RESP array of bulk strings of args[from..]: `*N\r\n` then `$len\r\n<bytes>\r\n` each. */
  encode(args: readonly (string | Buffer)[], from = 0): Buffer {
    const n = args.length - from;
    // An upper bound of the size: UTF-8 takes at most 3 bytes per UTF-16 unit; 16 bytes of
    // header and CRLFs per argument ('$', at most 10 digits, two CRLFs) and for the array's own
    // header cover any length below 2^32 (a Redis argument is at most 512 MB).
    let bound = 16;
    for (let i = from; i < args.length; i++) {
      const a = args[i];
      bound += 16 + (typeof a === 'string' ? 3 * a.length : a.length);
    }
    if (this.pos + bound > this.buf.length) {
      this.buf = Buffer.allocUnsafe(Math.max(MIN_SEGMENT, bound));
      this.pos = 0;
    }
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    buf[p++] = 0x2a; // '*'
    p = writeDigits(buf, p, n);
    buf[p++] = CRLF0;
    buf[p++] = CRLF1;
    for (let i = from; i < args.length; i++) {
      const a = args[i];
      if (typeof a === 'string') p = writeString(buf, p, a);
      else {
        p = writeBulkHeader(buf, p, a.length);
        p += a.copy(buf, p);
      }
      buf[p++] = CRLF0;
      buf[p++] = CRLF1;
    }
    this.pos = p;
    return buf.subarray(start, p);
  }
}

/** Writes the decimal digits of a non-negative integer at p; returns the position after them. */
function writeDigits(buf: Buffer, p: number, v: number): number {
  if (v < 10) {
    buf[p] = 0x30 + v;
    return p + 1;
  }
  let digits = 1;
  for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
  for (let i = p + digits - 1; i >= p; i--) {
    buf[i] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  }
  return p + digits;
}

/**
 * `$len\r\n` and the string's UTF-8 bytes at p. Almost every argument (keys, index members,
 * numbers) is ASCII and short: copied code unit by code unit, with the header written first for
 * a byte length equal to the string's length. A string with a non-ASCII unit is then written
 * again by Buffer#write behind a header of its real byte length.
 */
function writeString(buf: Buffer, header: number, s: string): number {
  const len = s.length;
  const p = writeBulkHeader(buf, header, len);
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return writeUtf8(buf, header, s);
    buf[p + i] = c;
  }
  return p + len;
}

function writeUtf8(buf: Buffer, header: number, s: string): number {
  const bytes = Buffer.byteLength(s, 'utf8');
  const p = writeBulkHeader(buf, header, bytes);
  return p + buf.write(s, p, bytes, 'utf8');
}

/** `$len\r\n` at p; returns the position after it. */
function writeBulkHeader(buf: Buffer, p: number, len: number): number {
  buf[p++] = 0x24; // '$'
  p = writeDigits(buf, p, len);
  buf[p++] = CRLF0;
  buf[p++] = CRLF1;
  return p;
}
