import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { TRADE_SIDES } from '../../../services/domain/order-flow';
import { partitionOf } from '../../../services/kafka/partition';
import { EQUITY_PRINTS_LAYOUT, NOTIONAL_TIERS, PRINT_TYPES, SIZE_TIERS, type EquityPrintRow } from '../../../services/views/equities/equity-prints';
import type { EndpointDef } from '../../request/endpoint';
import { EQUITY_PRINT_FIELDS, EQUITY_PRINT_FILTERS } from '../../fields/equity-prints';
import type { ParsedFilter } from '../../request/filter-object';
import { fragments } from '../../request/validate';
import type { Family, TablePlan } from '../../tables/engine';
import { READABLE_CURSOR } from '../../tables/readable-cursor';
import { tableEndpoint } from '../../tables/table-endpoint';

const ROW_SCHEMA = {
  type: 'object',
  description: 'An equity print (spec "Equity print row"). Fields dropped by includes/excludes are absent.',
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'Print id.' },
    ticker: { type: 'string' },
    price: { type: 'number', description: 'Dollars (off-exchange prints may carry four decimals).' },
    size: { type: 'integer', description: 'Shares.' },
    notionalValue: { type: 'number', description: 'price x size, dollars.' },
    printType: { enum: [...PRINT_TYPES], description: 'LIT (an exchange) or DARK_POOL (reported off-exchange, FINRA TRF/ADF).' },
    tradeSide: { enum: [...TRADE_SIDES], description: 'The price against the NBBO at the print.' },
    askPrice: { type: 'number' },
    bidPrice: { type: 'number' },
    askSize: { type: 'integer', description: 'Shares displayed at the ask.' },
    bidSize: { type: 'integer', description: 'Shares displayed at the bid.' },
    isDelayedPrint: { type: 'boolean', description: 'Reported late (out of sequence).' },
    tradeTime: { type: 'integer', description: 'Trade time, epoch-ms (UTC).' },
  },
};

/** The highest tier at or below a range's minimum: its index holds every print of the range. */
function tierAtOrBelow(tiers: readonly number[], min: number | null): number | undefined {
  if (min === null) return undefined;
  return [...tiers].reverse().find((t) => t <= min);
}

function ranged(filter: ParsedFilter<EquityPrintRow>, key: string): [number | null, number | null] | undefined {
  return filter.values.get(key) as [number | null, number | null] | undefined;
}

/** The view's indexes a filter narrows to (the engine reads the smallest; the predicate checks every row). */
function families(plan: TablePlan<EquityPrintRow>, filter: ParsedFilter<EquityPrintRow>): Family[] {
  const out: Family[] = [];
  const tickers = filter.values.get('tickers') as string[] | undefined;
  if (tickers) out.push(plan.indexFamily('tk', 'tk', tickers, (t) => [partitionOf(t, MARKET_PARTITIONS)]));
  const types = filter.values.get('equityPrintTypes') as string[] | undefined;
  if (types && types.length === 1 && types[0] === 'DARK_POOL') out.push(plan.indexFamily('dp', 'dp', ['']));
  const notional = ranged(filter, 'notionalValueRange');
  const size = ranged(filter, 'sizeRange');
  const price = ranged(filter, 'priceRange');
  const nt = tierAtOrBelow(NOTIONAL_TIERS, notional?.[0] ?? null);
  if (nt !== undefined) out.push(plan.indexFamily(`nt:${nt}`, 'nt', [String(nt)]));
  const sz = tierAtOrBelow(SIZE_TIERS, size?.[0] ?? null);
  if (sz !== undefined) out.push(plan.indexFamily(`sz:${sz}`, 'sz', [String(sz)]));
  if (notional) out.push(plan.sortFamily('notional', notional));
  if (size) out.push(plan.sortFamily('size', size));
  if (price) out.push(plan.sortFamily('price', price));
  return out;
}

/**
 * POST /v1/equities/tool/equity-prints: the lit and off-exchange print tape on the table engine.
 * Sessions with tick data only (history sessions hold no full tape).
 */
export const equityPrints: EndpointDef = tableEndpoint<EquityPrintRow>({
  path: '/equities/tool/equity-prints',
  summary: 'Equity prints on lit exchanges and off-exchange (dark pool), cursor-paged.',
  description:
    'The print tape of a session (sessionDate), a window (timeRange, end exclusive) or, with neither, the latest session with prints. Sessions with tick data only: history sessions beyond those carry no tape. Default order tradeTime DESCENDING (id on ties); sort by any filterable field (TRADE_TIME, NOTIONAL_VALUE, SIZE and PRICE are indexed). printType is LIT or DARK_POOL; tradeSide is ABOVE_ASK, ASK, MID_MARKET, BID or BELOW_BID (short codes AA, A, M, B, BB accepted as filter input).',
  layout: EQUITY_PRINTS_LAYOUT,
  fields: EQUITY_PRINT_FIELDS,
  filters: EQUITY_PRINT_FILTERS,
  maxSize: 100,
  selectors: ['sessionDate', 'timeRange'],
  defaultSort: { field: 'TRADE_TIME', descending: true },
  rowKeyPattern: /^[A-Za-z0-9._-]{1,64}$/,
  cursor: READABLE_CURSOR,
  rowSchema: ROW_SCHEMA,
  streamable: true,
  filterSchema: {
    ...fragments.filter,
    properties: {
      tickers: fragments.stringOrList('Ticker(s) (alias ticker); OR-combined.'),
      equityPrintTypes: fragments.stringOrList('LIT and/or DARK_POOL (aliases equityPrintType, printType, printTypes, type, types).'),
      tradeSideCodes: fragments.stringOrList(
        'Trade side(s): ABOVE_ASK, ASK, MID_MARKET, BID, BELOW_BID or the short codes AA, A, M, B, BB (alias tradeSideCode).',
      ),
      priceRange: fragments.range('Price in dollars'),
      sizeRange: fragments.range('Size in shares'),
      askPriceRange: fragments.range('Ask price in dollars'),
      askSizeRange: fragments.range('Ask size in shares'),
      bidPriceRange: fragments.range('Bid price in dollars'),
      bidSizeRange: fragments.range('Bid size in shares'),
      notionalValueRange: fragments.range('Notional (price x size) in dollars'),
      isDelayedPrint: { type: ['boolean', 'string'], description: 'true: only prints reported late; false: only prints reported on time.' },
    },
  },
  families: (plan, { filter }) => families(plan, filter),
  warmBounds: ({ filter }) => ({
    blockKeys: filter.values.get('tickers') as string[] | undefined,
    ranges: { notional: ranged(filter, 'notionalValueRange'), size: ranged(filter, 'sizeRange'), price: ranged(filter, 'priceRange') },
  }),
  examples: {
    latest: { summary: 'The newest prints of the latest session', request: { size: 5 } },
    darkBlocks: {
      summary: 'Dark-pool prints of $1M or more, largest first',
      request: {
        sessionDate: '2024-05-01',
        size: 1,
        sort: { field: 'NOTIONAL_VALUE', direction: 'DESCENDING' },
        filter: { equityPrintTypes: ['DARK_POOL'], notionalValueRange: { min: 1_000_000 } },
      },
      response: {
        data: [
          {
            id: 'E-20240501-AAPL-212-4',
            ticker: 'AAPL',
            price: 169.2051,
            size: 25000,
            notionalValue: 4230127.5,
            printType: 'DARK_POOL',
            tradeSide: 'MID_MARKET',
            askPrice: 169.21,
            bidPrice: 169.2,
            askSize: 400,
            bidSize: 300,
            isDelayedPrint: false,
            tradeTime: 1714582345123,
          },
        ],
        nextSearchAfter: ['4230127.5', 'E-20240501-AAPL-212-4'],
      },
    },
    expression: {
      summary: 'One ticker at the ask or above, with an expression on size, four fields',
      request: {
        filter: { ticker: 'NVDA', tradeSideCodes: ['AA', 'A'] },
        filterExpression: {
          conjunction: 'OR',
          filters: [
            { field: 'SIZE', operation: '>=', value: 1000 },
            { field: 'IS_DELAYED_PRINT', operation: '=', value: 'true' },
          ],
        },
        includes: ['ID', 'PRICE', 'SIZE', 'TRADE_TIME'],
      },
    },
  },
});
