/**
 * Checks an MCP tool's CSV text against the REST answer to the same request, written apart from
 * api/mcp/csv.ts: it parses the text (RFC 4180), and walks the REST JSON with each row's cells,
 * so it needs neither the response schema nor the converter's column names.
 *
 * - The header lines before the blank line are `rows=<count>` and one `name=value` per scalar of
 *   the members beside `data` (objects by dotted path, `statistics` as `stats`, lists as JSON).
 * - Each row, read left to right against the JSON: a cell that is a key of the object reached so
 *   far (directly, or of an object one level down, like exposure's exposureMap) descends into it;
 *   any other non-empty cell must equal the scalar at its column's dotted path there.
 * - Every non-null scalar of `data` is shown by some cell, and no cell shows anything else.
 */

import { PERIOD_LONG_NAMES, type PeriodName } from '../../api/request/aggregation/period';

type Json = any; // answers of thirty shapes

/**
 * A REST body as the flat arguments of its MCP tool, as the vendor notes describe them (written
 * apart from api/mcp/tools.ts): the filter's members at the top, sort as sortField and
 * sortDirection, aggregationPeriod by its long name.
 */
export function toolArguments(body: Record<string, unknown>): Record<string, unknown> {
  const { filter, sort, aggregationPeriod, ...rest } = body as { filter?: object; sort?: { field?: string; direction?: string }; aggregationPeriod?: string };
  return {
    ...rest,
    ...(filter ?? {}),
    ...(sort?.field !== undefined ? { sortField: sort.field } : {}),
    ...(sort?.direction !== undefined ? { sortDirection: sort.direction } : {}),
    ...(aggregationPeriod ? { aggregationPeriod: PERIOD_LONG_NAMES[aggregationPeriod as PeriodName] ?? aggregationPeriod } : {}),
  };
}

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endCell();
    else if (c === '\n') {
      endCell();
      rows.push(row);
      row = [];
    } else cell += c;
  }
  if (cell || row.length) {
    endCell();
    rows.push(row);
  }
  return rows;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/** Every non-null leaf (a scalar or a list) under `v`, by JSON path. */
function leaves(v: unknown, path: string, out: Map<string, unknown>): void {
  if (v === null || v === undefined) return;
  if (isObject(v)) for (const [k, c] of Object.entries(v)) leaves(c, `${path}/${k}`, out);
  else out.set(path, v);
}

export interface CsvCheck {
  header: Record<string, string>;
  columns: string[];
  rows: string[][];
}

export function checkCsvAgainstAnswer(csv: string, answer: Json): CsvCheck {
  const blank = csv.indexOf('\n\n');
  expect(blank).toBeGreaterThan(0);
  const headerLines = csv.slice(0, blank).split('\n');
  const [columns, ...rows] = parseCsv(csv.slice(blank + 2));
  const header = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  expect(header.rows).toBe(String(rows.length));

  const expectedHeader: Record<string, string> = {};
  const flat = (name: string, v: unknown) => {
    if (v === null || v === undefined) return;
    if (isObject(v)) for (const [k, c] of Object.entries(v)) flat(`${name}.${k}`, c);
    else expectedHeader[name] = text(v);
  };
  for (const [k, v] of Object.entries(answer)) if (k !== 'data') flat(k === 'statistics' ? 'stats' : k, v);
  const { rows: _rows, ...shown } = header;
  expect(shown).toEqual(expectedHeader);

  const all = new Map<string, unknown>();
  if (Array.isArray(answer.data)) answer.data.forEach((row: unknown, i: number) => leaves(row, `/${i}`, all));
  else leaves(answer.data, '', all);
  const seen = new Set<string>();
  const dig = (node: unknown, path: string[]): unknown => path.reduce<unknown>((n, k) => (isObject(n) ? n[k] : undefined), node);
  rows.forEach((row, i) => {
    expect(row).toHaveLength(columns.length);
    let node: unknown = Array.isArray(answer.data) ? answer.data[i] : answer.data;
    let at = Array.isArray(answer.data) ? `/${i}` : '';
    columns.forEach((column, j) => {
      const cell = row[j];
      if (cell === '') return;
      const path = column.split('.');
      if (isObject(node) && !(path[0] in node)) {
        // A key column: the cell is a key here, or of the one object-valued member that holds it.
        if (cell in node) {
          node = node[cell];
          at += `/${cell}`;
          return;
        }
        const holder = Object.entries(node).find(([, v]) => isObject(v) && cell in v);
        if (holder) {
          node = (holder[1] as Record<string, unknown>)[cell];
          at += `/${holder[0]}/${cell}`;
          return;
        }
      }
      const leafPath = isObject(node) ? `${at}/${path.join('/')}` : at;
      const value = isObject(node) ? dig(node, path) : node;
      expect({ column, row: i, cell }).toEqual({ column, row: i, cell: text(value) });
      seen.add(leafPath);
    });
  });
  expect([...seen].sort()).toEqual([...all.keys()].sort());
  return { header, columns, rows };
}
