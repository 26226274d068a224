import type Redis from 'ioredis';
import { PartitionKeys } from '../../../services/views/keys';
import { ORDER_FLOW_CONSOLIDATED_VIEW, decodeComprising, orderFlowKeys, partitionOfRowKey, type ComprisingTrade } from '../../../services/views/order-flow';

/** Comprising trades of consolidated rows, by rowKey (rows without any are absent). */
export async function readComprisingTrades(
  redis: Redis,
  keyPrefix: string,
  version: number,
  rows: { rowKey: string; sessionDate: string }[],
): Promise<Map<string, ComprisingTrade[]>> {
  const out = new Map<string, ComprisingTrade[]>();
  if (!rows.length) return out;
  const groups = new Map<string, { key: string; rowKeys: string[] }>();
  for (const r of rows) {
    const p = partitionOfRowKey(r.rowKey);
    const id = `${p}/${r.sessionDate}`;
    let g = groups.get(id);
    if (!g)
      groups.set(
        id,
        (g = { key: orderFlowKeys(new PartitionKeys(keyPrefix, ORDER_FLOW_CONSOLIDATED_VIEW, version, p)).comprising(r.sessionDate), rowKeys: [] }),
      );
    g.rowKeys.push(r.rowKey);
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
  }
  return out;
}
