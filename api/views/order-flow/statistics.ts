import type { RedisClient as Redis } from '../../../services/redis/client';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import {
  addComboCounters,
  comboFilterOf,
  orderFlowKeys,
  premiumCents,
  STAT_FIELDS,
  statFieldPosition,
  statisticsFromCounters,
  type ComboFilter,
  type OrderFlowKeys,
  type OrderFlowRow,
  type OrderFlowStatistics,
} from '../../../services/views/order-flow';
import { scanTable } from '../../tables/engine';
import type { OrderFlowReadOptions } from './page';
import { orderFlowTableQuery, type OrderFlowQuery } from './planner';

/**
 * Exact sums per (contractType, tradeSide) of premium, rows and contracts over every matching row.
 * Whole sessions filtered at most by tickers, contract types, trade sides, sectors and a premium
 * floor at a tier read the projector's counters: `<D>:st` per partition when nothing but the
 * sessions is asked, else the combination hashes (`<D>:stt` without sectors, `<D>:sc` with them,
 * or `<D>:sc:<TICKER>` in each ticker's partition), which cost the same for a warm session as for a hot one. Anything else scans the
 * smallest candidate set (api/tables/engine.ts scanTable). Both sum premium in integer cents, so
 * they agree exactly.
 */
export async function readOrderFlowStatistics<Row extends OrderFlowRow>(
  redis: Redis,
  keyPrefix: string,
  q: OrderFlowQuery<Row>,
  opts: OrderFlowReadOptions = {},
): Promise<OrderFlowStatistics> {
  const h = q.hints;
  const combos = countersFilterOf(q);
  // Premium cents, rows and contracts at STAT_FIELDS positions.
  const sums = new Array<number>(STAT_FIELDS.length).fill(0);
  if (opts.force ? opts.force === 'counters' : combos !== null) {
    if (!combos) throw new Error('these statistics cannot come from counters');
    opts.onPlan?.('counters');
    const keys = Array.from({ length: MARKET_PARTITIONS }, (_, p) => orderFlowKeys(new PartitionKeys(keyPrefix, q.view, q.version, p)));
    const pipe = redis.pipeline();
    const whole = !h.tickers && isEveryCombination(combos);
    // The smallest hash that answers: every row's (30 fields), by tier, type and side (no sector
    // asked), or by combination.
    const partitionHash = (k: OrderFlowKeys, d: string) => (whole ? k.stats(d) : combos.sectors ? k.comboStats(d) : k.tierStats(d));
    // HGETALL as a flat list (`call`): ioredis would build an object of each hash.
    for (const d of q.sessions) {
      if (h.tickers) for (const t of new Set(h.tickers)) pipe.call('HGETALL', keys[partitionOf(t, MARKET_PARTITIONS)].tickerComboStats(d, t));
      else for (const k of keys) pipe.call('HGETALL', partitionHash(k, d));
    }
    for (const [err, reply] of (await pipe.exec())!) {
      if (err) throw err;
      const flat = reply as string[];
      if (!whole) addComboCounters(flat, combos, sums);
      else
        for (let i = 0; i < flat.length; i += 2) {
          const at = STAT_FIELD_AT.get(flat[i]);
          if (at !== undefined) sums[at] += Number(flat[i + 1]);
        }
    }
  } else {
    await scanTable(
      redis,
      keyPrefix,
      orderFlowTableQuery(q),
      (row) => {
        const at = statFieldPosition(row.contractType, row.tradeSideCode);
        if (at < 0) return; // a type or side outside the lists is never counted
        sums[at] += premiumCents(row.premium);
        sums[at + 1] += 1;
        sums[at + 2] += row.size;
      },
      opts.onPlan,
    );
  }
  return statisticsFromCounters(new Map(STAT_FIELDS.map((f, i) => [f, sums[i]])));
}

/** Each STAT_FIELDS field's position. */
const STAT_FIELD_AT = new Map(STAT_FIELDS.map((f, i) => [f, i]));

/**
 * The combinations to sum when the counters answer the query exactly: whole sessions, and a
 * filter (q.countersFilter) of at most tickers and the combination's fields (comboFilterOf).
 */
function countersFilterOf<Row extends OrderFlowRow>(q: OrderFlowQuery<Row>): ComboFilter | null {
  const h = q.hints;
  if (q.window || q.countersFilter !== true || h.osi !== undefined || h.unusualOnly) return null;
  const ranges = Object.entries(h.ranges ?? {}).filter(([, r]) => r && (r[0] !== null || r[1] !== null));
  if (ranges.some(([field]) => field !== 'PREMIUM')) return null;
  return comboFilterOf({ contractTypes: h.contractTypes, tradeSides: h.tradeSides, sectors: h.sectors, premium: h.ranges?.PREMIUM });
}

function isEveryCombination(f: ComboFilter): boolean {
  return f.tierFrom === 0 && !f.contractTypes && !f.tradeSides && !f.sectors;
}
