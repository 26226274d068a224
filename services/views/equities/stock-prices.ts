/**
 * The stock-price view: every underlying price event (official open, per-second ticks, official
 * close) per ticker and session, for the endpoints that need a price at an instant, a session's
 * close or the latest price (market-map, dark-pool-levels). Per partition (hash tag):
 *
 *   <date>:px:<TICKER>   zset  score = time (epoch-ms), member = `<time>:<price>`
 *   d:<TICKER>           zset  (lex) session dates holding prices of the ticker
 *   s                    zset  (lex) session dates holding prices of any ticker of the partition
 *   <date>:pb:<TICKER>   string  the session's and each minute's open/high/low/close (price-bars.ts)
 *
 * One member per (ticker, time): the feed has one price per ticker per instant, and a redelivered
 * event rewrites the same member, so a replay leaves the view byte-identical.
 */

export const STOCK_PRICES_VIEW = 'stock-prices';
export const STOCK_PRICES_FORMAT = 2;

export function pricesKeySuffix(sessionDate: string, ticker: string): string[] {
  return [sessionDate, 'px', ticker];
}

export function sessionsKeySuffix(ticker: string): string[] {
  return ['d', ticker];
}

export function priceMember(time: number, price: number): string {
  return `${time}:${price}`;
}

export function parsePriceMember(member: string): { time: number; price: number } {
  const i = member.indexOf(':');
  return { time: Number(member.slice(0, i)), price: Number(member.slice(i + 1)) };
}
