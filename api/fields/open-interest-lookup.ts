import { FieldSet } from '../request/fields';
import type { FilterParam } from '../request/filter-object';
import { TICKER_FILTER } from '../request/required-ticker';

/**
 * The filter object of the open-interest aggregations (open-interest-over-time, max-pain): one
 * ticker, one expiration, one strike. Parsed by the shared filter-object parser, so keys are
 * normalized and singular/plural spellings are aliases as everywhere else.
 */

export interface OiLookup {
  ticker: string;
  expirationDate: string;
  strikePrice: number;
}

export const OI_LOOKUP_FIELDS = new FieldSet<OiLookup>([
  { name: 'TICKER', aliases: ['TICKERS'], type: 'symbol', filterable: true, projectable: false, get: (r) => r.ticker },
  { name: 'EXPIRATION_DATE', aliases: ['EXPIRATION_DATES'], type: 'date', filterable: true, projectable: false, get: (r) => r.expirationDate },
  { name: 'STRIKE_PRICE', aliases: ['STRIKE_PRICES'], type: 'number', filterable: true, projectable: false, get: (r) => r.strikePrice },
]);

export const OI_LOOKUP_FILTERS: Record<'ticker' | 'expirationDate' | 'strikePrice', FilterParam> = {
  ticker: TICKER_FILTER,
  expirationDate: { key: 'expirationDate', aliases: ['expirationDates'], kind: 'eq', field: 'EXPIRATION_DATE' },
  strikePrice: { key: 'strikePrice', aliases: ['strikePrices'], kind: 'eq', field: 'STRIKE_PRICE' },
};
