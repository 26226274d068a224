import { rollUp, bucketKey } from '../../request/aggregation/buckets';
import { orderedMap } from '../../request/aggregation/ordered-map';
import type { FilterParam, ParsedFilter } from '../../request/filter-object';
import { parseFilterObject } from '../../request/filter-object';
import { invalid } from '../../request/problem';
import { UNCONSOLIDATED_FIELDS } from '../../fields/option-trade';
import { mergeBars, type Bar } from '../../../services/views/flow-aggregates';
import type { OrderFlowPrintRow } from '../../../services/views/order-flow';
import { readBars, type ContractRef } from '../../views/flow-aggregates/reader';
import { flowEndpoint } from './flow-aggregation';

/**
 * POST /v1/options/tool/option-price-over-time: trade bars of one contract, named by its OSI
 * symbol or by all four of ticker, expirationDate, strikePrice and contractType (never both, never
 * part of the four). Open and close are the bucket's first and last prints in (tradeTime, print)
 * order; buckets without a print are omitted (vendor notes 2.9).
 */

const FOUR = ['ticker', 'expirationDate', 'strikePrice', 'contractType'] as const;
const FILTERS: FilterParam[] = [
  { key: 'osi', kind: 'eq', field: 'OSI' },
  { key: 'ticker', aliases: ['tickers'], kind: 'eq', field: 'TICKER' },
  { key: 'expirationDate', aliases: ['expirationDates'], kind: 'eq', field: 'EXPIRATION_DATE' },
  { key: 'strikePrice', aliases: ['strikePrices'], kind: 'eq', field: 'STRIKE_PRICE' },
  { key: 'contractType', aliases: ['contractTypes'], kind: 'eq', field: 'CONTRACT_TYPE' },
];

/** The one contract a filter names; a 400 naming the conflict or the missing part otherwise. */
function parseContract(raw: unknown): ParsedFilter<OrderFlowPrintRow> {
  const f = parseFilterObject(raw, FILTERS, UNCONSOLIDATED_FIELDS);
  const has = (k: string) => f.values.has(k);
  const parts = FOUR.filter(has);
  if (has('osi') && parts.length)
    throw invalid(
      'filter.osi',
      `cannot be combined with filter.${parts[0]}: name the contract by osi or by ticker, expirationDate, strikePrice and contractType, not both`,
    );
  if (!has('osi') && !parts.length) throw invalid('filter', 'must identify one contract: osi, or all of ticker, expirationDate, strikePrice and contractType');
  const missing = FOUR.find((k) => !has(k));
  if (!has('osi') && missing)
    throw invalid(
      `filter.${missing}`,
      `is required with filter.${parts[0]} (a contract is named by osi or by all of ticker, expirationDate, strikePrice and contractType)`,
    );
  return f;
}

function contractOf(f: ParsedFilter<OrderFlowPrintRow>): ContractRef {
  const one = (k: string) => (f.values.get(k) as (string | number)[])[0];
  if (f.values.has('osi')) return { osi: one('osi') as string };
  return {
    ticker: one('ticker') as string,
    expirationDate: one('expirationDate') as string,
    strikePrice: one('strikePrice') as number,
    contractType: one('contractType') as 'CALL' | 'PUT',
  };
}

export const optionPriceOverTime = flowEndpoint({
  path: '/options/tool/option-price-over-time',
  summary: 'Trade bars (open, high, low, close, volume) of one contract',
  description:
    "One contract, by `filter.osi` (21 characters) or by all four of `filter.ticker`, `expirationDate`, `strikePrice`, `contractType`; both forms together, part of the four, or none is a 400. Per bucket (start as epoch-ms, ascending): openPrice and closePrice (the first and last print in the bucket by trade time), highPrice and lowPrice (dollars) and volume (contracts) over the contract's prints. Buckets without a print are omitted. filterExpression is not accepted.",
  filters: FILTERS,
  filterExtras: {
    osi: { type: ['string', 'null'], description: "The contract's 21-character OSI symbol; exclusive with the four parts." },
    ticker: { type: ['string', 'null'], description: 'Underlying (with expirationDate, strikePrice and contractType).' },
    expirationDate: { type: ['string', 'null'], description: 'yyyy-MM-dd' },
    strikePrice: { type: ['number', 'null'], description: 'dollars' },
    contractType: { type: ['string', 'null'], description: 'CALL or PUT' },
  },
  parseFilter: parseContract,
  expression: false,
  bucketed: true,
  required: ['filter'],
  dataSchema: {
    type: 'object',
    description: 'Bucket start (epoch-ms string) -> bar.',
    additionalProperties: {
      type: 'object',
      required: ['openPrice', 'highPrice', 'lowPrice', 'closePrice', 'volume'],
      additionalProperties: false,
      properties: {
        openPrice: { type: 'number' },
        highPrice: { type: 'number' },
        lowPrice: { type: 'number' },
        closePrice: { type: 'number' },
        volume: { type: 'integer' },
      },
    },
  },
  examples: {
    osi: { summary: 'A contract by OSI symbol, 15-minute bars', request: { aggregationPeriod: '15m', filter: { osi: 'SPY   261218C00600000' } } },
    parts: {
      summary: 'A contract by its four parts, hourly bars on one session',
      request: {
        sessionDate: '2026-11-20',
        aggregationPeriod: '1h',
        filter: { ticker: 'AAPL', expirationDate: '2026-12-18', strikePrice: 230, contractType: 'CALL' },
      },
    },
  },
  async answer(req, ctx) {
    const bars = await readBars(ctx.redis, ctx.keyPrefix, req.query, contractOf(req.filter), ctx.onPath);
    const buckets = rollUp(
      req.period!,
      bars,
      () => ({ bar: null as Bar | null }),
      (acc, b) => {
        acc.bar = mergeBars(acc.bar, b);
      },
    );
    return {
      data: orderedMap(
        buckets.map(
          ([start, { bar }]) =>
            [bucketKey(start), { openPrice: bar!.open, highPrice: bar!.high, lowPrice: bar!.low, closePrice: bar!.close, volume: bar!.volume }] as const,
        ),
        'epochMs',
      ),
    };
  },
});
