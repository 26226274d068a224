import type Redis from 'ioredis';
import { topicFor } from '../../schemas/catalog';
import type { PartitionKeys } from '../../services/views/keys';
import { addBars, addPrice, encodeBars, priceBarsSuffix, type SessionBars } from '../../services/views/equities/price-bars';
import { STOCK_PRICES_FORMAT, STOCK_PRICES_VIEW, priceMember, pricesKeySuffix, sessionsKeySuffix } from '../../services/views/equities/stock-prices';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';

interface UnderlyingPriceEvent {
  ticker: string;
  sessionDate: string;
  time: number | bigint;
  price: number;
}

/**
 * Underlying prices by ticker and session (services/views/equities/stock-prices.ts), and their
 * session and minute bars (price-bars.ts): a chunk's events are put into bars in memory first;
 * each bar table they touch is then read once, merged and written back whole (the projection is
 * its partition's only writer).
 */
export const stockPricesProjection: Projection = {
  view: STOCK_PRICES_VIEW,
  format: STOCK_PRICES_FORMAT,
  topics: [topicFor('underlying-price')!],

  async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
    const ops: RedisOp[] = [];
    const sessions = new Set<string>();
    const bars = new Map<string, SessionBars>();
    const barsOf = new Map<string, SessionBars>();
    for (const e of events) {
      if (e.value === null) continue;
      const v = e.value as unknown as UnderlyingPriceEvent;
      const time = Number(v.time);
      const zkey = keys.key(...pricesKeySuffix(v.sessionDate, v.ticker));
      ops.push(['ZADD', zkey, String(time), priceMember(time, v.price)]);
      // By the zset's key: building the bar table's key per event was a tenth of the projection.
      let b = barsOf.get(zkey);
      if (!b) {
        barsOf.set(zkey, (b = { session: null, minutes: new Map() }));
        bars.set(keys.key(...priceBarsSuffix(v.sessionDate, v.ticker)), b);
      }
      addPrice(b, time, v.price);
      const s = `${v.ticker}\n${v.sessionDate}`;
      if (!sessions.has(s)) {
        sessions.add(s);
        ops.push(['ZADD', keys.key(...sessionsKeySuffix(v.ticker)), '0', v.sessionDate]);
        ops.push(['ZADD', keys.key('s'), '0', v.sessionDate]);
      }
    }
    if (!bars.size) return ops;
    const barKeys = [...bars.keys()];
    const stored = await redis.mgetBuffer(...barKeys);
    barKeys.forEach((key, i) => {
      const b = bars.get(key)!;
      const was = stored[i];
      if (was) addBars(b, was);
      ops.push(['SET', key, encodeBars(b)]);
    });
    return ops;
  },
};
