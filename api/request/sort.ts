import type { FieldDef, FieldSet } from './fields';
import { show } from './fields';
import { invalid } from './problem';

/**
 * `sort` of a table-shaped endpoint (spec "Paging and projection"): {field, direction}, field any
 * filterable field of the row (names normalized like everywhere else), direction ASCENDING or
 * DESCENDING (case ignored; DESCENDING when absent). Rows with equal sort values are ordered by
 * row id in the same direction, so every order is total and a cursor walk is exact.
 */
export interface ParsedSort<Row> {
  field: FieldDef<Row>;
  descending: boolean;
}

export function parseSort<Row>(raw: unknown, fields: FieldSet<Row>, dflt: { field: string; descending: boolean }): ParsedSort<Row> {
  if (raw === undefined || raw === null) return { field: fields.lookup(dflt.field)!, descending: dflt.descending };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('sort', 'must be an object {field, direction}');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'field' && k !== 'direction') throw invalid(`sort.${k}`, 'is not a field of sort (field, direction)');
  if (o.field === undefined || o.field === null) throw invalid('sort.field', 'is required');
  const field = fields.filterable(o.field, 'sort.field');
  if (field.multi) throw invalid('sort.field', `${field.name} holds a list and cannot order rows`);
  let descending = true;
  if (o.direction !== undefined && o.direction !== null) {
    const d = typeof o.direction === 'string' ? o.direction.trim().toUpperCase() : null;
    if (d !== 'ASCENDING' && d !== 'DESCENDING') throw invalid('sort.direction', `must be ASCENDING or DESCENDING, got ${show(o.direction)}`);
    descending = d === 'DESCENDING';
  }
  return { field, descending };
}
