import type { FieldSet } from './fields';
import { invalid } from './problem';

/**
 * includes / excludes (spec "Paging and projection"): lists of projection names, matched after
 * name normalization; mutually exclusive. A name that is filterable but not projectable (news
 * BODY, SENTIMENT) or unknown is a 400. Returns the response keys to drop from every row.
 */
export function parseProjection<Row>(includes: unknown, excludes: unknown, fields: FieldSet<Row>): Set<string> {
  const projectable = fields.fields.filter((x) => x.projectable).map((x) => x.name);
  const list = (raw: unknown, path: string): string[] => {
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) throw invalid(path, 'must be an array of projection names');
    return raw.map((n, i) => {
      if (typeof n !== 'string') throw invalid(`${path}[${i}]`, 'must be a projection name (string)');
      const f = fields.lookup(n);
      if (!f) throw invalid(`${path}[${i}]`, `'${n}' is not a projection name of this endpoint (projectable: ${projectable.join(', ')})`);
      if (!f.projectable) throw invalid(`${path}[${i}]`, `'${n}' is filterable but not projectable (projectable: ${projectable.join(', ')})`);
      return f.name;
    });
  };
  const inc = list(includes, 'includes');
  const exc = list(excludes, 'excludes');
  if (inc.length && exc.length) throw invalid('includes', 'includes and excludes are mutually exclusive; send one of them');
  const drop = new Set<string>();
  for (const f of fields.fields) {
    if (!f.projectable || !f.responseKey) continue;
    if ((inc.length && !inc.includes(f.name)) || exc.includes(f.name)) drop.add(f.responseKey);
  }
  return drop;
}

export function project<T extends object>(row: T, drop: Set<string>): T {
  if (!drop.size) return row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (!drop.has(k)) out[k] = v;
  return out as T;
}
