import { FieldSet } from './fields';
import { parseFilterObject, type FilterParam, type ParsedFilter } from './filter-object';
import { invalid } from './problem';
import { fragments, type JsonSchema } from './validate';

/**
 * The required underlying of the single-ticker endpoints, parsed one way for all of them: the
 * filter object's alias rule (ticker or tickers, a scalar or a list) holds because every endpoint
 * declares the same filter and reads it through these helpers.
 */

/** The ticker filter; endpoints list it among their FilterParams (field TICKER of their FieldSet). */
export const TICKER_FILTER: FilterParam = { key: 'tickers', aliases: ['ticker'], kind: 'in', field: 'TICKER' };

/** The filter schema's ticker property. */
export const tickerSchema = (description = 'Underlying ticker (alias tickers): a symbol or a one-element list. Required.'): JsonSchema =>
  fragments.stringOrList(description);

/** The tickers of filter.ticker; a 400 when absent. */
export function requiredTickers(parsed: ParsedFilter<unknown>): string[] {
  const v = parsed.values.get(TICKER_FILTER.key) as string[] | undefined;
  if (!v) throw invalid('filter.ticker', 'is required');
  return v;
}

/** The one ticker of filter.ticker; a 400 when absent or when the list names more than one. */
export function requiredTicker(parsed: ParsedFilter<unknown>): string {
  const v = requiredTickers(parsed);
  if (v.length !== 1) throw invalid('filter.ticker', `takes exactly one ticker, got ${v.length}`);
  return v[0]!;
}

const TICKER_ONLY = new FieldSet<unknown>([{ name: 'TICKER', type: 'symbol', filterable: true, projectable: false, get: () => null }]);

/** The filter object of an endpoint whose only filter is the required ticker. */
export const tickerOnlyFilterSchema = (description?: string): JsonSchema => ({
  ...fragments.filter,
  properties: { ticker: tickerSchema(description) },
});

/** Parses a filter object that holds the required ticker and nothing else; the ticker. */
export function parseTickerOnlyFilter(raw: unknown): string {
  return requiredTicker(parseFilterObject(raw, [TICKER_FILTER], TICKER_ONLY));
}
