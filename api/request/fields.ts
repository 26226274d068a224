import { invalid } from './problem';
import { EnumLookup, normalizeName } from './names';
import { parseDateTime, parseLocalDate } from './time';

/**
 * The field reference of an endpoint: every filterable and projectable field of its row, how
 * filter values of the field are parsed, and how the row's value is read. The filter object,
 * filterExpression, sort and projection parsers all resolve names through one FieldSet.
 */

export type FieldType =
  | 'integer' // whole numbers (ids, sizes, contracts)
  | 'number' // doubles (dollars, fractions)
  | 'time' // epoch-ms; filter values as epoch-ms or an ISO 8601 date-time
  | 'date' // LocalDate
  | 'symbol' // tickers and codes: trimmed, upper-cased, exact match
  | 'enum' // a closed value set, matched after normalization
  | 'text' // free text: = means "contains, ignoring case"; ordering is not defined
  | 'boolean';

export type Scalar = string | number | boolean;

export interface FieldDef<Row> {
  /** Canonical UPPER_SNAKE_CASE name, as used in projections. */
  name: string;
  /** Other names of the field (singular/plural forms...). */
  aliases?: readonly string[];
  type: FieldType;
  /** For enum fields: the lookup of allowed values. */
  enumLookup?: EnumLookup;
  /** For enum fields with a natural order (sentiment scores): enables <, <=, >, >=. */
  enumRank?: (value: string) => number;
  /** True when the row holds a list of values; a term matches when any element matches. */
  multi?: boolean;
  filterable: boolean;
  projectable: boolean;
  /** Row property removed when the field is projected out (defaults to none). */
  responseKey?: string;
  /** Parses a filter value when the type's default parsing does not fit (ids, option symbols). */
  parse?: (raw: unknown, path: string) => Scalar;
  get(row: Row): Scalar | null | readonly (Scalar | null)[];
}

export class FieldSet<Row> {
  private readonly byName = new Map<string, FieldDef<Row>>();

  constructor(readonly fields: readonly FieldDef<Row>[]) {
    for (const f of fields) {
      for (const n of [f.name, ...(f.aliases ?? [])]) {
        const k = normalizeName(n);
        if (this.byName.has(k)) throw new Error(`field name ${n} is declared twice`);
        this.byName.set(k, f);
      }
    }
  }

  lookup(name: string): FieldDef<Row> | undefined {
    return this.byName.get(normalizeName(name));
  }

  /** Resolves a field named in a filter, sort or expression; 400 if unknown or not filterable. */
  filterable(name: unknown, path: string): FieldDef<Row> {
    if (typeof name !== 'string' || !name.trim()) throw invalid(path, 'must be a field name (string)');
    const f = this.lookup(name);
    if (!f || !f.filterable) {
      const known = this.fields
        .filter((x) => x.filterable)
        .map((x) => x.name)
        .join(', ');
      throw invalid(path, `'${name}' is not a filterable field of this endpoint (filterable: ${known})`);
    }
    return f;
  }
}

/** Parses one filter value for a field; 400 naming the path when it does not fit the type. */
export function parseFieldValue<Row>(f: FieldDef<Row>, raw: unknown, path: string): Scalar {
  if (f.parse) return f.parse(raw, path);
  switch (f.type) {
    case 'integer': {
      const n = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw invalid(path, `${f.name} takes an integer, got ${show(raw)}`);
      return n;
    }
    case 'number': {
      const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid(path, `${f.name} takes a number, got ${show(raw)}`);
      return n;
    }
    case 'time': {
      if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return raw;
      if (typeof raw === 'string') {
        const ms = parseDateTime(raw);
        if (ms !== null) return ms;
      }
      throw invalid(path, `${f.name} takes epoch-ms or an ISO 8601 date-time, got ${show(raw)}`);
    }
    case 'date': {
      if (typeof raw === 'string' && parseLocalDate(raw) !== null) return raw;
      throw invalid(path, `${f.name} takes a date as yyyy-MM-dd, got ${show(raw)}`);
    }
    case 'symbol': {
      if (typeof raw !== 'string' || !/^[A-Za-z0-9.\-/^]{1,21}$/.test(raw.trim())) throw invalid(path, `${f.name} takes a symbol, got ${show(raw)}`);
      return raw.trim().toUpperCase();
    }
    case 'enum': {
      const v = typeof raw === 'string' ? f.enumLookup!.resolve(raw) : undefined;
      if (v === undefined) {
        const all = f.enumLookup!.values;
        const hint = all.length <= 40 ? ` (one of ${all.join(', ')})` : ` (see the ${f.enumLookup!.label} list)`;
        throw invalid(path, `${show(raw)} is not a valid ${f.enumLookup!.label}${hint}`);
      }
      return v;
    }
    case 'text': {
      if (typeof raw !== 'string' || raw.length === 0 || raw.length > 1000)
        throw invalid(path, `${f.name} takes a non-empty string of at most 1000 characters`);
      return raw.toLowerCase();
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw invalid(path, `${f.name} takes true or false, got ${show(raw)}`);
    }
  }
}

/**
 * A short JSON-like rendering of a caller's value for a problem detail. Bounded in depth and
 * breadth: JSON.stringify recurses, and a body nested 10,000 levels deep (well inside the body
 * limit) would overflow the stack and turn a 400 into a 500.
 */
export function show(v: unknown): string {
  const s = preview(v, 3);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function preview(v: unknown, depth: number): string {
  if (v === null || typeof v !== 'object') {
    const s = typeof v === 'string' && v.length > 80 ? JSON.stringify(`${v.slice(0, 80)}`) : JSON.stringify(v);
    return s === undefined ? String(v) : s;
  }
  if (depth === 0) return Array.isArray(v) ? '[...]' : '{...}';
  if (Array.isArray(v))
    return `[${v
      .slice(0, 5)
      .map((x) => preview(x, depth - 1))
      .join(',')}${v.length > 5 ? ',...' : ''}]`;
  const entries = Object.entries(v);
  return `{${entries
    .slice(0, 5)
    .map(([k, x]) => `${JSON.stringify(k)}:${preview(x, depth - 1)}`)
    .join(',')}${entries.length > 5 ? ',...' : ''}}`;
}
