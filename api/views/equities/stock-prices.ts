import type { RedisClient as Redis } from '../../../services/redis/client';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { sessionBounds } from '../../../services/domain/calendar';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import { SESSION_BAR_LAST, decodeBars, decodeSessionBar, priceBarsSuffix, type SessionBars } from '../../../services/views/equities/price-bars';
import { MINUTE_MS, blockNumber, blockOrigin, blockStart, lastBefore } from '../../../services/views/equities/price-blocks';
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
    // Where the minute before the bound is when every minute from the regular open has an event.
    const open = sessionBounds(sessionDate)?.open;
    const guess = beforeMs === null || open === undefined ? 1 : Math.max(1, Math.floor((beforeMs - 1) / MINUTE_MS) - Math.floor(open / MINUTE_MS) + 1);
    const run = (this.redis as unknown as WithLastPrices).mdqLastPricesBuffer;
    const groups = [...byPartition];
    const replies = await Promise.all(
      groups.map(([p, list]) => {
        const k = new PartitionKeys(this.prefix, STOCK_PRICES_VIEW, this.version, p);
        const keys = list.flatMap((t) => [k.key(...priceBarsSuffix(sessionDate, t)), k.key(...pricesKeySuffix(sessionDate, t))]);
        return run.call(this.redis, keys.length, ...keys, beforeMs === null ? '' : String(beforeMs), field, String(guess));
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
        // The instant falls inside this minute's events (so the block holds the minute): the last
        // of them before it, from the block, or the bar's open when the bar holds the minute.
        const block = replies[g][2 * i + 1];
        const price = block ? lastBefore(blockStart(origin, Number(field)), block, beforeMs) : bar.open;
        if (price !== undefined) out.set(ticker, price);
      }),
    );
    return out;
  }
}

/**
 * Per ticker (its bar table, then its price blocks: KEYS in pairs, one partition's hash tag), the
 * bar that answers "the last price before ARGV[1]": the session bar (record 0) when ARGV[1] is
 * empty or the session closed before it; else the last minute bar that opened before ARGV[1],
 * followed by the block ARGV[2] when that minute closes at or after ARGV[1] (the answer is then one
 * of its events); false where there is none.
 *
 * The minute records (48 bytes, ascending by minute, at most one per minute from the session's
 * first to its last) are first read at ARGV[3], where the minute before ARGV[1] is when every
 * minute from the regular open has an event (then at the record before it): that record and the
 * next one's opening time in one GETRANGE tell whether it is the answer (the last record's close
 * is the session's), as for a feed's session. Otherwise the session bar, then a bisection reading
 * 8 bytes a probe (past the table's end reads nothing, which counts as later). Copying whole
 * tables into the script, or bisecting from the start, made a whole-market read several times
 * slower than the old zset's one ZRANGE per ticker.
 */
const LAST_PRICES_LUA = `
local out = {}
local bound = tonumber(ARGV[1])
local guess = tonumber(ARGV[3])
local function opensBefore(s, at) return #s >= at + 7 and struct.unpack('<d', s, at) < bound end
for i = 1, #KEYS, 2 do
  local key, rec, block = KEYS[i], false, false
  if not bound then
    local head = redis.call('GETRANGE', key, 0, 47)
    if #head == 48 then rec = head end
  else
    local g = guess
    local pair = redis.call('GETRANGE', key, g * 48, g * 48 + 55)
    if g > 1 and #pair >= 48 and not opensBefore(pair, 1) then
      g = g - 1
      pair = redis.call('GETRANGE', key, g * 48, g * 48 + 55)
    end
    if opensBefore(pair, 1) and not opensBefore(pair, 49) then
      rec = string.sub(pair, 1, 48)
    else
      local head = redis.call('GETRANGE', key, 0, 47)
      if #head == 48 then
        local first = struct.unpack('<d', head, 1)
        local close = struct.unpack('<d', head, 33)
        if close < bound then rec = head
        elseif first < bound then
          local lo, hi = 1, math.floor(close / 60000) - math.floor(first / 60000) + 1
          while lo <= hi do
            local mid = math.floor((lo + hi) / 2)
            if opensBefore(redis.call('GETRANGE', key, mid * 48, mid * 48 + 7), 1) then lo = mid + 1 else hi = mid - 1 end
          end
          rec = redis.call('GETRANGE', key, hi * 48, hi * 48 + 47)
        end
      end
    end
    if rec and struct.unpack('<d', rec, 33) >= bound then block = redis.call('HGET', KEYS[i + 1], ARGV[2]) end
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
