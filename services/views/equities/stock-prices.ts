/**
 * The stock-price view: every underlying price event (official open, per-second ticks, official
 * close) per ticker and session, for the endpoints that need a price at an instant, a session's
 * close or the latest price (market-map, dark-pool-levels), and its bars for the bucketed ones.
 * Per partition (hash tag):
 *
 *   <date>:px:<TICKER>   hash    the session's events, packed per block of minutes (price-blocks.ts)
 *   <date>:pb:<TICKER>   string  the session's and each minute's open/high/low/close (price-bars.ts)
 *   d:<TICKER>           zset    (lex) session dates holding prices of the ticker
 *   s                    zset    (lex) session dates holding prices of any ticker of the partition
 *
 * Both per-session keys are functions of the set of (time, price) events: a replay leaves the view
 * byte-identical however it is chunked, and a redelivered event changes nothing. A price at an
 * instant is read from the bars (the last minute that opened before it) and, only when the instant
 * falls between that minute's open and close, from the minute's block.
 */

export const STOCK_PRICES_VIEW = 'stock-prices';
export const STOCK_PRICES_FORMAT = 3;

export function pricesKeySuffix(sessionDate: string, ticker: string): string[] {
  return [sessionDate, 'px', ticker];
}

export function sessionsKeySuffix(ticker: string): string[] {
  return ['d', ticker];
}
