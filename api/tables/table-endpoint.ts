import fastJson from 'fast-json-stringify';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { isSortKeyOf } from '../../services/views/sort-keys';
import type { TableLayout } from '../../services/views/table';
import type { EndpointContext, EndpointDef, EndpointExample } from '../request/endpoint';
import type { FieldDef, FieldSet } from '../request/fields';
import { filterPredicate, parseFilterObject, type FilterParam, type ParsedFilter } from '../request/filter-object';
import { and, compileExpression, type CompiledExpression, type Predicate } from '../request/filter-expression';
import { decodeCursor, foreignCursor, parseSize } from '../request/paging';
import type { ProblemCode } from '../request/problem';
import { parseProjection, project } from '../request/projection';
import { parseSort, type ParsedSort } from '../request/sort';
import { parseTimeSelection, sessionsCovered, type SelectorName, type TimeSelection } from '../request/time-selectors';
import type { TimeWindow } from '../request/time';
import { fragments, type JsonSchema } from '../request/validate';
import { withoutFloatNoise } from '../request/float-noise';
import { readTablePage, type Family, type TablePlan, type TableQuery } from './engine';
import { hotSessionsKey } from '../../services/views/warm-tier';
import { viewSegments, viewStamp } from './view-state';

/**
 * A table-shaped endpoint declared on the table engine: its view's layout, its FieldSet and
 * filters, its limits and time selectors, and optionally what only it does (narrower families
 * from its filter, extras such as statistics, rows decorated after the page is read). The engine
 * does the rest, the same way for every table: time selection, size, sort, cursor, projection,
 * the filter object and filterExpression, the page read (engine.ts), the compiled serializer and
 * the response-cache stamp.
 */

/** Everything parsed from one request, handed to an endpoint's hooks. */
export interface TableRequest<Row> {
  body: Record<string, unknown>;
  selection: TimeSelection;
  window: TimeWindow | null;
  filter: ParsedFilter<Row>;
  expression: CompiledExpression<Row> | null;
  predicate: Predicate<Row>;
  sort: ParsedSort<Row>;
  /** True when the request carries no cursor. */
  firstPage: boolean;
  /** Response keys dropped by includes/excludes. */
  drop: Set<string>;
  version: number;
  segments: string[];
}

/** How a cursor travels: the default is opaque (the sort key and the rowKey as stored). */
export interface CursorCodec {
  encode(sortKey: string, rowKey: string, sortValue: unknown): [string, string];
  /** The stored (sortKey, rowKey) of a client's cursor, or null when it is not one of ours. */
  decode(parts: [string, string], sortField: FieldDef<unknown>): { sortKey: string; rowKey: string } | null;
}

export interface TableEndpointSpec<Row> {
  path: string;
  summary: string;
  description: string;
  examples: Record<string, EndpointExample>;
  problems?: readonly ProblemCode[];
  layout: TableLayout<Row>;
  fields: FieldSet<Row>;
  filters: readonly FilterParam[];
  /** Filter keys that exclude each other (a value and its range). */
  exclusive?: readonly (readonly [string, string])[];
  maxSize: number;
  /** The time selectors accepted; a segmented view resolves `latest` to its newest segment. */
  selectors: readonly SelectorName[];
  /** Note on the default selection, for the request schema's description. */
  selectorNote?: string;
  /** The default order; `sortable: false` makes it the only one (no sort field in the request). */
  defaultSort: { field: string; descending: boolean };
  sortable?: boolean;
  /** A row's key in the stored form (checked on cursors). */
  rowKeyPattern: RegExp;
  cursor?: CursorCodec;
  /** Response row schema (its properties in response order); the serializer is compiled from it. */
  rowSchema: JsonSchema;
  /** The filter object's schema. */
  filterSchema: JsonSchema;
  /** Description of includes, when the default (the projectable names) needs more. */
  projectionNote?: string;
  /** Request properties beyond the common ones (includeStatistics...). */
  requestExtras?: Record<string, JsonSchema>;
  /** Response properties beyond data and nextSearchAfter (statistics...). */
  responseExtras?: Record<string, JsonSchema>;
  /** The row predicate, when the filter's plain AND does not say it (news: sentiment scoped to tickers). */
  predicate?(filter: ParsedFilter<Row>, expression: CompiledExpression<Row> | null): Predicate<Row>;
  /** Families narrower than the whole view that the filter allows (engine.ts). */
  families?(plan: TablePlan<Row>, req: Omit<TableRequest<Row>, 'segments' | 'version'>): Family[];
  knownSmallest?(families: Family[], req: Omit<TableRequest<Row>, 'segments' | 'version'>): Family | null;
  companions?(req: Omit<TableRequest<Row>, 'segments' | 'version'>): TableQuery<Row>['companions'];
  /** Bounds that let a read skip warm blocks (engine.ts WarmBounds). */
  warmBounds?(req: Omit<TableRequest<Row>, 'segments' | 'version'>): TableQuery<Row>['warmBounds'];
  /** Response members beyond the rows, computed beside the page (statistics). */
  extras?(req: TableRequest<Row>, ctx: EndpointContext): Promise<Record<string, unknown>>;
  /** The answer when the view or the selected segments hold nothing. */
  empty?(req: { body: Record<string, unknown>; firstPage: boolean }): Record<string, unknown>;
  /** Work on the page's rows before they are projected (comprising trades, bodies). */
  decorate?(rows: Row[], req: TableRequest<Row>, ctx: EndpointContext): Promise<void>;
  /** The response form of a row (the stored row itself when absent: the serializer writes only schema fields). */
  toResponse?(row: Row, req: TableRequest<Row>): object;
  /** The view keeps a feed of its rows (services/views/feed.ts): the endpoint has a push stream (api/streams/). */
  streamable?: boolean;
  /** Request extras that make no sense on a stream (includeStatistics). */
  notStreamed?: readonly string[];
}

/**
 * What a push stream of a table endpoint needs (api/streams/): how a feed entry decodes, its
 * request schema (the endpoint's filter, filterExpression, includes/excludes and row extras), and
 * per request the same row predicate and response rows as the endpoint's pages.
 */
export interface TableStreamSource {
  view: string;
  requestSchema: JsonSchema;
  decode(stored: Buffer, rowKey: string, segment: string): unknown;
  compile(body: Record<string, unknown>): CompiledStream;
}

export interface CompiledStream {
  matches(row: unknown): boolean;
  /** The response objects of matching rows, as a page would hold them (decorated, projected). */
  render(rows: unknown[], ctx: EndpointContext, version: number): Promise<object[]>;
  /** Writes one response row as JSON (the endpoint's compiled row serializer). */
  serialize(row: object): string;
}

/** The filter object and filterExpression of a request compiled into one row predicate (pages and streams alike). */
export function compileRowFilter<Row>(
  spec: Pick<TableEndpointSpec<Row>, 'filters' | 'fields' | 'exclusive' | 'predicate'>,
  body: Record<string, unknown>,
): { filter: ParsedFilter<Row>; expression: CompiledExpression<Row> | null; predicate: Predicate<Row> } {
  const filter = parseFilterObject(body.filter, spec.filters, spec.fields, spec.exclusive ?? []);
  const expression = body.filterExpression == null ? null : compileExpression(body.filterExpression, spec.fields, 'A');
  const predicate = spec.predicate ? spec.predicate(filter, expression) : and<Row>([filterPredicate(filter), ...(expression ? [expression.predicate] : [])]);
  return { filter, expression, predicate };
}

const OPAQUE: CursorCodec = {
  encode: (sortKey, rowKey) => [sortKey, rowKey],
  decode: ([sortKey, rowKey], f) => (isSortKeyOf(sortKeyKind(f), sortKey) ? { sortKey, rowKey } : null),
};

function sortKeyKind(f: FieldDef<unknown>): 'number' | 'boolean' | 'string' {
  if (f.type === 'boolean') return 'boolean';
  return f.type === 'integer' || f.type === 'number' || f.type === 'time' ? 'number' : 'string';
}

/** A serializer compiled from a JSON Schema (fast-json-stringify): writes the schema's properties, in order, and nothing else. */
export function compileSerializer(schema: JsonSchema): (value: unknown) => string {
  return fastJson(schema as unknown as Parameters<typeof fastJson>[0]) as (value: unknown) => string;
}

/** The response of a table endpoint: data rows, the cursor, and the endpoint's extras. */
export function tableResponseSchema(rowSchema: JsonSchema, extras: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: rowSchema },
      nextSearchAfter: fragments.nextSearchAfter('Cursor of the next page (opaque); pass it back unchanged as searchAfter. Absent on the last page.'),
      ...extras,
    },
  };
}

export function tableEndpoint<Row>(spec: TableEndpointSpec<Row>): EndpointDef {
  const { layout, fields } = spec;
  const codec = spec.cursor ?? OPAQUE;
  const segmented = layout.segmented;
  const projectable = fields.fields.filter((f) => f.projectable).map((f) => f.name);
  const responseSchema = tableResponseSchema(spec.rowSchema, spec.responseExtras);
  const sortSuffix = new Map(layout.sorts.map((s) => [s.field, s.suffix]));
  const requestSchema: JsonSchema = {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...selectorProperties(spec),
      size: fragments.size(spec.maxSize),
      ...(spec.sortable === false
        ? {}
        : {
            sort: {
              type: 'object',
              description: `Order of the rows: any filterable field, ASCENDING or DESCENDING (default ${spec.defaultSort.field} ${spec.defaultSort.descending ? 'DESCENDING' : 'ASCENDING'}); ties are ordered by row, so cursor walks are exact.`,
              properties: { field: { type: 'string' }, direction: { type: 'string' } },
            },
          }),
      searchAfter: fragments.searchAfter,
      includes: {
        ...fragments.projectionList,
        description: spec.projectionNote ?? `Keep only these fields: ${projectable.join(', ')}. Exclusive with excludes.`,
      },
      excludes: { ...fragments.projectionList, description: 'Drop these fields (same names as includes).' },
      filter: spec.filterSchema,
      filterExpression: fragments.filterExpression,
      ...spec.requestExtras,
    },
  };

  return {
    stream: spec.streamable ? tableStream(spec, requestSchema) : undefined,
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    kind: 'table',
    views: [layout.view],
    requestSchema,
    responseSchema,
    examples: spec.examples,
    problems: spec.problems,
    serialize: compileSerializer(responseSchema),
    cacheStamp: async (ctx) => {
      const version = await ctx.views.version(layout.view);
      return version === null ? null : viewStamp(ctx.redis, ctx.keyPrefix, layout.view, version);
    },

    async handle(body, ctx) {
      const selection = parseTimeSelection(body, spec.selectors);
      const size = parseSize(body.size, spec.maxSize);
      const sort =
        spec.sortable === false
          ? { field: fields.lookup(spec.defaultSort.field)!, descending: spec.defaultSort.descending }
          : parseSort(body.sort, fields, spec.defaultSort);
      const cursor = decodeCursor(
        body.searchAfter,
        (s) => s,
        (s) => s,
      );
      const after = cursor && codec.decode([cursor.sort, cursor.id], sort.field as FieldDef<unknown>);
      if (cursor && (!after || !spec.rowKeyPattern.test(after.rowKey))) throw foreignCursor();
      const drop = parseProjection(body.includes, body.excludes, fields);
      const { filter, expression, predicate } = compileRowFilter(spec, body);
      const window = selection.kind === 'window' ? selection.window : null;
      const firstPage = after === null;
      const partial = { body, selection, window, filter, expression, predicate, sort, firstPage, drop };

      const version = await ctx.views.version(layout.view);
      let segments = [''];
      if (segmented && version !== null) {
        // The segments the view holds are read only when the selection needs them.
        const held =
          selection.kind === 'session'
            ? []
            : await ctx.views.list(`${layout.view}:${version}:segments`, () => viewSegments(ctx.redis, ctx.keyPrefix, layout.view, version));
        segments = sessionsCovered(selection, held);
      }
      if (version === null || segments.length === 0) return spec.empty ? spec.empty({ body, firstPage }) : { data: [] };
      const req: TableRequest<Row> = { ...partial, version, segments };
      const hotSegments = layout.warm ? await newestHotSegments(ctx, layout.view, version) : undefined;

      const query: TableQuery<Row> = {
        layout,
        version,
        partitions: MARKET_PARTITIONS,
        segments,
        window,
        predicate,
        families: spec.families && ((plan) => spec.families!(plan, partial)),
        knownSmallest: spec.knownSmallest && ((fams) => spec.knownSmallest!(fams, partial)),
        companions: spec.companions?.(partial),
        warmBounds: spec.warmBounds?.(partial),
        hotSegments,
      };
      const suffix = sortSuffix.get(sort.field.name) ?? null;
      const value = (r: Row) => {
        const v = sort.field.get(r);
        return Array.isArray(v) ? null : (v as string | number | boolean | null);
      };
      const [page, extras] = await Promise.all([
        readTablePage(ctx.redis, ctx.keyPrefix, { ...query, sort: { suffix, descending: sort.descending, value }, after, size }),
        spec.extras ? spec.extras(req, ctx) : Promise.resolve(null),
      ]);
      if (spec.decorate && page.rows.length) await spec.decorate(page.rows, req, ctx);
      const data = page.rows.map((r) => project(spec.toResponse ? (spec.toResponse(r, req) as Row & object) : (r as Row & object), drop));
      const res: Record<string, unknown> = { data };
      if (page.next) res.nextSearchAfter = codec.encode(page.next.sortKey, page.next.rowKey, value(page.rows[page.rows.length - 1]));
      if (extras) Object.assign(res, extras);
      return res;
    },
  };
}

/** The push stream of a streamable table endpoint: the endpoint's own predicate, decoration and row serializer. */
function tableStream<Row>(spec: TableEndpointSpec<Row>, requestSchema: JsonSchema): TableStreamSource {
  const { layout, fields } = spec;
  const paging = new Set(['sessionDate', 'timeRange', 'size', 'sort', 'searchAfter', ...(spec.notStreamed ?? [])]);
  const properties = Object.fromEntries(Object.entries(requestSchema.properties as Record<string, JsonSchema>).filter(([k]) => !paging.has(k)));
  const serializeRow = compileSerializer(spec.rowSchema);
  const sort = { field: fields.lookup(spec.defaultSort.field)!, descending: spec.defaultSort.descending };
  return {
    view: layout.view,
    requestSchema: { ...requestSchema, properties },
    decode: (stored, rowKey, segment) => layout.decode(stored, rowKey, segment),
    compile(body) {
      const { filter, expression, predicate } = compileRowFilter(spec, body);
      const drop = parseProjection(body.includes, body.excludes, fields);
      const request = (version: number): TableRequest<Row> => ({
        body,
        selection: { kind: 'latest' },
        window: null,
        filter,
        expression,
        predicate,
        sort,
        firstPage: true,
        drop,
        version,
        segments: [],
      });
      return {
        matches: (row) => predicate(row as Row),
        async render(rows, ctx, version) {
          const req = request(version);
          const typed = rows as Row[];
          if (spec.decorate && typed.length) await spec.decorate(typed, req, ctx);
          return typed.map((r) => project(spec.toResponse ? (spec.toResponse(r, req) as Row & object) : (r as Row & object), drop));
        },
        serialize: (row) => withoutFloatNoise(serializeRow(row)),
      };
    },
  };
}

/**
 * The sessions of a view that are hot for sure, so a request for them skips the tier read: the
 * newest K - 1 of the sessions it holds, K being the version's hot-session count. The session
 * list may be a second old (ViewPointers); one session newer than it cannot push these past K.
 */
async function newestHotSegments(ctx: EndpointContext, view: string, version: number): Promise<Set<string>> {
  const [held, k] = await Promise.all([
    ctx.views.list(`${view}:${version}:segments`, () => viewSegments(ctx.redis, ctx.keyPrefix, view, version)),
    ctx.views.list(`${view}:${version}:hot-sessions`, async () => [(await ctx.redis.get(hotSessionsKey(ctx.keyPrefix, view, version))) ?? '0']),
  ]);
  return new Set(held.slice(Math.max(0, held.length - (Number(k[0]) - 1))));
}

function selectorProperties<Row>(spec: TableEndpointSpec<Row>): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  if (spec.selectors.includes('sessionDate')) {
    out.sessionDate = {
      type: 'string',
      format: 'date',
      description: `Trading session (yyyy-MM-dd). Exclusive with timeRange. ${spec.selectorNote ?? 'Neither: the latest session with data (the live one during market hours).'}`,
    };
  }
  if (spec.selectors.includes('timeRange')) out.timeRange = fragments.timeRange;
  return out;
}
