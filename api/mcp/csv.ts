import type { JsonSchema } from '../request/validate';

/**
 * An endpoint's JSON answer as the CSV text an MCP tool returns (vendor notes section 5): header
 * lines `key=value` for the members beside `data` (objects flattened with dots, `statistics` as
 * `stats.*`, lists as JSON), a blank line, then `data` as a table. The table's shape comes from
 * the response schema, so every endpoint's answer converts the same way:
 *
 * - a list of records (the table endpoints): one row per record;
 * - a map (`additionalProperties`): one column for its keys, named from the map's description
 *   ("Expiration date (ascending) -> strike string -> cell" names the levels expirationDate and
 *   strike), then the columns of its values;
 * - a record: its fields as columns, nested records flattened with dots (`greeks.delta`); a map
 *   among them is expanded into rows, the record's other fields repeated on each;
 * - lists inside a row are one cell of JSON.
 *
 * Columns come from the schema, so a field an answer leaves out (a projected-out one) is an empty
 * cell, as the vendor's are. Cells are quoted as RFC 4180 says when they hold a comma, a quote or
 * a line break; lines end with \n.
 */

type Row = Record<string, unknown>;

interface Table {
  columns: string[];
  rows: Row[];
}

const HEADER_NAMES: Record<string, string> = { statistics: 'stats' };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isMap = (s: JsonSchema) => isObject(s.additionalProperties) && !s.properties;

/** A record's properties, with those of oneOf/anyOf alternatives merged in order. */
function recordProperties(s: JsonSchema): Record<string, JsonSchema> | null {
  const alternatives = [s, ...((s.oneOf ?? s.anyOf ?? []) as JsonSchema[])];
  const merged: Record<string, JsonSchema> = {};
  for (const a of alternatives) Object.assign(merged, (a.properties ?? {}) as Record<string, JsonSchema>);
  return Object.keys(merged).length ? merged : null;
}

/** 'Expiration date (ascending)' -> expirationDate; 'strike string (ascending)' -> strike; '' -> key. */
export function keyColumnName(segment: string | undefined): string {
  const words = (segment ?? '')
    .replace(/\([^)]*\)/g, ' ')
    .replace(/[^A-Za-z ]/g, ' ')
    .split(/\s+/)
    .filter((w) => w && w.toLowerCase() !== 'string');
  if (!words.length || words.length > 3) return 'key';
  return words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())).join('');
}

/** The columns and rows of a value by its schema; `names` are the key names of nested maps not described themselves. */
function tableOf(schema: JsonSchema, value: unknown, prefix: string, names: string[]): Table {
  if (isMap(schema)) {
    const described = typeof schema.description === 'string' ? schema.description.split('->') : null;
    const levels = described ?? names;
    const key = keyColumnName(levels[0]);
    const inner = tableOf(schema.additionalProperties as JsonSchema, undefined, '', levels.slice(1));
    const rows: Row[] = [];
    if (isObject(value))
      for (const [k, v] of Object.entries(value))
        for (const r of tableOf(schema.additionalProperties as JsonSchema, v, '', levels.slice(1)).rows) rows.push({ [key]: k, ...r });
    return { columns: [key, ...inner.columns], rows };
  }
  const props = recordProperties(schema);
  if (props) {
    const columns: string[] = [];
    const own: Row = {};
    let expanded: Table | null = null;
    for (const [name, child] of Object.entries(props)) {
      const v = isObject(value) ? value[name] : undefined;
      if (isMap(child) && !expanded) {
        // A map inside a record (exposure's exposureMap) becomes rows; its columns start afresh.
        expanded = tableOf(child, v, '', names);
        columns.push(...expanded.columns);
      } else if (recordProperties(child) && !isMap(child)) {
        const sub = tableOf(child, v, `${prefix}${name}.`, names);
        columns.push(...sub.columns);
        Object.assign(own, sub.rows[0] ?? {});
      } else {
        columns.push(`${prefix}${name}`);
        if (v !== undefined) own[`${prefix}${name}`] = v;
      }
    }
    const rows = expanded && expanded.rows.length ? expanded.rows.map((r) => ({ ...own, ...r })) : [own];
    return { columns, rows };
  }
  const column = prefix ? prefix.slice(0, -1) : 'value';
  return { columns: [column], rows: [value === undefined ? {} : { [column]: value }] };
}

function dataTable(schema: JsonSchema | undefined, data: unknown): Table {
  if (!schema) return { columns: [], rows: [] };
  if (schema.items && isObject(schema.items)) {
    const item = schema.items as JsonSchema;
    const columns = tableOf(item, undefined, '', []).columns;
    return { columns, rows: Array.isArray(data) ? data.map((d) => tableOf(item, d, '', []).rows[0]) : [] };
  }
  const t = tableOf(schema, data, '', []);
  // A map answers no row when empty; a record with no field set is no row either.
  return { columns: t.columns, rows: t.rows.filter((r) => Object.keys(r).length) };
}

/** A cell's text: numbers as JSON writes them, lists and objects as JSON, null and absent empty. */
export function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function headerLines(name: string, value: unknown, out: string[]): void {
  if (value === undefined || value === null) return;
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) headerLines(`${name}.${k}`, v, out);
    return;
  }
  const text = cellText(value);
  out.push(`${name}=${/[\r\n]/.test(text) ? JSON.stringify(text) : text}`);
}

/** The CSV text of an answer of an endpoint whose response schema is `responseSchema`. */
export function answerToCsv(answer: unknown, responseSchema: JsonSchema): string {
  const members = isObject(answer) ? answer : {};
  const props = (responseSchema.properties ?? {}) as Record<string, JsonSchema>;
  const table = dataTable(props.data, members.data);
  const header = [`rows=${table.rows.length}`];
  for (const [k, v] of Object.entries(members)) if (k !== 'data') headerLines(HEADER_NAMES[k] ?? k, v, header);
  const lines = [...header, '', table.columns.map(csvField).join(',')];
  for (const r of table.rows) lines.push(table.columns.map((c) => csvField(cellText(r[c]))).join(','));
  return `${lines.join('\n')}\n`;
}
