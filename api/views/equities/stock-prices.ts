import type Redis from 'ioredis';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import { STOCK_PRICES_VIEW, parsePriceMember, pricesKeySuffix, sessionsKeySuffix } from '../../../services/views/equities/stock-prices';

const MINUTE_MS = 60_000;

/** A price event: its time (epoch-ms) and price. */
export interface PriceEvent {
  time: number;
  price: number;
}

/**
 * Reads of the stock-price view (services/views/equities/stock-prices.ts): a ticker's price at an
 * instant, at a session's end, its latest price, and the sessions held.
 */
export class StockPrices {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly version: number,
  ) {
    defineLastPrices(redis);
    defineLastBefore(redis);
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
   * The ticker's price events of `sessionDate` that give its minute closes: the last at or before
   * `open` (epoch-ms), the last before the end of each of `minutes` minutes from `open`, and the
   * session's last; null where there is none. One script call (LAST_BEFORE_LUA).
   */
  async minuteCloses(
    ticker: string,
    sessionDate: string,
    open: number,
    minutes: number,
  ): Promise<{ atOpen: PriceEvent | null; closes: (PriceEvent | null)[]; last: PriceEvent | null }> {
    const key = this.keys(ticker).key(...pricesKeySuffix(sessionDate, ticker));
    const run = (this.redis as unknown as WithLastBefore).mdqLastBefore;
    const got = (await run.call(this.redis, 1, key, String(open), String(MINUTE_MS), String(minutes))).map((m) => (m ? parsePriceMember(m) : null));
    return { atOpen: got[0], closes: got.slice(1, minutes + 1), last: got[minutes + 1] };
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
 * A session's minute closes in one call: for KEYS[1] (a ticker's session prices), the last member
 * at or before ARGV[1] (the open), then for each of ARGV[3] minutes the last member before the
 * minute's end (ARGV[1] + i x ARGV[2], exclusive), then the last member of all; false where there
 * is none. Each is one O(log n) step of the sorted set, instead of sending the session's
 * per-second prices; the bounds are computed here rather than sent.
 */
const LAST_BEFORE_LUA = `
local key = KEYS[1]
local open = tonumber(ARGV[1])
local step = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local function before(bound)
  local r = redis.call('ZRANGE', key, '(' .. string.format('%d', bound), '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, 1)
  return r[1] or false
end
local out = {before(open + 1)}
for i = 1, n do out[i + 1] = before(open + i * step) end
local last = redis.call('ZRANGE', key, -1, -1)
out[n + 2] = last[1] or false
return out
`;

interface WithLastBefore {
  mdqLastBefore(numKeys: number, ...args: string[]): Promise<(string | null)[]>;
}

function defineLastBefore(redis: Redis): void {
  if (!(redis as unknown as Partial<WithLastBefore>).mdqLastBefore) redis.defineCommand('mdqLastBefore', { lua: LAST_BEFORE_LUA });
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
