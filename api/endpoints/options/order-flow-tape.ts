import { CONSOLIDATION_TYPES, MONEY_TYPES, SENTIMENT_TYPES, TRADE_SIDES, TRADE_TYPES } from '../../../services/domain/order-flow';
import { GREEK_NAMES, GREEK_UNITS } from '../../../services/domain/pricing';
import { INDUSTRIES, SECTORS } from '../../../services/domain/enums';
import { OPTION_EXCHANGE_CODES } from '../../../services/domain/venues';
import { emptyStatistics, type ComprisingTrade, type IndexedSort, type OrderFlowRow } from '../../../services/views/order-flow';
import type { EndpointDef, EndpointExample } from '../../request/endpoint';
import type { FieldSet } from '../../request/fields';
import type { FilterParam, ParsedFilter } from '../../request/filter-object';
import { OPTION_TRADE_EXCLUSIVE } from '../../fields/option-trade';
import { fragments, type JsonSchema } from '../../request/validate';
import { tableEndpoint, tableResponseSchema, compileSerializer, type TableRequest } from '../../tables/table-endpoint';
import {
  combosWhenSmallest,
  layoutOf,
  orderFlowFamilies,
  readComprisingTrades,
  readOrderFlowStatistics,
  warmBoundsOf,
  type OrderFlowHints,
} from '../../views/order-flow';

/**
 * What the consolidated and unconsolidated order-flow endpoints share, declared on the table
 * engine (api/tables/): the option-trade filters and the order-flow view's own indexes as the
 * families a filter narrows to, includeStatistics (from the view's counters or a scan), and
 * comprising trades. Each endpoint module declares its own fields, filters, limits and extras
 * (osi, includeComprisingTrades) and calls `orderFlowTape`.
 */

export interface TapeOptions<Row extends OrderFlowRow> {
  path: string;
  summary: string;
  description: string;
  view: string;
  fields: FieldSet<Row>;
  filters: readonly FilterParam[];
  filterSchema: JsonSchema;
  maxSize: number;
  rowSchema: JsonSchema;
  examples: Record<string, EndpointExample>;
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
export function hintsOf<Row>(filter: ParsedFilter<Row>): OrderFlowHints {
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
): { schema: JsonSchema; row: JsonSchema; serialize: (result: unknown) => string; serializeRow: (row: unknown) => string } {
  const unordered = Object.keys(properties).filter((k) => !(RESPONSE_FIELD_ORDER as readonly string[]).includes(k));
  if (unordered.length) throw new Error(`row fields without a place in RESPONSE_FIELD_ORDER: ${unordered.join(', ')}`);
  const ordered = Object.fromEntries(RESPONSE_FIELD_ORDER.filter((k) => k in properties).map((k) => [k, properties[k]]));
  const row = { type: 'object', description, additionalProperties: false, properties: ordered };
  const schema = tableResponseSchema(row, { statistics: STATISTICS_SCHEMA });
  return { schema, row, serialize: compileSerializer(schema), serializeRow: compileSerializer(row) };
}

type TapeRequest<Row> = Omit<TableRequest<Row>, 'segments' | 'version'>;

/** The filter keys the view's statistics counters split by (the combination's fields, and tickers). */
const COUNTER_FILTERS = new Set(['tickers', 'contractTypes', 'tradeSideCodes', 'sectors', 'premiumRange']);

/** Whether statistics may come from the view's counters: whole sessions filtered at most by COUNTER_FILTERS. */
function countersFilter<Row>(req: TapeRequest<Row>): boolean {
  return !req.expression && !req.window && [...req.filter.values.keys()].every((k) => COUNTER_FILTERS.has(k));
}

export function orderFlowTape<Row extends OrderFlowRow>(o: TapeOptions<Row>): EndpointDef {
  const projectable = o.fields.fields.filter((f) => f.projectable).map((f) => f.name);
  return tableEndpoint<Row>({
    path: o.path,
    summary: o.summary,
    description: o.description,
    examples: o.examples,
    layout: layoutOf<Row>(o.view),
    fields: o.fields,
    filters: o.filters,
    exclusive: OPTION_TRADE_EXCLUSIVE,
    maxSize: o.maxSize,
    selectors: ['sessionDate', 'timeRange'],
    defaultSort: { field: 'TRADE_TIME', descending: true },
    rowKeyPattern: CURSOR_ROW_KEY,
    rowSchema: o.rowSchema,
    streamable: true,
    notStreamed: ['includeStatistics'],
    filterSchema: o.filterSchema,
    projectionNote: `Keep only these fields: ${projectable.join(', ')}. Nested objects (GREEKS, MONEYNESS) project as a whole. Exclusive with excludes.`,
    requestExtras: {
      includeStatistics: {
        type: 'boolean',
        default: false,
        description: 'Add `statistics` (premium, tradeCount, volume per contract type and trade side over every matching row) to the first page.',
      },
      ...(o.comprising
        ? { includeComprisingTrades: { type: 'boolean', default: false, description: 'Nest the prints of each trade as comprisingTrades.' } }
        : {}),
    },
    responseExtras: { statistics: STATISTICS_SCHEMA },
    families: (plan, req) => orderFlowFamilies(plan, hintsOf(req.filter)),
    knownSmallest: (fams, req) => combosWhenSmallest(fams, hintsOf(req.filter)),
    warmBounds: (req) => warmBoundsOf(hintsOf(req.filter)),
    empty: ({ body, firstPage }) => (body.includeStatistics === true && firstPage ? { data: [], statistics: emptyStatistics() } : { data: [] }),
    extras: async (req, ctx) => {
      if (req.body.includeStatistics !== true || !req.firstPage) return {};
      const query = { view: o.view, version: req.version, sessions: req.segments, window: req.window, predicate: req.predicate, hints: hintsOf(req.filter) };
      return { statistics: await readOrderFlowStatistics(ctx.redis, ctx.keyPrefix, { ...query, countersFilter: countersFilter(req) }) };
    },
    decorate: async (rows, req, ctx) => {
      if (!o.comprising || req.body.includeComprisingTrades !== true || req.drop.has('comprisingTrades')) return;
      const comprising = await readComprisingTrades(ctx.redis, ctx.keyPrefix, req.version, rows);
      // The rows as read (per request, not shared): the serializer writes the response fields only.
      for (const r of rows) (r as Row & { comprisingTrades?: ComprisingTrade[] }).comprisingTrades = comprising.get(r.rowKey) ?? [];
    },
  });
}

// --- schemas ---------------------------------------------------------------------------------

/** The filter object's documented keys (ajv checks shape; the request layer resolves names and values). */
export function filterSchema(extra: Record<string, JsonSchema>): JsonSchema {
  return {
    ...fragments.filter,
    properties: {
      tickers: fragments.stringOrList('Underlying ticker(s) (alias ticker); OR-combined.'),
      sectors: fragments.stringOrList(
        'Sector(s) (alias sector); case, spaces and separators ignored: FINANCIAL_SERVICES = financialServices = "financial services".',
      ),
      industries: fragments.stringOrList('Industry(ies) (alias industry); case and separators ignored, a double underscore equals a single one.'),
      contractTypes: fragments.stringOrList('CALL and/or PUT (alias contractType).'),
      moneyTypes: fragments.stringOrList('ATM, ITM, OTM (alias moneyType); ATM is within 0.5 % of the strike.'),
      strikePrices: {
        type: ['number', 'array'],
        items: { type: 'number' },
        description: 'Exact strike(s) in dollars (alias strikePrice); exclusive with strikePriceRange.',
      },
      strikePriceRange: fragments.range('Strike price range in dollars'),
      expirationDates: fragments.stringOrList('Expiration date(s) yyyy-MM-dd (alias expirationDate); exclusive with expirationDateRange.'),
      expirationDateRange: {
        type: 'object',
        additionalProperties: false,
        properties: { startDate: { type: ['string', 'null'] }, endDate: { type: ['string', 'null'] } },
        description: 'Expiration dates {startDate, endDate}, inclusive LocalDates; a null bound is open.',
      },
      tradeSideCodes: fragments.stringOrList('ABOVE_ASK, ASK, MID_MARKET, BID, BELOW_BID, or the short codes AA, A, M, B, BB (alias tradeSideCode).'),
      tradeTypes: fragments.stringOrList(`Trade type(s) (alias tradeType): ${TRADE_TYPES.join(', ')}.`),
      sentimentTypes: fragments.stringOrList(`Sentiment(s) (alias sentimentType): ${SENTIMENT_TYPES.join(', ')}.`),
      exchanges: fragments.stringOrList(`Options exchange code(s) (alias exchange): ${OPTION_EXCHANGE_CODES.join(', ')}.`),
      premiumRange: fragments.range('Premium in dollars'),
      volumeRange: fragments.range("The contract's session volume at the trade, contracts"),
      moneynessInDollarsRange: fragments.range('moneyness.degree, |strike - stock price| in dollars'),
      moneynessInPercentRange: fragments.range('moneyness.degreeInPercent, |strike - stock price| / stock price x 100'),
      ...Object.fromEntries(GREEK_NAMES.map((g) => [`${g}Range`, fragments.range(`greeks.${g} (${GREEK_UNITS[g]}); rows without greeks never match`)])),
      sizeRange: fragments.range('Trade size in contracts'),
      isUnusual: { type: ['boolean', 'null'] },
      isOpeningPosition: { type: ['boolean', 'null'] },
      isVolumeGreaterThanOpenInterest: { type: ['boolean', 'null'] },
      ...extra,
    },
  };
}

const numberOrNull = { type: ['number', 'null'] };
const GREEKS_SCHEMA = {
  type: ['object', 'null'],
  description:
    'The fifteen Black-Scholes-Merton greeks at the implied volatility (null when no volatility fits), alphabetical. A volatility point is 0.01 of annual volatility; per day is per calendar day as expiry approaches.',
  required: [...GREEK_NAMES],
  additionalProperties: false,
  properties: Object.fromEntries(GREEK_NAMES.map((g) => [g, { type: 'number', description: GREEK_UNITS[g] }])),
};
const MONEYNESS_SCHEMA = {
  type: 'object',
  required: ['degree', 'degreeInPercent', 'moneyType'],
  additionalProperties: false,
  properties: {
    degree: { type: 'number', description: '|strike - stockPrice| in dollars, never negative (moneyType tells in from out of the money).' },
    degreeInPercent: { type: 'number', description: 'degree / stockPrice x 100.' },
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
