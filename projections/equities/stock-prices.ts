import type { RedisClient as Redis } from '../../services/redis/client';
import { topicFor } from '../../schemas/catalog';
import type { PartitionKeys } from '../../services/views/keys';
import { addBars, addPrice, barEvents, decodeBars, encodeBars, priceBarsSuffix, type SessionBars } from '../../services/views/equities/price-bars';
import {
  BLOCK_MS,
  blockNumber,
  blockOrigin,
  blockStart,
  canonical,
  decodeBlock,
  encodeBlock,
  needsBlock,
  type PricePoint,
} from '../../services/views/equities/price-blocks';
import { STOCK_PRICES_FORMAT, STOCK_PRICES_VIEW, pricesKeySuffix, sessionsKeySuffix } from '../../services/views/equities/stock-prices';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';

interface UnderlyingPriceEvent {
  ticker: string;
  sessionDate: string;
  time: number | bigint;
  price: number;
}

/** What a chunk brings to one ticker's session. */
interface SessionChange {
  barsKey: string;
  blocksKey: string;
  origin: number;
  bars: SessionBars;
  /** The chunk's points by block number. */
  blocks: Map<number, PricePoint[]>;
}

/**
 * Underlying prices by ticker and session (services/views/equities/stock-prices.ts): their price
 * blocks (price-blocks.ts) and their session and minute bars (price-bars.ts). A chunk's events are
 * grouped in memory first; each bar table and block they touch is then read once (one round trip),
 * merged with what is stored and written back whole (the projection is its partition's only
 * writer, and the runtime's compare-and-apply makes the read and the write one step).
 */
export const stockPricesProjection: Projection = {
  view: STOCK_PRICES_VIEW,
  format: STOCK_PRICES_FORMAT,
  topics: [topicFor('underlying-price')!],

  async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
    const ops: RedisOp[] = [];
    // By ticker, then session: no key or string is built per event.
    const byTicker = new Map<string, Map<string, SessionChange>>();
    const changes: SessionChange[] = [];
    for (const e of events) {
      if (e.value === null) continue;
      const v = e.value as unknown as UnderlyingPriceEvent;
      const time = Number(v.time);
      let sessions = byTicker.get(v.ticker);
      if (!sessions) byTicker.set(v.ticker, (sessions = new Map()));
      let c = sessions.get(v.sessionDate);
      if (!c) {
        c = {
          barsKey: keys.key(...priceBarsSuffix(v.sessionDate, v.ticker)),
          blocksKey: keys.key(...pricesKeySuffix(v.sessionDate, v.ticker)),
          origin: blockOrigin(v.sessionDate),
          bars: { session: null, minutes: new Map() },
          blocks: new Map(),
        };
        sessions.set(v.sessionDate, c);
        changes.push(c);
        ops.push(['ZADD', keys.key(...sessionsKeySuffix(v.ticker)), '0', v.sessionDate]);
        ops.push(['ZADD', keys.key('s'), '0', v.sessionDate]);
      }
      addPrice(c.bars, time, v.price);
      const n = blockNumber(c.origin, time);
      const block = c.blocks.get(n);
      if (block) block.push({ time, price: v.price });
      else c.blocks.set(n, [{ time, price: v.price }]);
    }
    if (!changes.length) return ops;

    const pipe = redis.pipeline();
    for (const c of changes) {
      pipe.getBuffer(c.barsKey);
      pipe.hmgetBuffer(c.blocksKey, ...[...c.blocks.keys()].map(String));
    }
    const stored = (await pipe.exec())!;
    for (const [err] of stored) if (err) throw err;
    changes.forEach((c, i) => {
      const table = stored[2 * i][1] as Buffer | null;
      const was = stored[2 * i + 1][1] as (Buffer | null)[];
      const storedBars = table ? decodeBars(table) : null;
      const writes: (string | Buffer)[] = [];
      let j = 0;
      for (const [n, added] of c.blocks) {
        const block = mergeBlock(blockStart(c.origin, n), was[j++], storedBars, added);
        if (block) writes.push(String(n), block);
      }
      if (writes.length) ops.push(['HSET', c.blocksKey, ...writes]);
      if (storedBars) addBars(c.bars, storedBars);
      ops.push(['SET', c.barsKey, encodeBars(c.bars)]);
    });
    return ops;
  },
};

/**
 * The block starting at `start` once `added` joins what is stored: its stored block, or, when that
 * is not stored, the events its minutes' stored bars hold. Null when the block needs no storing
 * (price-blocks.ts); a pure function of the stored events and `added`, so a chunk applied again
 * writes the same bytes.
 */
export function mergeBlock(start: number, stored: Buffer | null, storedBars: SessionBars | null, added: readonly PricePoint[]): Buffer | null {
  let before: PricePoint[] = [];
  if (stored) before = decodeBlock(start, stored);
  else if (storedBars) for (const [m, b] of storedBars.minutes) if (m >= start && m < start + BLOCK_MS) before.push(...barEvents(b));
  const points = canonical(before.length ? before.concat(added) : added);
  return needsBlock(points) ? encodeBlock(start, points) : null;
}
