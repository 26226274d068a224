import type Redis from 'ioredis';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import { decodeBars, priceBarsSuffix, type SessionBars } from '../../../services/views/equities/price-bars';
import { STOCK_PRICES_VIEW, parsePriceMember, pricesKeySuffix, sessionsKeySuffix } from '../../../services/views/equities/stock-prices';

/**
 * Reads of the stock-price view (services/views/equities/stock-prices.ts): a ticker's price at an
 * instant, at a session's end, its latest price, a session's price bars, and the sessions held.
 */
export class StockPrices {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly version: number,
  ) {
    defineLastPrices(redis);
  }

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
   * The ticker's price bars of `sessionDate` (services/views/equities/price-bars.ts): the session
   * bar and a bar per minute with an event, one GET; null when the session has no price of it.
   */
  async bars(ticker: string, sessionDate: string): Promise<SessionBars | null> {
    const table = await this.redis.getBuffer(this.keys(ticker).key(...priceBarsSuffix(sessionDate, ticker)));
    return table ? decodeBars(table) : null;
  }

  /**
   * Per ticker, the last price of `sessionDate` strictly before `beforeMs` (the session's last
   * price when null); tickers without one are absent. One script call per partition
   * (LAST_PRICES_LUA) rather than a command per ticker: a whole-market read is hundreds of tickers,
   * and building, sending and answering a command each was most of its cost.
   */
  async at(tickers: readonly string[], sessionDate: string, beforeMs: number | null): Promise<Map<string, number>> {
    const byPartition = new Map<number, string[]>();
    for (const t of tickers) {
      const p = partitionOf(t, MARKET_PARTITIONS);
      let list = byPartition.get(p);
      if (!list) byPartition.set(p, (list = []));
      list.push(t);
    }
    const bound = beforeMs === null ? '' : `(${beforeMs}`;
    const run = (this.redis as unknown as WithLastPrices).mdqLastPrices;
    const groups = [...byPartition];
    const replies = await Promise.all(
      groups.map(([p, list]) => {
        const k = new PartitionKeys(this.prefix, STOCK_PRICES_VIEW, this.version, p);
        return run.call(this.redis, list.length, ...list.map((t) => k.key(...pricesKeySuffix(sessionDate, t))), bound);
      }),
    );
    const out = new Map<string, number>();
    groups.forEach(([, list], g) =>
      replies[g].forEach((m, i) => {
        if (m) out.set(list[i], parsePriceMember(m).price);
      }),
    );
    return out;
  }
}

/**
 * Per key (price zsets of one partition: one hash tag), its last member with a score below ARGV[1]
 * (an exclusive bound such as "(1731337200000"), or its last member when ARGV[1] is empty; nil
 * where there is none.
 */
const LAST_PRICES_LUA = `
local out = {}
for i, key in ipairs(KEYS) do
  local r
  if ARGV[1] == '' then r = redis.call('ZRANGE', key, -1, -1)
  else r = redis.call('ZRANGE', key, ARGV[1], '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, 1) end
  out[i] = r[1] or false
end
return out
`;

interface WithLastPrices {
  mdqLastPrices(numKeys: number, ...args: string[]): Promise<(string | null)[]>;
}

/** Defines the script on the client once (ioredis sends EVALSHA, EVAL after a NOSCRIPT). */
function defineLastPrices(redis: Redis): void {
  if (!(redis as unknown as Partial<WithLastPrices>).mdqLastPrices) redis.defineCommand('mdqLastPrices', { lua: LAST_PRICES_LUA });
}
