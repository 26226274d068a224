/**
 * A warm session's at-the-money prints (`<D>:av:<TICKER>:<EXP>`, epoch minute ->
 * `strike|stockPrice|time|rowKey|iv`, cells.ts encodeAtm) as columns of numbers: the minutes as
 * differences, the time as milliseconds into its minute, the print key as offset (a difference)
 * and partition, prices and the implied volatility as numbers (MessagePack doubles). The plain
 * text, kept hot, spent most of its bytes on digits brotli cannot predict; columns of like
 * numbers compress better. A hash is packed so only when every entry reads back to exactly its
 * text (else it stays as it is), so the warm tier gives back the hot bytes for any content.
 */

export interface AtmColumns {
  /** Minutes: the first, then differences. */
  m: number[];
  k: number[];
  s: number[];
  /** Trade time minus the minute's start (ms). */
  t: number[];
  /** Print key offsets: the first, then differences; and partitions. */
  o: number[];
  p: number[];
  v: number[];
}

const ROW_KEY_RE = /^\d\d[0-9a-z]{8}$/;
const MINUTE_MS = 60_000;

/** The number a token reads as, if it prints back as exactly that token. */
function exactNumber(t: string): number | null {
  const x = Number(t);
  return t !== '' && String(x) === t ? x : null;
}
const exactInt = (t: string): number | null => {
  const x = exactNumber(t);
  return x !== null && Number.isSafeInteger(x) ? x : null;
};
const rowKeyOf = (offset: number, partition: number): string => `${String(partition).padStart(2, '0')}${offset.toString(36).padStart(8, '0')}`;

/** The columns of a hash (fields in stored order), or null if an entry would not read back exactly. */
export function packAtm(fields: readonly string[], values: readonly Buffer[]): AtmColumns | null {
  const c: AtmColumns = { m: [], k: [], s: [], t: [], o: [], p: [], v: [] };
  let lastM = 0;
  let lastO = 0;
  for (let i = 0; i < fields.length; i++) {
    const m = exactInt(fields[i]);
    const text = values[i].toString('utf8');
    if (m === null || !Buffer.from(text, 'utf8').equals(values[i])) return null;
    const x = text.split('|');
    if (x.length !== 5) return null;
    const [k, s, time, v] = [exactNumber(x[0]), exactNumber(x[1]), exactInt(x[2]), exactNumber(x[4])];
    if (k === null || s === null || time === null || v === null || !ROW_KEY_RE.test(x[3])) return null;
    const partition = Number(x[3].slice(0, 2));
    const offset = parseInt(x[3].slice(2), 36);
    if (rowKeyOf(offset, partition) !== x[3]) return null;
    c.m.push(m - lastM);
    c.k.push(k);
    c.s.push(s);
    c.t.push(time - m * MINUTE_MS);
    c.o.push(offset - lastO);
    c.p.push(partition);
    c.v.push(v);
    lastM = m;
    lastO = offset;
  }
  return c;
}

/** The hash back: epoch minute -> the hot tier's text. */
export function unpackAtm(c: AtmColumns): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  let m = 0;
  let offset = 0;
  for (let i = 0; i < c.m.length; i++) {
    m += c.m[i];
    offset += c.o[i];
    out.set(String(m), Buffer.from(`${c.k[i]}|${c.s[i]}|${m * MINUTE_MS + c.t[i]}|${rowKeyOf(offset, c.p[i])}|${c.v[i]}`));
  }
  return out;
}
