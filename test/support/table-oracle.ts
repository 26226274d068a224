import { normalizeName } from '../../api/request/names';
import { asServed } from './served';

/**
 * Brute-force pieces of a table oracle, written independently of the engine: order rows by a
 * field with the rowKey as tie-break (both in the requested direction), and apply includes /
 * excludes by projection name. Values compare as numbers, strings (code-unit order, which is
 * byte order for ASCII) or booleans (false first).
 */

export type Getter<T> = (row: T) => number | string | boolean;

export function orderRows<T>(rows: readonly T[], value: Getter<T>, rowKey: (r: T) => string, descending: boolean): T[] {
  const cmp = (a: T, b: T) => {
    const x = value(a);
    const y = value(b);
    if (x !== y) return x < y ? -1 : 1;
    const ka = rowKey(a);
    const kb = rowKey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };
  return [...rows].sort((a, b) => (descending ? -cmp(a, b) : cmp(a, b)));
}

/** includes/excludes over projection names (UPPER_SNAKE of the response key). */
export function projectRow(row: Record<string, unknown>, body: Record<string, unknown>): Record<string, unknown> {
  const name = (k: string) => normalizeName(k);
  const inc = (body.includes as string[] | undefined)?.map(name);
  const exc = (body.excludes as string[] | undefined)?.map(name);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    const n = name(k);
    if (inc && inc.length && !inc.includes(n)) continue;
    if (exc && exc.includes(n)) continue;
    out[k] = v;
  }
  return asServed(out);
}

/** Term operations of filterExpression form A, evaluated directly. */
export function compare(op: string, a: number | string | boolean, b: number | string | boolean): boolean {
  switch (op) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
  throw new Error(`op ${op}`);
}

/** A small deterministic generator for property tests (mulberry32). */
export function rand(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
