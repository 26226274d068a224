import type { RedisClient as Redis } from '../../../services/redis/client';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import {
  orderFlowKeys,
  premiumCents,
  statField,
  statisticsFromCounters,
  type OrderFlowRow,
  type OrderFlowStatistics,
} from '../../../services/views/order-flow';
import { scanTable } from '../../tables/engine';
import type { OrderFlowReadOptions } from './page';
import { orderFlowTableQuery, type OrderFlowQuery } from './planner';

/**
 * Exact sums per (contractType, tradeSide) of premium, rows and contracts over every matching row.
 * Whole sessions with at most a tickers filter read the projector's counters (`<D>:st`, or
 * `<D>:st:<TICKER>` in the ticker's partition); anything else scans the smallest candidate set
 * (api/tables/engine.ts scanTable). Both sum premium in integer cents, so they agree exactly.
 */
export async function readOrderFlowStatistics<Row extends OrderFlowRow>(
  redis: Redis,
  keyPrefix: string,
  q: OrderFlowQuery<Row>,
  opts: OrderFlowReadOptions = {},
): Promise<OrderFlowStatistics> {
  const h = q.hints;
  const countersApply =
    !q.window &&
    q.onlyTickersFilter === true &&
    h.osi === undefined &&
    !h.unusualOnly &&
    !h.contractTypes &&
    !h.tradeSides &&
    !h.sectors &&
    !Object.values(h.ranges ?? {}).some((r) => r && (r[0] !== null || r[1] !== null));
  const sums = new Map<string, number>();
  const add = (f: string, v: number) => sums.set(f, (sums.get(f) ?? 0) + v);
  if (opts.force ? opts.force === 'counters' : countersApply) {
    opts.onPlan?.('counters');
    const keys = Array.from({ length: MARKET_PARTITIONS }, (_, p) => orderFlowKeys(new PartitionKeys(keyPrefix, q.view, q.version, p)));
    const pipe = redis.pipeline();
    for (const d of q.sessions) {
      if (h.tickers) for (const t of new Set(h.tickers)) pipe.hgetall(keys[partitionOf(t, MARKET_PARTITIONS)].tickerStats(d, t));
      else for (const k of keys) pipe.hgetall(k.stats(d));
    }
    for (const [err, hash] of (await pipe.exec())!) {
      if (err) throw err;
      for (const [f, v] of Object.entries(hash as Record<string, string>)) add(f, Number(v));
    }
  } else {
    await scanTable(
      redis,
      keyPrefix,
      orderFlowTableQuery(q),
      (row) => {
        add(statField(row.contractType, row.tradeSideCode, 'p'), premiumCents(row.premium));
        add(statField(row.contractType, row.tradeSideCode, 'n'), 1);
        add(statField(row.contractType, row.tradeSideCode, 'v'), row.size);
      },
      opts.onPlan,
    );
  }
  return statisticsFromCounters(sums);
}
