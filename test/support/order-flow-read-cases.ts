import { ORDER_FLOW_PRINTS_VIEW, type OrderFlowRow } from '../../services/views/order-flow';
import type { OrderFlowHints, OrderFlowPageQuery } from '../../api/views/order-flow';

/**
 * The order-flow reads the tier benchmarks time (warm-tier.ts, warm-tier-full.ts), as the API's
 * view reader gets them: pages of one session, and statistics over several.
 */

function query(
  sessions: string[],
  hints: OrderFlowHints,
  predicate: (r: OrderFlowRow) => boolean,
  field: 'TRADE_TIME' | 'PREMIUM',
): OrderFlowPageQuery<OrderFlowRow> {
  return {
    view: ORDER_FLOW_PRINTS_VIEW,
    version: 1,
    sessions,
    window: null,
    predicate,
    hints,
    sort: { field, descending: true, value: (r) => (field === 'PREMIUM' ? r.premium : r.tradeTime) },
    after: null,
    size: 50,
  };
}

/** First pages of 50 rows of one session: one ticker's tape, a selective filter, every row. */
export function orderFlowPageCases(session: string, ticker: string): Record<string, OrderFlowPageQuery<OrderFlowRow>> {
  return {
    'one ticker, newest 50': query([session], { tickers: [ticker] }, (r) => r.ticker === ticker, 'TRADE_TIME'),
    'premium >= $1M by premium, 50': query([session], { ranges: { PREMIUM: [1_000_000, null] } }, (r) => r.premium >= 1_000_000, 'PREMIUM'),
    'every row, newest 50': query([session], {}, () => true, 'TRADE_TIME'),
  };
}

/** An aggregation over sessions: statistics of puts of $100k premium or more (a scan). */
export function orderFlowStatisticsCase(sessions: string[]): OrderFlowPageQuery<OrderFlowRow> {
  return query(
    sessions,
    { contractTypes: ['PUT'], ranges: { PREMIUM: [100_000, null] } },
    (r) => r.contractType === 'PUT' && r.premium >= 100_000,
    'TRADE_TIME',
  );
}
