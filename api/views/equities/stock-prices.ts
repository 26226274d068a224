import type Redis from 'ioredis';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import { STOCK_PRICES_VIEW, parsePriceMember, pricesKeySuffix, sessionsKeySuffix } from '../../../services/views/equities/stock-prices';

/**
 * Reads of the stock-price view (services/views/equities/stock-prices.ts): a ticker's price at an
 * instant, at a session's end, its latest price, and the sessions held.
 */
export class StockPrices {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly version: number,
  ) {}

  private keys(ticker: string): PartitionKeys {
    return new PartitionKeys(this.prefix, STOCK_PRICES_VIEW, this.version, partitionOf(ticker, MARKET_PARTITIONS));
  }

  /** Session dates (ascending) holding a price of any ticker. */
  async sessions(): Promise<string[]> {
    const pipe = this.redis.pipeline();
    for (let p = 0; p < MARKET_PARTITIONS; p++) pipe.zrange(new PartitionKeys(this.prefix, STOCK_PRICES_VIEW, this.version, p).key('s'), 0, -1);
    const all = new Set<string>();
    for (const [err, dates] of (await pipe.exec())!) {
      if (err) throw err;
      for (const d of dates as string[]) all.add(d);
    }
    return [...all].sort();
  }

  /** Session dates of the ticker in [start, end] (inclusive), ascending. */
  async tickerSessions(ticker: string, start: string, end: string): Promise<string[]> {
    return this.redis.zrange(this.keys(ticker).key(...sessionsKeySuffix(ticker)), `[${start}`, `[${end}`, 'BYLEX');
  }

  /** The latest price the view holds for the ticker (its newest session's last event), or null. */
  async latest(ticker: string): Promise<{ sessionDate: string; time: number; price: number } | null> {
    const k = this.keys(ticker);
    const [date] = await this.redis.zrange(k.key(...sessionsKeySuffix(ticker)), '+', '-', 'BYLEX', 'REV', 'LIMIT', 0, 1);
    if (date === undefined) return null;
    const [member] = await this.redis.zrange(k.key(...pricesKeySuffix(date, ticker)), -1, -1);
    return member === undefined ? null : { sessionDate: date, ...parsePriceMember(member) };
  }

  /**
   * Per ticker, the last price of `sessionDate` strictly before `beforeMs` (the session's last
   * price when null); tickers without one are absent. One pipeline.
   */
  async at(tickers: readonly string[], sessionDate: string, beforeMs: number | null): Promise<Map<string, number>> {
    const pipe = this.redis.pipeline();
    for (const t of tickers) {
      const key = this.keys(t).key(...pricesKeySuffix(sessionDate, t));
      if (beforeMs === null) pipe.zrange(key, -1, -1);
      else pipe.zrange(key, `(${beforeMs}`, '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, 1);
    }
    const res = (await pipe.exec())!;
    const out = new Map<string, number>();
    res.forEach(([err, members], i) => {
      if (err) throw err;
      const m = (members as string[])[0];
      if (m !== undefined) out.set(tickers[i], parsePriceMember(m).price);
    });
    return out;
  }
}
