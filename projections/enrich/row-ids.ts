import crypto from 'crypto';
import { parse as parseUuid } from 'uuid';

/**
 * RFC 4122 version-5 (SHA-1, name-based) UUIDs, equal to `uuid`'s v5(name, namespace) (unit-
 * tested), for the two row ids of every print. The `uuid` package re-parses and re-validates the
 * namespace on each call and hashes through a streaming Hash object; with the namespace bytes
 * kept and a one-shot hash over a reused buffer this is several times cheaper.
 */
export class UuidV5 {
  private buf = Buffer.alloc(256);

  constructor(namespace: string) {
    Buffer.from(parseUuid(namespace)).copy(this.buf, 0);
  }

  of(name: string): string {
    const need = 16 + Buffer.byteLength(name, 'utf8');
    if (need > this.buf.length) {
      const grown = Buffer.alloc(need * 2);
      this.buf.copy(grown, 0, 0, 16);
      this.buf = grown;
    }
    const end = 16 + this.buf.write(name, 16, 'utf8');
    const h = crypto.hash('sha1', this.buf.subarray(0, end), 'hex');
    // Version 5 in the high nibble of byte 6, the RFC 4122 variant in the top bits of byte 8.
    const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}
