import { topicFor } from '../../schemas/catalog';
import type { PartitionKeys } from '../../services/views/keys';
import { STOCK_PRICES_FORMAT, STOCK_PRICES_VIEW, priceMember, pricesKeySuffix, sessionsKeySuffix } from '../../services/views/equities/stock-prices';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';

interface UnderlyingPriceEvent {
  ticker: string;
  sessionDate: string;
  time: number | bigint;
  price: number;
}

/** Underlying prices by ticker and session (services/views/equities/stock-prices.ts). */
export const stockPricesProjection: Projection = {
  view: STOCK_PRICES_VIEW,
  format: STOCK_PRICES_FORMAT,
  topics: [topicFor('underlying-price')!],

  async project(events: SourceEvent[], keys: PartitionKeys): Promise<RedisOp[]> {
    const ops: RedisOp[] = [];
    const sessions = new Set<string>();
    for (const e of events) {
      if (e.value === null) continue;
      const v = e.value as unknown as UnderlyingPriceEvent;
      const time = Number(v.time);
      ops.push(['ZADD', keys.key(...pricesKeySuffix(v.sessionDate, v.ticker)), String(time), priceMember(time, v.price)]);
      const s = `${v.ticker}\n${v.sessionDate}`;
      if (!sessions.has(s)) {
        sessions.add(s);
        ops.push(['ZADD', keys.key(...sessionsKeySuffix(v.ticker)), '0', v.sessionDate]);
        ops.push(['ZADD', keys.key('s'), '0', v.sessionDate]);
      }
    }
    return ops;
  },
};
