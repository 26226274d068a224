import { FieldSet, Scalar, parseFieldValue, show } from './fields';
import { LIMITS, Predicate, Term, and, checkTerm, termPredicate } from './filter-expression';
import { invalid } from './problem';
import { normalizeName } from './names';

/**
 * The `filter` object (spec "filter object"): convenience filters, AND-combined across keys.
 *   in        plural collection (tickers/ticker...): scalar or array, OR within the key
 *   eq        a single value (osi)
 *   range     {min, max}, numbers, either bound may be null or absent; inclusive
 *   dateRange {startDate, endDate}, LocalDates, inclusive
 *   bool      true/false
 * Keys are matched after name normalization; singular and plural spellings are aliases (derived
 * here for every value filter, so no endpoint can forget one), and naming one filter twice (ticker
 * and tickers) is a 400, as is a value and its range together. A single-value filter takes a
 * scalar or a one-element list, since the contract lets every collection name take either.
 */

export type FilterKind = 'in' | 'eq' | 'range' | 'dateRange' | 'bool';

export interface FilterParam {
  key: string;
  aliases?: readonly string[];
  kind: FilterKind;
  /** The FieldSet field the filter constrains. */
  field: string;
  /** Extra bounds check for range values, e.g. deltaRange within [-1, 1]. */
  bounds?: { min?: number; max?: number };
}

export interface ParsedFilter<Row> {
  /** Parsed values by canonical key: arrays for in/eq, [min, max] for ranges, boolean for bool. */
  values: Map<string, Scalar[] | [Scalar | null, Scalar | null] | boolean>;
  terms: Map<string, Term<Row>[]>;
}

/**
 * The other number of a filter name (spec "filter object": plural collection names accept the
 * singular, and the reverse): tickers <-> ticker, industries <-> industry, strikePrice <-> strikePrices.
 */
export function otherNumber(name: string): string {
  if (/[^aeiou]ies$/i.test(name)) return `${name.slice(0, -3)}y`;
  if (/ses$/i.test(name)) return name.slice(0, -2);
  if (/s$/i.test(name)) return name.slice(0, -1);
  if (/[^aeiou]y$/i.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/i.test(name)) return `${name}es`;
  return `${name}s`;
}

/** Every name a filter answers to after normalization: its key, its aliases, and their other number. */
export function filterNames(p: FilterParam): string[] {
  const names = [p.key, ...(p.aliases ?? [])];
  const values = p.kind === 'in' || p.kind === 'eq';
  return [...new Set((values ? [...names, ...names.map(otherNumber)] : names).map(normalizeName))];
}

export function parseFilterObject<Row>(
  raw: unknown,
  params: readonly FilterParam[],
  fields: FieldSet<Row>,
  exclusive: readonly (readonly [string, string])[] = [],
): ParsedFilter<Row> {
  const out: ParsedFilter<Row> = { values: new Map(), terms: new Map() };
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('filter', 'must be an object');
  const byName = new Map<string, FilterParam>();
  // Declared spellings first, so a derived one never shadows another filter's own name.
  for (const p of params) for (const n of [p.key, ...(p.aliases ?? [])]) byName.set(normalizeName(n), p);
  for (const p of params) for (const n of filterNames(p)) if (!byName.has(n)) byName.set(n, p);
  const seen = new Map<string, string>();

  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const path = `filter.${k}`;
    const p = byName.get(normalizeName(k));
    if (!p) throw invalid(path, `is not a filter of this endpoint (filters: ${params.map((x) => x.key).join(', ')})`);
    if (seen.has(p.key)) throw invalid(path, `names the same filter as filter.${seen.get(p.key)}`);
    seen.set(p.key, k);
    if (v === null) continue; // an explicit null is the same as leaving the filter out
    const field = fields.lookup(p.field);
    if (!field) throw new Error(`filter ${p.key} refers to unknown field ${p.field}`);
    const terms: Term<Row>[] = [];
    switch (p.kind) {
      case 'in':
      case 'eq': {
        const list = Array.isArray(v) ? v : [v];
        if (p.kind === 'eq' && list.length > 1) throw invalid(path, `takes a single value, got ${list.length}`);
        if (list.length === 0) throw invalid(path, 'must not be an empty list');
        if (list.length > LIMITS.maxValues) throw invalid(path, `has more than ${LIMITS.maxValues} values`);
        const values = [...new Set(list.map((x, i) => parseFieldValue(field, x, Array.isArray(v) ? `${path}[${i}]` : path)))];
        out.values.set(p.key, values);
        terms.push({ field, op: 'EQ', values });
        break;
      }
      case 'bool': {
        const b = parseFieldValue({ ...field, type: 'boolean' }, v, path) as boolean;
        out.values.set(p.key, b);
        terms.push({ field, op: 'EQ', values: [b] });
        break;
      }
      case 'range':
      case 'dateRange': {
        const [lo, hi] = p.kind === 'range' ? ['min', 'max'] : ['startDate', 'endDate'];
        if (typeof v !== 'object' || Array.isArray(v)) throw invalid(path, `must be an object {${lo}, ${hi}}`);
        const o = v as Record<string, unknown>;
        for (const key of Object.keys(o)) if (key !== lo && key !== hi) throw invalid(`${path}.${key}`, `is not a bound (use ${lo}, ${hi})`);
        const bound = (key: string): Scalar | null => {
          const b = o[key];
          if (b === undefined || b === null) return null;
          if (p.kind === 'range' && typeof b !== 'number') throw invalid(`${path}.${key}`, `must be a number or null, got ${show(b)}`);
          const val = parseFieldValue(field, b, `${path}.${key}`);
          if (p.bounds && typeof val === 'number') {
            if ((p.bounds.min !== undefined && val < p.bounds.min) || (p.bounds.max !== undefined && val > p.bounds.max)) {
              throw invalid(`${path}.${key}`, `must be within ${p.bounds.min} to ${p.bounds.max}`);
            }
          }
          return val;
        };
        const min = bound(lo);
        const max = bound(hi);
        if (min !== null && max !== null && min > max) throw invalid(path, `${lo} must not be greater than ${hi}`);
        out.values.set(p.key, [min, max]);
        if (min !== null) terms.push({ field, op: 'GTE', values: [min] });
        if (max !== null) terms.push({ field, op: 'LTE', values: [max] });
        break;
      }
    }
    for (const t of terms) checkTerm(t, path);
    out.terms.set(p.key, terms);
  }
  for (const [a, b] of exclusive) {
    if (seen.has(a) && seen.has(b))
      throw invalid(`filter.${seen.get(b)}`, `cannot be combined with filter.${seen.get(a)} (a single value and a range are mutually exclusive)`);
  }
  return out;
}

/** AND of every term of the filter, except the keys an endpoint evaluates itself. */
export function filterPredicate<Row>(parsed: ParsedFilter<Row>, skip: readonly string[] = []): Predicate<Row> {
  const ps: Predicate<Row>[] = [];
  for (const [key, terms] of parsed.terms) if (!skip.includes(key)) for (const t of terms) ps.push(termPredicate(t));
  return and(ps);
}
