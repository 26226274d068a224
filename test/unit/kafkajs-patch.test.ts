import crypto from 'crypto';

/**
 * The kafkajs hot-path patches (patches/kafkajs+2.2.4.patch) change how bytes are produced, never
 * which: checked here against straightforward reference implementations and kafkajs's own
 * decoders. (They were also compared byte for byte with the unpatched produce request encoder.)
 */
const Encoder = require('kafkajs/src/protocol/encoder');
const Decoder = require('kafkajs/src/protocol/decoder');
const crc32C: (b: Buffer) => number = require('kafkajs/src/protocol/recordBatch/crc32C');
const Record = require('kafkajs/src/protocol/recordBatch/record/v0');
const RecordDecoder = require('kafkajs/src/protocol/recordBatch/record/v0/decoder');

/** CRC-32C (Castagnoli), one byte at a time from the reflected polynomial. */
const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function referenceCrc32C(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const b of buf) crc = TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Zigzag LEB128 of a safe integer, with BigInt arithmetic. */
function referenceVarLong(v: number): Buffer {
  let z = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
  const out: number[] = [];
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
  return Buffer.from(out);
}

describe('kafkajs patches', () => {
  it('crc32C (slicing-by-8) equals the bytewise checksum, and the standard check value', () => {
    expect(crc32C(Buffer.from('123456789'))).toBe(0xe3069283);
    for (let len = 0; len < 70; len++) {
      const b = crypto.randomBytes(len);
      expect(crc32C(b)).toBe(referenceCrc32C(b));
    }
    const big = crypto.randomBytes(1_000_003);
    expect(crc32C(big)).toBe(referenceCrc32C(big));
  });

  it('varints and varlongs are the zigzag LEB128 bytes and decode back', () => {
    const values = [0, 1, -1, 63, 64, -64, -65, 127, 128, 8191, 8192, 2 ** 20, -(2 ** 20), 2 ** 29 - 1, 2 ** 29, -(2 ** 30) + 1, 2 ** 30, -(2 ** 30), 2 ** 31 - 1, -(2 ** 31), 2 ** 40, -(2 ** 40), 2 ** 53 - 1, -(2 ** 53 - 1)];
    for (const v of values) {
      const long = new Encoder().writeVarLong(v).buffer as Buffer;
      expect(long.equals(referenceVarLong(v))).toBe(true);
      expect(Number(new Decoder(long).readVarLong().toString())).toBe(v);
      if (v >= -(2 ** 31) && v < 2 ** 31) {
        const int = new Encoder().writeVarInt(v).buffer as Buffer;
        expect(int.equals(referenceVarLong(v))).toBe(true);
        expect(new Decoder(int).readVarInt()).toBe(v);
      }
    }
  });

  it('a record encodes to exactly its size and decodes to what was given', () => {
    for (let i = 0; i < 200; i++) {
      const key = i % 7 ? Buffer.from(`K${i}`) : null;
      const value = i % 11 ? crypto.randomBytes(i * 37) : null;
      const headers = i % 5 ? {} : { h: `v${i}`, x: ['1', '2'] };
      const enc = Record({ offsetDelta: i, timestampDelta: (i - 50) * 1_000_003, key, value, headers });
      const bytes = enc.buffer as Buffer;
      const d = new Decoder(bytes);
      const length = d.readVarInt();
      expect(d.offset + length).toBe(bytes.length);
      const r = RecordDecoder(d, { firstOffset: '1000', firstTimestamp: '1795200000000', magicByte: 2 });
      expect(r.offset).toBe(String(1000 + i));
      expect(r.timestamp).toBe(String(1795200000000 + (i - 50) * 1_000_003));
      expect(r.key === null ? null : r.key.toString()).toBe(key === null ? null : key.toString());
      expect(r.value === null ? null : (r.value as Buffer).equals(value!)).toBe(value === null ? null : true);
      expect(Object.keys(r.headers).sort()).toEqual(Object.keys(headers).sort());
    }
  });
});
