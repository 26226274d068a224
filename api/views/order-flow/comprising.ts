import type { RedisClient as Redis } from '../../../services/redis/client';
import { PartitionKeys } from '../../../services/views/keys';
import {
  ORDER_FLOW_CONSOLIDATED_VIEW,
  decodeComprising,
  orderFlowKeys,
  partitionOfRowKey,
  type ComprisingTrade,
  type OrderFlowRow,
} from '../../../services/views/order-flow';
import { readWarmCompanion } from '../../tables/warm-reader';
import { layoutOf } from './planner';

/**
 * Comprising trades of consolidated rows, by rowKey (rows without any are absent): from the
 * session's `<D>:ct` hash, or for a row of a warm session from its block's packed companion.
 */
export async function readComprisingTrades(redis: Redis, keyPrefix: string, version: number, rows: OrderFlowRow[]): Promise<Map<string, ComprisingTrade[]>> {
  const out = new Map<string, ComprisingTrade[]>();
  if (!rows.length) return out;
  const groups = new Map<string, { p: number; d: string; key: string; rowKeys: string[]; rows: OrderFlowRow[] }>();
  for (const r of rows) {
    const p = partitionOfRowKey(r.rowKey);
    const id = `${p}/${r.sessionDate}`;
    let g = groups.get(id);
    if (!g)
      groups.set(
        id,
        (g = {
          p,
          d: r.sessionDate,
          key: orderFlowKeys(new PartitionKeys(keyPrefix, ORDER_FLOW_CONSOLIDATED_VIEW, version, p)).comprising(r.sessionDate),
          rowKeys: [],
          rows: [],
        }),
      );
    g.rowKeys.push(r.rowKey);
    g.rows.push(r);
  }
  const pipe = redis.pipeline();
  for (const g of groups.values()) pipe.hmgetBuffer(g.key, ...g.rowKeys);
  const res = (await pipe.exec())!;
  let i = 0;
  for (const g of groups.values()) {
    const [err, vals] = res[i++] as [Error | null, (Buffer | null)[]];
    if (err) throw err;
    g.rowKeys.forEach((rk, j) => {
      if (vals[j] !== null) out.set(rk, decodeComprising(vals[j]!));
    });
    // Every consolidated row has comprising trades: a row without is of a warm session.
    const missing = g.rows.filter((r) => !out.has(r.rowKey));
    if (missing.length) {
      const keys = new PartitionKeys(keyPrefix, ORDER_FLOW_CONSOLIDATED_VIEW, version, g.p);
      for (const [rk, v] of await readWarmCompanion(redis, layoutOf(ORDER_FLOW_CONSOLIDATED_VIEW), keys, g.d, 'ct', missing)) out.set(rk, decodeComprising(v));
    }
  }
  return out;
}
