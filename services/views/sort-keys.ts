/**
 * The one index-member and sort-key encoding of every table view (order flow, news, and the
 * views declared on the table engine). Index zsets have all scores 0 and members
 * `<sortKey>:<rowKey>`, so ZRANGE BYLEX walks (sort value, rowKey) in order: the tie-break on
 * rowKey is exact and a cursor (sortKey, rowKey) resumes with no row served twice or skipped,
 * however many rows tie. A rowKey never contains ':'.
 */

/**
 * Order-preserving string encoding of a sort value: numbers as 'n' + 16 hex digits of the IEEE
 * 754 bits with the sign handled (so string order = numeric order, negatives included), strings
 * as 's' + the string, booleans 'b0'/'b1', null as '0' (sorts lowest). Index members use the
 * numeric form only, which is fixed width.
 */
export function encodeSortKey(v: number | string | boolean | null | undefined): string {
  if (v === null || v === undefined) return '0';
  if (typeof v === 'boolean') return v ? 'b1' : 'b0';
  if (typeof v === 'string') return `s${v}`;
  // The projector encodes ~7 keys per row: one scratch word and a byte -> hex table instead of a
  // Buffer and its hex codec per call.
  SCRATCH.setFloat64(0, v === 0 ? 0 : v); // big-endian; -0 sorts as 0
  let hi = SCRATCH.getUint32(0);
  let lo = SCRATCH.getUint32(4);
  if (hi & 0x80000000) {
    hi = ~hi;
    lo = ~lo;
  } else hi |= 0x80000000;
  return `n${HEX[(hi >>> 24) & 0xff]}${HEX[(hi >>> 16) & 0xff]}${HEX[(hi >>> 8) & 0xff]}${HEX[hi & 0xff]}${HEX[(lo >>> 24) & 0xff]}${HEX[(lo >>> 16) & 0xff]}${HEX[(lo >>> 8) & 0xff]}${HEX[lo & 0xff]}`;
}
const SCRATCH = new DataView(new ArrayBuffer(8));
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Whether a key (from a client's cursor) has the shape encodeSortKey gives values of that kind. */
export function isSortKeyOf(kind: 'number' | 'boolean' | 'string', key: string): boolean {
  if (key === '0') return true; // null
  if (kind === 'number') return /^n[0-9a-f]{16}$/.test(key);
  if (kind === 'boolean') return key === 'b0' || key === 'b1';
  return /^s.{1,64}$/s.test(key);
}

export function decodeNumericSortKey(key: string): number | null {
  if (!/^n[0-9a-f]{16}$/.test(key)) return null;
  const buf = Buffer.from(key.slice(1), 'hex');
  if (buf[0] & 0x80) buf[0] &= 0x7f;
  else for (let i = 0; i < 8; i++) buf[i] = ~buf[i] & 0xff;
  return buf.readDoubleBE(0);
}

export function indexMember(sortKey: string, rowKey: string): string {
  return `${sortKey}:${rowKey}`;
}

export function parseIndexMember(member: string): { sortKey: string; rowKey: string } {
  const i = member.lastIndexOf(':');
  return { sortKey: member.slice(0, i), rowKey: member.slice(i + 1) };
}

/** Order of two (sortKey, rowKey) pairs, ascending: negative, zero or positive. */
export function compareKeys(aSort: string, aRow: string, bSort: string, bRow: string): number {
  if (aSort !== bSort) return aSort < bSort ? -1 : 1;
  return aRow < bRow ? -1 : aRow > bRow ? 1 : 0;
}
