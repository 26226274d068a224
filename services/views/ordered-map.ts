/**
 * Response maps whose keys must come out in a given order (spec: bucket keys ascending, session
 * dates ascending, strikes ascending, tickers alphabetical). JSON objects keep insertion order for
 * keys that are not array indices; every key written here has a non-index form (13-digit epoch-ms
 * strings exceed the index range, strikes carry a decimal point, dates and tickers are not
 * numbers), so building the object in sorted order is enough.
 */

export type KeyOrder = 'epochMs' | 'date' | 'decimal' | 'text';

const COMPARE: Record<KeyOrder, (a: string, b: string) => number> = {
  epochMs: (a, b) => Number(a) - Number(b),
  decimal: (a, b) => Number(a) - Number(b),
  date: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  text: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
};

/** An object of the entries with keys in ascending `order`. */
export function orderedMap<V>(entries: Iterable<readonly [string, V]>, order: KeyOrder): Record<string, V> {
  const list = [...entries].sort((a, b) => COMPARE[order](a[0], b[0]));
  const out: Record<string, V> = {};
  for (const [k, v] of list) out[k] = v;
  return out;
}

/**
 * The JSON text of orderedMap(entries, order), each value written by `value` (its JSON text):
 * a map of thousands of keys (a month of price levels) costs a fraction as one string as it does
 * built as an object and walked by JSON.stringify.
 */
export function orderedMapJson<V>(entries: Iterable<readonly [string, V]>, order: KeyOrder, value: (v: V) => string): string {
  const list = [...entries].sort((a, b) => COMPARE[order](a[0], b[0]));
  return `{${list.map(([k, v]) => `${JSON.stringify(k)}:${value(v)}`).join(',')}}`;
}

/** A strike as a response key: dollars with at least one decimal ("215.0", "212.5", "0.25"). */
export function strikeKey(dollars: number): string {
  const s = String(dollars);
  return s.includes('.') || s.includes('e') ? s : `${s}.0`;
}
