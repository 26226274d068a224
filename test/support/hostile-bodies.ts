import fc from 'fast-check';
import type { EndpointDef } from '../../api/request/endpoint';

/**
 * fast-check arbitraries for hostile request bodies, derived from an endpoint's own declaration
 * (its request schema's fields and its documented examples) so that every endpoint mounted later
 * is fuzzed the same way: wrong types, huge numbers, deep nesting, unknown fields, bad dates,
 * unicode (lone surrogates, astral, full-width), malformed JSON and raw bytes.
 */

export interface FuzzRequest {
  kind: string;
  path: string;
  contentType: string | null;
  body: string | Uint8Array;
}

const HUGE = [1e308, -1e308, 2 ** 53 + 2, -(2 ** 53) - 2, Number.MIN_VALUE, -0, 1e21, 4294967296, 0.1 + 0.2, -1, 0, 101, 1001, 365.5];
const BAD_DATES = [
  '2024-02-30T00:00:00Z',
  '2024-13-01T00:00:00Z',
  '2024-05-01T24:00:00Z',
  '2024-05-01T23:59:60Z',
  '2024-05-01T00:00:00',
  '2024-05-01',
  '05/01/2024',
  'yesterday',
  '',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999+14:00',
  '1969-12-31T23:59:59Z',
  '2024-05-01T00:00:00-25:00',
  ' 2024-05-01T00:00:00Z',
  '2024-05-01T00:00:00Z\u0000',
  '+275760-09-13T00:00:00Z',
  '2024-W18-3',
];
const WEIRD = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff',
  '\ud83d\ude80\ud83d\udcc8',
  'Ω≈ç√∫',
  'ＡＡＰＬ',
  'aapl',
  'M&A',
  'Econ #s',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "'; DROP TABLE news; --",
  '%00',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'NaN',
  'Infinity',
  'null',
  '1e999',
  '*',
  '\\',
  '{p00}',
  'mdq:news:current',
  'x'.repeat(5000),
];
const OPS = [
  '=',
  'EQ',
  'EQUALS',
  '!=',
  'NEQ',
  'DOES_NOT_EQUAL',
  '<',
  'LT',
  'LESS_THAN',
  '<=',
  'LTE',
  '>',
  'GT',
  '>=',
  'GTE',
  'GREATER_THAN_OR_EQUAL_TO',
  'LIKE',
  '',
  '==',
];
const TOP_LEVEL_EXTRAS = [
  'unknownField',
  'sessionDate',
  'snapshotTime',
  'aggregationPeriod',
  'sort',
  'sessionDateRange',
  '__proto__',
  'constructor',
  '',
  'SIZE',
];

/** A JSON value nested `depth` levels deep: arrays, objects or both. */
function nest(depth: number, kind: 'array' | 'object' | 'mixed'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = kind === 'array' || (kind === 'mixed' && i % 2) ? [v] : { a: v };
  return v;
}

/** Paths (lists of keys) to values inside a JSON value, the root included, down to `maxDepth` (values may be hostile-deep). */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = [], maxDepth = 6): (string | number)[][] {
  out.push(prefix);
  if (prefix.length >= maxDepth) return out;
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out, maxDepth));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out, maxDepth);
  return out;
}

/** A copy of `root` with the value at `path` replaced (or removed); only the objects on the path are copied. */
function setAt(root: unknown, path: (string | number)[], value: unknown, remove: boolean): unknown {
  if (path.length === 0) return value;
  const [k, ...rest] = path;
  // An array keeps its shape only for index keys: a key such as `length` turns it into an object
  // (arrays cannot take a redefined `length`, and JSON would not carry it anyway).
  const index = typeof k === 'number' || /^\d+$/.test(k);
  const copy = (Array.isArray(root) && index ? [...root] : root && typeof root === 'object' ? { ...(root as object) } : {}) as Record<string | number, unknown>;
  if (rest.length === 0 && remove && !Array.isArray(copy)) {
    delete copy[k];
    return copy;
  }
  const next = rest.length === 0 ? value : setAt(copy[k], rest, value, remove);
  // defineProperty: a key named __proto__ becomes a real member, as JSON.parse would make it.
  Object.defineProperty(copy, k, { value: next, enumerable: true, writable: true, configurable: true });
  return copy;
}

export function hostileRequests(endpoints: readonly EndpointDef[], otherPaths: readonly string[], fieldNames: readonly string[]): fc.Arbitrary<FuzzRequest> {
  const names = fc.oneof(
    fc.constantFrom(...fieldNames),
    fc.constantFrom(...fieldNames).map((n) => n.toLowerCase().replace(/_/g, ' ')),
    fc.constantFrom(...fieldNames).map((n) => n.replace(/_(\w)/g, (_m, c: string) => c.toLowerCase())),
    fc.constantFrom(...WEIRD),
  );
  const strings = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom(...WEIRD),
    fc.constantFrom(...BAD_DATES),
    names,
  );
  const scalar = fc.oneof(fc.constantFrom(...HUGE), fc.double(), fc.integer(), strings, fc.boolean(), fc.constant(null));
  const deep = fc
    .tuple(
      fc.oneof(fc.integer({ min: 9, max: 64 }), fc.integer({ min: 65, max: 3_000 })),
      fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>,
    )
    .map(([d, k]) => nest(d, k));
  const hostile: fc.Arbitrary<unknown> = fc.oneof(
    { weight: 5, arbitrary: scalar },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: deep },
    { weight: 2, arbitrary: fc.array(scalar, { maxLength: 20 }) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom('AAPL', 'MSFT', 'TSLA', 'ZZZZ', 'brk.b'), { minLength: 900, maxLength: 1100 }) },
    { weight: 1, arbitrary: fc.dictionary(strings, scalar, { maxKeys: 4 }) },
  );
  const range = fc.record(
    {
      startTime: fc.oneof(
        fc.constantFrom(...BAD_DATES),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        hostile,
      ),
      endTime: fc.oneof(
        fc.constantFrom(...BAD_DATES),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        hostile,
      ),
    },
    { requiredKeys: [] },
  );
  const expr = fc.letrec<{ node: unknown; term: unknown; group: unknown; groupB: unknown }>((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, tie('term'), tie('group'), tie('groupB'), hostile),
    term: fc.record(
      {
        field: fc.oneof(names, hostile),
        operation: fc.oneof(fc.constantFrom(...OPS), hostile),
        comparator: fc.constantFrom(...OPS),
        value: fc.oneof(scalar, hostile),
        values: fc.oneof(fc.array(scalar, { maxLength: 6 }), hostile),
      },
      { requiredKeys: [] },
    ),
    group: fc.record(
      {
        conjunction: fc.oneof(fc.constantFrom('AND', 'OR', 'and', 'Or', 'XOR', ''), hostile),
        filters: fc.oneof({ depthSize: 'small' }, fc.array(tie('node'), { maxLength: 4 }), hostile),
      },
      { requiredKeys: [] },
    ),
    groupB: fc.record({ operator: fc.constantFrom('AND', 'OR', 'NOT'), operands: fc.array(tie('node'), { maxLength: 3 }) }, { requiredKeys: [] }),
  }));
  const tooDeepExpr = fc.integer({ min: 9, max: 400 }).map((d) => {
    let node: unknown = { field: 'ID', operation: '=', value: 1 };
    for (let i = 0; i < d; i++) node = { conjunction: 'AND', filters: [node] };
    return node;
  });
  const contentType = fc.oneof(
    { weight: 20, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | null>(
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'APPLICATION/JSON',
        'application/vnd.api+json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset="',
        null,
      ),
    },
  );
  const json = (v: unknown) => JSON.stringify(v) ?? 'null';

  const perEndpoint = endpoints.map((def) => {
    const path = `/v1${def.path}`;
    const props = Object.keys((def.requestSchema.properties as Record<string, unknown>) ?? {});
    const examples = Object.values(def.examples).map((e) => e.request);
    const valueFor = (key: string) =>
      key === 'timeRange'
        ? fc.oneof(range, hostile)
        : key === 'filterExpression'
          ? fc.oneof(expr.node, tooDeepExpr)
          : key === 'filter'
            ? fc.oneof(
                fc.dictionary(
                  fc.oneof(fc.constantFrom('tickers', 'ticker', 'topics', 'topic', 'sentiments', 'sentiment', 'TICKERS', 'sector'), strings),
                  hostile,
                  { maxKeys: 4 },
                ),
                hostile,
              )
            : hostile;
    const fromSchema = fc
      .array(
        fc.constantFrom(...props, ...TOP_LEVEL_EXTRAS).chain((k) => valueFor(k).map((v) => [k, v] as const)),
        { maxLength: 6 },
      )
      .map((entries) => json(Object.fromEntries(entries)));
    const mutated = fc
      .tuple(
        fc.constantFrom(...examples),
        fc.array(fc.tuple(fc.nat(), hostile, fc.boolean(), fc.option(strings, { nil: undefined })), { minLength: 1, maxLength: 3 }),
      )
      .map(([ex, muts]) => {
        let body: unknown = ex;
        for (const [n, value, remove, newKey] of muts) {
          const ps = paths(body);
          const p = ps[n % ps.length];
          // Sometimes a new (unknown) key beside an existing one, otherwise replace or delete.
          body = newKey !== undefined && p.length > 0 ? setAt(body, [...p.slice(0, -1), newKey], value, false) : setAt(body, p, value, remove);
        }
        return json(body);
      });
    const exprBody = fc
      .tuple(fc.oneof(expr.node, tooDeepExpr), fc.option(fc.integer({ min: -5, max: 120 })))
      .map(([e, size]) => json({ filterExpression: e, ...(size === null ? {} : { size }) }));
    const body = fc.oneof(
      { weight: 3, arbitrary: mutated.map((b) => ['mutated example', b] as const) },
      { weight: 3, arbitrary: fromSchema.map((b) => ['schema fields, hostile values', b] as const) },
      { weight: 2, arbitrary: exprBody.map((b) => ['filterExpression tree', b] as const) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => ['random JSON', json(v)] as const) },
    );
    return fc.tuple(body, contentType).map(([[kind, b], ct]): FuzzRequest => ({ kind, path, contentType: ct, body: b }));
  });

  const rawBody: fc.Arbitrary<[string, string | Uint8Array]> = fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((b) => ['random bytes', b] as [string, Uint8Array]),
    fc
      .tuple(fc.constantFrom(...endpoints.flatMap((d) => Object.values(d.examples).map((e) => JSON.stringify(e.request)))), fc.nat())
      .map(([t, n]) => ['truncated JSON', t.slice(0, n % Math.max(1, t.length))] as [string, string]),
    fc
      .uint8Array({ minLength: 1, maxLength: 40 })
      .map(
        (b) =>
          ['invalid UTF-8 in a string', new Uint8Array([...Buffer.from('{"filter": {"tickers": ["'), 0xff, 0xfe, 0xc3, ...b, ...Buffer.from('"]}}')])] as [
            string,
            Uint8Array,
          ],
      ),
    fc
      .constantFrom(
        '{"size": 1e999}',
        '{"size": -1e999}',
        `{"size": ${'9'.repeat(400)}}`,
        `{"size": 0.${'0'.repeat(400)}1}`,
        '{"size": 1, "size": 2, "size": 3}',
        '\ufeff{"size": 1}',
        '{"__proto__": {"polluted": true}}',
        '{"constructor": {"prototype": {"polluted": true}}}',
        '{"filter": {"__proto__": {"tickers": ["AAPL"]}}}',
        '{"filterExpression": {"__proto__": {"field": "ID"}, "operation": "=", "value": 1}}',
        '[]',
        'null',
        'true',
        '""',
        '{}',
        ' ',
        '{"includes": ["\\ud800"]}',
        '{"filter": {"ticker": "\\u0000"}}',
        'x'.repeat(70_000),
      )
      .map((b) => ['edge case', b] as [string, string]),
    fc.integer({ min: 100, max: 32_000 }).map((n) => ['deeply nested array', '['.repeat(n) + ']'.repeat(n)] as [string, string]),
    fc.integer({ min: 100, max: 12_000 }).map((n) => ['deeply nested object', '{"a":'.repeat(n) + '1' + '}'.repeat(n)] as [string, string]),
    fc
      .integer({ min: 100, max: 10_000 })
      .map((n) => ['deep value inside a filter', `{"filter": {"tickers": ${'['.repeat(n)}"AAPL"${']'.repeat(n)}}}`] as [string, string]),
    fc
      .integer({ min: 100, max: 10_000 })
      .map(
        (n) =>
          ['deep value inside a term', `{"filterExpression": {"field": "ID", "operation": "=", "value": ${'{"a":'.repeat(n)}1${'}'.repeat(n)}}}`] as [
            string,
            string,
          ],
      ),
  );
  const raw = fc
    .tuple(fc.constantFrom(...endpoints.map((d) => `/v1${d.path}`)), rawBody, contentType)
    .map(([path, [kind, body], ct]): FuzzRequest => ({ kind, path, contentType: ct, body }));
  const elsewhere = fc
    .tuple(fc.constantFrom(...otherPaths), fc.jsonValue({ maxDepth: 2 }))
    .map(([path, v]): FuzzRequest => ({ kind: 'other route', path, contentType: 'application/json', body: json(v) }));

  return fc
    .oneof({ weight: 16, arbitrary: fc.oneof(...perEndpoint) }, { weight: 5, arbitrary: raw }, { weight: 1, arbitrary: elsewhere })
    .map((r) => Object.assign(r, { [fc.toStringMethod]: () => describe(r) }));
}

/** How a failing case is printed: bodies can be 64 KiB of brackets, so the middle is elided. */
function describe(r: FuzzRequest): string {
  const text = typeof r.body === 'string' ? r.body : `<${r.body.length} bytes> ${Buffer.from(r.body).toString('latin1')}`;
  const body = text.length > 400 ? `${text.slice(0, 300)} …(${text.length - 350} more)… ${text.slice(-50)}` : text;
  return `${r.kind}: POST ${r.path} [${r.contentType ?? 'no Content-Type'}] ${JSON.stringify(body)}`;
}
