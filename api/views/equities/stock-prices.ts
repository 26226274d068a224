import type Redis from 'ioredis';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import { SESSION_BAR_LAST, decodeBars, decodeSessionBar, minuteEvents, priceBarsSuffix, type SessionBars } from '../../../services/views/equities/price-bars';
import { MINUTE_MS, blockNumber, blockOrigin, blockStart } from '../../../services/views/equities/price-blocks';
import { STOCK_PRICES_VIEW, pricesKeySuffix, sessionsKeySuffix } from '../../../services/views/equities/stock-prices';

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
    // The session bar's close is the session's last event (price-bars.ts).
    const head = await this.redis.getrangeBuffer(k.key(...priceBarsSuffix(date, ticker)), 0, SESSION_BAR_LAST);
    if (!head.length) return null;
    const bar = decodeSessionBar(head);
    return { sessionDate: date, time: bar.closeTime, price: bar.close };
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
    const origin = blockOrigin(sessionDate);
    const field = beforeMs === null ? '' : String(blockNumber(origin, beforeMs));
    const run = (this.redis as unknown as WithLastPrices).mdqLastPricesBuffer;
    const groups = [...byPartition];
    const replies = await Promise.all(
      groups.map(([p, list]) => {
        const k = new PartitionKeys(this.prefix, STOCK_PRICES_VIEW, this.version, p);
        const keys = list.flatMap((t) => [k.key(...priceBarsSuffix(sessionDate, t)), k.key(...pricesKeySuffix(sessionDate, t))]);
        return run.call(this.redis, keys.length, ...keys, beforeMs === null ? '' : String(beforeMs), field);
      }),
    );
    const out = new Map<string, number>();
    groups.forEach(([, list], g) =>
      list.forEach((ticker, i) => {
        const record = replies[g][2 * i];
        if (!record?.length) return;
        const bar = decodeSessionBar(record);
        if (beforeMs === null || bar.closeTime < beforeMs) {
          out.set(ticker, bar.close);
          return;
        }
        // The instant falls inside this minute's events: the last of them before it.
        const minute = bar.openTime - (bar.openTime % MINUTE_MS);
        const within = minuteEvents(bar, replies[g][2 * i + 1], blockStart(origin, Number(field)), minute, minute, beforeMs);
        if (within.length) out.set(ticker, within[within.length - 1].price);
      }),
    );
    return out;
  }
}

/**
 * Per ticker (its bar table, then its price blocks: KEYS in pairs, one partition's hash tag), the
 * bar that answers "the last price before ARGV[1]": the session bar (record 0) when ARGV[1] is
 * empty, else the last minute bar that opened before ARGV[1] (a binary search over the table's
 * 48-byte records, ascending by minute), followed by the block ARGV[2] when that minute closes at or
 * after ARGV[1] (so the answer is one of its events); false where there is none.
 */
const LAST_PRICES_LUA = `
local out = {}
local bound = tonumber(ARGV[1])
for i = 1, #KEYS, 2 do
  local rec, block = false, false
  if not bound then
    local r = redis.call('GETRANGE', KEYS[i], 0, 47)
    if #r == 48 then rec = r end
  else
    local t = redis.call('GET', KEYS[i])
    if t then
      local lo, hi = 1, #t / 48 - 1
      while lo <= hi do
        local mid = math.floor((lo + hi) / 2)
        if struct.unpack('<d', t, mid * 48 + 1) < bound then lo = mid + 1 else hi = mid - 1 end
      end
      if hi >= 1 then
        rec = string.sub(t, hi * 48 + 1, hi * 48 + 48)
        if struct.unpack('<d', rec, 33) >= bound then block = redis.call('HGET', KEYS[i + 1], ARGV[2]) end
      end
    end
  end
  out[#out + 1] = rec
  out[#out + 1] = block
end
return out
`;

interface WithLastPrices {
  mdqLastPricesBuffer(numKeys: number, ...args: string[]): Promise<(Buffer | null)[]>;
}

/** Defines the script on the client once (ioredis sends EVALSHA, EVAL after a NOSCRIPT). */
function defineLastPrices(redis: Redis): void {
  if (!(redis as unknown as Partial<WithLastPrices>).mdqLastPricesBuffer) redis.defineCommand('mdqLastPrices', { lua: LAST_PRICES_LUA });
}
