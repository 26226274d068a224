import fastJson from 'fast-json-stringify';
import { CONSOLIDATION_TYPES, MONEY_TYPES, SENTIMENT_TYPES, TRADE_SIDES, TRADE_TYPES } from '../../../services/domain/order-flow';
import { INDUSTRIES, SECTORS } from '../../../services/domain/enums';
import { OPTION_EXCHANGE_CODES } from '../../../services/domain/venues';
import { emptyStatistics, isSortKeyOf, type ComprisingTrade, type IndexedSort, type OrderFlowRow } from '../../../services/views/order-flow';
import type { EndpointContext, EndpointExample } from '../../request/endpoint';
import type { FieldSet } from '../../request/fields';
import { FilterParam, ParsedFilter, filterPredicate, parseFilterObject } from '../../request/filter-object';
import { and, compileExpression } from '../../request/filter-expression';
import { OPTION_TRADE_EXCLUSIVE } from '../../fields/option-trade';
import { decodeCursor, encodeCursor, parseSize } from '../../request/paging';
import { parseProjection, project } from '../../request/projection';
import { parseSort } from '../../request/sort';
import { parseTimeSelection, sessionsCovered } from '../../request/time-selectors';
import { fragments, type JsonSchema } from '../../request/validate';
import {
  OrderFlowHints,
  orderFlowSessions,
  orderFlowStamp,
  readComprisingTrades,
  readOrderFlowPage,
  readOrderFlowStatistics,
} from '../../views/order-flow-reader';

/**
 * What the consolidated and unconsolidated order-flow endpoints share: the request (session
 * selectors, paging, sort, cursor, projection, the option-trade filters and filterExpression,
 * includeStatistics) and how a page is read from the view. Each endpoint module declares its
 * own fields, filters, limits and extras (osi, includeComprisingTrades) and calls `answer`.
 */

export interface TapeOptions<Row extends OrderFlowRow> {
  view: string;
  fields: FieldSet<Row>;
  filters: readonly FilterParam[];
  maxSize: number;
  /** Consolidated rows: attach comprising trades when requested. */
  comprising?: boolean;
}

const CURSOR_ROW_KEY = /^\d{2}[0-9a-z]{8}$/;

const INDEXED_RANGE_FILTERS: Record<string, IndexedSort> = {
  premiumRange: 'PREMIUM',
  sizeRange: 'SIZE',
  volumeRange: 'VOLUME',
  strikePriceRange: 'STRIKE_PRICE',
};

/** The parts of the filter object that let the reader pick a narrower index (it still tests every row). */
function hintsOf<Row>(filter: ParsedFilter<Row>): OrderFlowHints {
  const hints: OrderFlowHints = { ranges: {} };
  const tickers = filter.values.get('tickers');
  if (Array.isArray(tickers)) hints.tickers = tickers as string[];
  const osi = filter.values.get('osi');
  if (Array.isArray(osi)) hints.osi = osi[0] as string;
  if (filter.values.get('isUnusual') === true) hints.unusualOnly = true;
  for (const [key, hint] of [
    ['contractTypes', 'contractTypes'],
    ['tradeSideCodes', 'tradeSides'],
    ['sectors', 'sectors'],
  ] as const) {
    const v = filter.values.get(key);
    if (Array.isArray(v)) hints[hint] = v as string[];
  }
  for (const [key, field] of Object.entries(INDEXED_RANGE_FILTERS)) {
    const r = filter.values.get(key);
    if (Array.isArray(r) && r.length === 2) hints.ranges![field] = [r[0] as number | null, r[1] as number | null];
  }
  return hints;
}

/**
 * The response fields of a row in the spec's order: identity, then the trade, then the tape's own
 * fields (osi after id; the consolidation fields after tradeType), flags, nested objects, time.
 * View-internal fields (rowKey, sessionDate, lastTradeTime) are not among them.
 */
export const RESPONSE_FIELD_ORDER = [
  'id',
  'osi',
  'ticker',
  'contractType',
  'expirationDate',
  'dte',
  'strikePrice',
  'sector',
  'industry',
  'exchange',
  'premium',
  'size',
  'volume',
  'openInterest',
  'optionPrice',
  'askPrice',
  'bidPrice',
  'bidAskSpread',
  'stockPrice',
  'impliedVolatility',
  'tradeSideCode',
  'tradeType',
  'tradeConsolidationType',
  'isGoldenSweep',
  'sentimentType',
  'isUnusual',
  'isOpeningPosition',
  'isETF',
  'isIndex',
  'isVolumeGreaterThanOpenInterest',
  'greeks',
  'moneyness',
  'comprisingTrades',
  'tradeTime',
] as const;

/**
 * A tape's row schema (its properties in RESPONSE_FIELD_ORDER), its response schema, and the
 * response serializer compiled from them (fast-json-stringify). The serializer writes only the
 * row schema's properties, in order, so the handler hands it the rows as read from the view:
 * view-internal fields stay out without a copy of every row, and a field dropped by
 * includes/excludes (absent from the row object) is left out (no row property is required).
 */
export function tapeResponse(
  description: string,
  properties: Record<string, JsonSchema>,
): { schema: JsonSchema; serialize: (result: unknown) => string; serializeRow: (row: unknown) => string } {
  const unordered = Object.keys(properties).filter((k) => !(RESPONSE_FIELD_ORDER as readonly string[]).includes(k));
  if (unordered.length) throw new Error(`row fields without a place in RESPONSE_FIELD_ORDER: ${unordered.join(', ')}`);
  const ordered = Object.fromEntries(RESPONSE_FIELD_ORDER.filter((k) => k in properties).map((k) => [k, properties[k]]));
  const row = { type: 'object', description, additionalProperties: false, properties: ordered };
  const schema = responseSchema(row);
  const compile = (x: JsonSchema) => fastJson(x as unknown as Parameters<typeof fastJson>[0]) as (value: unknown) => string;
  return { schema, serialize: compile(schema), serializeRow: compile(row) };
}

/** The response-cache stamp of a tape's view (EndpointDef.cacheStamp); null before the view exists. */
export async function tapeStamp(view: string, ctx: EndpointContext): Promise<string | null> {
  const version = await ctx.views.version(view);
  return version === null ? null : orderFlowStamp(ctx.redis, ctx.keyPrefix, view, version);
}

export async function answer<Row extends OrderFlowRow>(
  o: TapeOptions<Row>,
  body: Record<string, unknown>,
  ctx: EndpointContext,
): Promise<Record<string, unknown>> {
  const selector = parseTimeSelection(body, ['sessionDate', 'timeRange']);
  const size = parseSize(body.size, o.maxSize);
  const sort = parseSort(body.sort, o.fields, { field: 'TRADE_TIME', descending: true });
  const kind =
    sort.field.type === 'boolean'
      ? 'boolean'
      : sort.field.type === 'integer' || sort.field.type === 'number' || sort.field.type === 'time'
        ? 'number'
        : 'string';
  const cursor = decodeCursor(
    body.searchAfter,
    (s) => (isSortKeyOf(kind, s) ? s : null),
    (s) => (CURSOR_ROW_KEY.test(s) ? s : null),
  );
  const after = cursor && { sortKey: cursor.sort, rowKey: cursor.id };
  const drop = parseProjection(body.includes, body.excludes, o.fields);
  const filter = parseFilterObject(body.filter, o.filters, o.fields, OPTION_TRADE_EXCLUSIVE);
  const expr = body.filterExpression == null ? null : compileExpression(body.filterExpression, o.fields, 'A');
  const window = selector.kind === 'window' ? selector.window : null;
  // The window is not part of the predicate: the reader tests it on every row (and plans with it).
  const predicate = and<Row>([filterPredicate(filter), ...(expr ? [expr.predicate] : [])]);
  const wantStatistics = body.includeStatistics === true && after === null;

  const version = await ctx.views.version(o.view);
  // The sessions the view holds are read only when the selector needs them (not for a sessionDate).
  const held =
    version === null || selector.kind === 'session'
      ? []
      : await ctx.views.list(`${o.view}:${version}:sessions`, () => orderFlowSessions(ctx.redis, ctx.keyPrefix, o.view, version));
  const sessions = sessionsCovered(selector, held);
  if (version === null || sessions.length === 0) return wantStatistics ? { data: [], statistics: emptyStatistics() } : { data: [] };

  // Whole sessions filtered at most by ticker: statistics come from the view's counters.
  const onlyTickersFilter = !expr && !window && [...filter.values.keys()].every((k) => k === 'tickers');
  const query = { view: o.view, version, sessions, window, predicate, hints: hintsOf(filter), onlyTickersFilter };
  const value = (r: Row) => {
    const v = sort.field.get(r);
    return Array.isArray(v) ? null : (v as string | number | boolean | null);
  };
  const [page, statistics] = await Promise.all([
    readOrderFlowPage(ctx.redis, ctx.keyPrefix, { ...query, sort: { field: sort.field.name, descending: sort.descending, value }, after, size }),
    wantStatistics ? readOrderFlowStatistics(ctx.redis, ctx.keyPrefix, query) : Promise.resolve(null),
  ]);

  let comprising: Map<string, ComprisingTrade[]> | null = null;
  if (o.comprising && body.includeComprisingTrades === true && !drop.has('comprisingTrades') && page.rows.length) {
    comprising = await readComprisingTrades(ctx.redis, ctx.keyPrefix, version, page.rows);
  }
  // The rows as read (per request, not shared): the endpoint's serializer writes the response
  // fields only (tapeResponse).
  const data = page.rows.map((r) => {
    if (comprising) (r as Row & { comprisingTrades?: ComprisingTrade[] }).comprisingTrades = comprising.get(r.rowKey) ?? [];
    return project(r, drop);
  });
  const res: Record<string, unknown> = { data };
  if (page.next) res.nextSearchAfter = encodeCursor(page.next.sortKey, page.next.rowKey);
  if (statistics) res.statistics = statistics;
  return res;
}

// --- schemas ---------------------------------------------------------------------------------

const stringOrList = (description: string, items: JsonSchema = { type: 'string' }) => ({ type: ['string', 'array'], items, description });
const range = (description: string) => ({
  type: 'object',
  additionalProperties: false,
  properties: { min: { type: ['number', 'null'] }, max: { type: ['number', 'null'] } },
  description: `${description} {min, max}, inclusive; a null or absent bound is open.`,
});

/** The filter object's documented keys (ajv checks shape; the request layer resolves names and values). */
export function filterSchema(extra: Record<string, JsonSchema>): JsonSchema {
  return {
    ...fragments.filter,
    properties: {
      tickers: stringOrList('Underlying ticker(s) (alias ticker); OR-combined.'),
      sectors: stringOrList('Sector(s) (alias sector); case, spaces and separators ignored: FINANCIAL_SERVICES = financialServices = "financial services".'),
      industries: stringOrList('Industry(ies) (alias industry); case and separators ignored, a double underscore equals a single one.'),
      contractTypes: stringOrList('CALL and/or PUT (alias contractType).'),
      moneyTypes: stringOrList('ATM, ITM, OTM (alias moneyType); ATM is within 0.5 % of the strike.'),
      strikePrices: {
        type: ['number', 'array'],
        items: { type: 'number' },
        description: 'Exact strike(s) in dollars (alias strikePrice); exclusive with strikePriceRange.',
      },
      strikePriceRange: range('Strike price range in dollars'),
      expirationDates: stringOrList('Expiration date(s) yyyy-MM-dd (alias expirationDate); exclusive with expirationDateRange.'),
      expirationDateRange: {
        type: 'object',
        additionalProperties: false,
        properties: { startDate: { type: ['string', 'null'] }, endDate: { type: ['string', 'null'] } },
        description: 'Expiration dates {startDate, endDate}, inclusive LocalDates; a null bound is open.',
      },
      tradeSideCodes: stringOrList('ABOVE_ASK, ASK, MID_MARKET, BID, BELOW_BID, or the short codes AA, A, M, B, BB (alias tradeSideCode).'),
      tradeTypes: stringOrList(`Trade type(s) (alias tradeType): ${TRADE_TYPES.join(', ')}.`),
      sentimentTypes: stringOrList(`Sentiment(s) (alias sentimentType): ${SENTIMENT_TYPES.join(', ')}.`),
      exchanges: stringOrList(`Options exchange code(s) (alias exchange): ${OPTION_EXCHANGE_CODES.join(', ')}.`),
      premiumRange: range('Premium in dollars'),
      volumeRange: range("The contract's session volume at the trade, contracts"),
      sizeRange: range('Trade size in contracts'),
      isUnusual: { type: ['boolean', 'null'] },
      isOpeningPosition: { type: ['boolean', 'null'] },
      isVolumeGreaterThanOpenInterest: { type: ['boolean', 'null'] },
      ...extra,
    },
  };
}

export function requestSchema(maxSize: number, filter: JsonSchema, extra: Record<string, JsonSchema>, projectable: string[]): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      sessionDate: {
        type: 'string',
        format: 'date',
        description: 'Trading session (yyyy-MM-dd). Exclusive with timeRange. Neither: the latest session with data (the live one during market hours).',
      },
      timeRange: fragments.timeRange,
      size: fragments.size(maxSize),
      sort: {
        type: 'object',
        description:
          'Order of the rows: any filterable field, ASCENDING or DESCENDING (default tradeTime DESCENDING); ties are ordered by row, so cursor walks are exact.',
        properties: { field: { type: 'string' }, direction: { type: 'string' } },
      },
      searchAfter: fragments.searchAfter,
      includes: {
        ...fragments.projectionList,
        description: `Keep only these fields: ${projectable.join(', ')}. Nested objects (GREEKS, MONEYNESS) project as a whole. Exclusive with excludes.`,
      },
      excludes: { ...fragments.projectionList, description: 'Drop these fields (same names as includes).' },
      filter,
      filterExpression: fragments.filterExpression,
      includeStatistics: {
        type: 'boolean',
        default: false,
        description: 'Add `statistics` (premium, tradeCount, volume per contract type and trade side over every matching row) to the first page.',
      },
      ...extra,
    },
  };
}

const numberOrNull = { type: ['number', 'null'] };
const GREEKS_SCHEMA = {
  type: ['object', 'null'],
  description:
    'Black-Scholes-Merton greeks at the implied volatility (null when no volatility fits): delta; gamma per $1; theta per calendar day; vega per volatility point; rho per 1 % rate; charm per day; vanna per volatility point.',
  required: ['delta', 'gamma', 'theta', 'vega', 'rho', 'charm', 'vanna'],
  additionalProperties: false,
  properties: Object.fromEntries(['delta', 'gamma', 'theta', 'vega', 'rho', 'charm', 'vanna'].map((g) => [g, { type: 'number' }])),
};
const MONEYNESS_SCHEMA = {
  type: 'object',
  required: ['degree', 'degreeInPercent', 'moneyType'],
  additionalProperties: false,
  properties: {
    degree: { type: 'number', description: '(S-K)/K for calls, (K-S)/K for puts; positive in the money.' },
    degreeInPercent: { type: 'number' },
    moneyType: { enum: [...MONEY_TYPES] },
  },
};

export const COMPRISING_TRADE_SCHEMA = {
  type: 'object',
  required: ['id', 'osi', 'tradeTime', 'exchange', 'optionPrice', 'size', 'premium', 'tradeSideCode', 'bidPrice', 'askPrice'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'The print (its unconsolidated row id).' },
    osi: { type: 'string' },
    tradeTime: { type: 'integer' },
    exchange: { type: 'string' },
    optionPrice: { type: 'number' },
    size: { type: 'integer' },
    premium: { type: 'number' },
    tradeSideCode: { enum: [...TRADE_SIDES] },
    bidPrice: { type: 'number' },
    askPrice: { type: 'number' },
  },
};

/** Properties of a row common to both tapes. */
export const ROW_PROPERTIES: Record<string, JsonSchema> = {
  id: { type: 'string' },
  ticker: { type: 'string' },
  contractType: { enum: ['CALL', 'PUT'] },
  expirationDate: { type: 'string', format: 'date' },
  dte: { type: 'number', description: 'Fractional days to the 16:00 ET expiry at the trade.' },
  strikePrice: { type: 'number' },
  sector: { enum: [...SECTORS] },
  industry: { enum: [...INDUSTRIES] },
  exchange: { enum: [...OPTION_EXCHANGE_CODES] },
  premium: { type: 'number', description: 'price x size x 100, dollars.' },
  size: { type: 'integer' },
  volume: { type: 'integer', description: "The contract's session volume up to and including the trade." },
  openInterest: { type: 'integer', description: 'Start-of-session open interest (0 when none was published).' },
  optionPrice: { type: 'number' },
  askPrice: { type: 'number' },
  bidPrice: { type: 'number' },
  bidAskSpread: { type: 'number' },
  stockPrice: { type: 'number' },
  impliedVolatility: { ...numberOrNull, description: 'Fractional; solved from the NBBO midpoint (else the trade price); null when no volatility fits.' },
  tradeSideCode: { enum: [...TRADE_SIDES] },
  tradeType: { enum: [...TRADE_TYPES] },
  sentimentType: { enum: [...SENTIMENT_TYPES] },
  isUnusual: { type: 'boolean' },
  isOpeningPosition: { type: 'boolean' },
  isETF: { type: 'boolean' },
  isIndex: { type: 'boolean' },
  isVolumeGreaterThanOpenInterest: { type: 'boolean' },
  greeks: GREEKS_SCHEMA,
  moneyness: MONEYNESS_SCHEMA,
  tradeTime: { type: 'integer', description: 'epoch-ms' },
};

export const CONSOLIDATED_ONLY_PROPERTIES: Record<string, JsonSchema> = {
  tradeConsolidationType: { enum: [...CONSOLIDATION_TYPES] },
  isGoldenSweep: { type: 'boolean' },
  comprisingTrades: { type: 'array', items: COMPRISING_TRADE_SCHEMA, description: 'Present only with includeComprisingTrades.' },
};

const SIDE_STATS = {
  type: 'object',
  required: ['premium', 'tradeCount', 'volume'],
  additionalProperties: false,
  properties: { premium: { type: 'number', description: 'dollars' }, tradeCount: { type: 'integer' }, volume: { type: 'integer', description: 'contracts' } },
};
const PER_SIDE = {
  type: 'object',
  required: [...TRADE_SIDES],
  additionalProperties: false,
  properties: Object.fromEntries(TRADE_SIDES.map((s) => [s, SIDE_STATS])),
};
export const STATISTICS_SCHEMA = {
  type: 'object',
  description: 'Over every row matching the request (not just the page), per contract type then trade side; every type and side is present.',
  required: ['CALL', 'PUT'],
  additionalProperties: false,
  properties: { CALL: PER_SIDE, PUT: PER_SIDE },
};

export function responseSchema(row: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: row },
      nextSearchAfter: fragments.nextSearchAfter(
        'Cursor of the next page (opaque: sort key and row key); pass it back unchanged as searchAfter. Absent on the last page.',
      ),
      statistics: STATISTICS_SCHEMA,
    },
  };
}

/** Request examples shared by both tapes (each is sent to a live API by the OpenAPI test). */
export const COMMON_EXAMPLES: Record<string, EndpointExample> = {
  latest: { summary: 'The newest trades of the latest session', request: { size: 5 } },
  bigPuts: {
    summary: 'Put buying of $500k or more in technology, largest first, with statistics',
    request: {
      sessionDate: '2026-11-20',
      sort: { field: 'PREMIUM', direction: 'DESCENDING' },
      filter: { contractTypes: 'PUT', premiumRange: { min: 500000, max: null }, tradeSideCodes: ['A', 'AA'], sector: 'technology' },
      includeStatistics: true,
    },
  },
  expression: {
    summary: 'Short-dated calls or deep puts on two tickers, a few fields only',
    request: {
      filter: { tickers: ['SPY', 'QQQ'] },
      filterExpression: {
        conjunction: 'OR',
        filters: [
          {
            conjunction: 'AND',
            filters: [
              { field: 'CONTRACT_TYPE', operation: '=', value: 'CALL' },
              { field: 'DTE', operation: '<', value: 2 },
            ],
          },
          { field: 'DELTA', operation: '<=', value: -0.8 },
        ],
      },
      includes: ['ID', 'TICKER', 'PREMIUM', 'TRADE_TIME', 'GREEKS'],
    },
  },
};
