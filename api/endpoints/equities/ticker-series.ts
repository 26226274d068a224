import { sessionDateOf } from '../../../services/domain/calendar';
import { aggregationPeriodSchema, parseAggregationPeriod, type Period } from '../../request/aggregation/period';
import { parseTickerOnlyFilter, tickerOnlyFilterSchema } from '../../request/required-ticker';
import { parseTimeSelection, selectionSpanMs, selectorSchemas } from '../../request/time-selectors';
import type { JsonSchema } from '../../request/validate';
import type { CellRead } from '../../views/equities/minute-cells';

/**
 * The request of the bucketed single-ticker equities endpoints (dark-flow, stock-price-over-time):
 * sessionDate, timeRange or neither; aggregationPeriod as every aggregation endpoint (the kit's
 * compatibility table); filter.ticker required (its four spellings), nothing else in the filter,
 * no filterExpression. Resolved into the minute-cell read (api/views/equities/minute-cells.ts).
 */

const SELECTORS = ['sessionDate', 'timeRange'] as const;

export function tickerSeriesRequestSchema(defaultNote: string): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['filter'],
    properties: {
      filter: tickerOnlyFilterSchema('The ticker (alias tickers; a symbol or a one-element list). Required; no other filter is accepted.'),
      ...selectorSchemas([...SELECTORS], defaultNote),
      aggregationPeriod: aggregationPeriodSchema,
    },
  };
}

export interface TickerSeriesRequest {
  read: CellRead;
  period: Period;
}

/**
 * Parses the body; `latest` gives the session a request without a selector reads (null: none
 * held), `held` the ticker's sessions with data from `first` to `last` (inclusive).
 */
export async function parseTickerSeries(
  body: Record<string, unknown>,
  latest: () => Promise<string | null>,
  held: (ticker: string, first: string, last: string) => Promise<string[]>,
): Promise<TickerSeriesRequest> {
  const ticker = parseTickerOnlyFilter(body.filter);
  const selection = parseTimeSelection(body, SELECTORS);
  const period = parseAggregationPeriod(body.aggregationPeriod, selectionSpanMs(selection));
  let sessions: string[] = [];
  if (selection.kind === 'session') sessions = [selection.sessionDate];
  else if (selection.kind === 'window') sessions = await held(ticker, sessionDateOf(selection.window.startMs), sessionDateOf(selection.window.endMs - 1));
  else {
    const d = await latest();
    if (d !== null) sessions = [d];
  }
  return {
    read: { ticker, sessions, window: selection.kind === 'window' ? selection.window : null, sessionGrain: period.unit !== 'clock' },
    period,
  };
}
