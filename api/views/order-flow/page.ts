import type { RedisClient as Redis } from '../../../services/redis/client';
import { SORT_INDEXES, type OrderFlowRow } from '../../../services/views/order-flow';
import { readTablePage, type TableReadOptions } from '../../tables/engine';
import { orderFlowTableQuery, type OrderFlowQuery } from './planner';

export { CANDIDATE_THRESHOLD } from '../../tables/engine';

export interface OrderFlowSort<Row> {
  /** Canonical field name (FieldSet name), e.g. TRADE_TIME, PREMIUM, IMPLIED_VOLATILITY. */
  field: string;
  descending: boolean;
  /** Reads the sort value of a row (used for fields without an index, and to build cursors). */
  value(row: Row): number | string | boolean | null;
}

export interface OrderFlowPageQuery<Row> extends OrderFlowQuery<Row> {
  sort: OrderFlowSort<Row>;
  /** Cursor of the previous page (decoded), or null for the first page. */
  after: { sortKey: string; rowKey: string } | null;
  size: number;
}

export interface OrderFlowPage<Row> {
  rows: Row[];
  next: { sortKey: string; rowKey: string } | null;
}

/** Knobs for tests and diagnostics; endpoints pass none. */
export interface OrderFlowReadOptions extends Omit<TableReadOptions, 'force'> {
  /** Pages: 'index' or 'candidates' (TableReadOptions.force). Statistics: 'counters' or 'scan'. */
  force?: 'index' | 'candidates' | 'counters' | 'scan';
}

/** One page of an order-flow view in (sort value, rowKey) order after the cursor (api/tables/engine.ts plans A, B, C). */
export async function readOrderFlowPage<Row extends OrderFlowRow>(
  redis: Redis,
  keyPrefix: string,
  q: OrderFlowPageQuery<Row>,
  opts: OrderFlowReadOptions = {},
): Promise<OrderFlowPage<Row>> {
  const suffix = q.sort.field in SORT_INDEXES ? SORT_INDEXES[q.sort.field as keyof typeof SORT_INDEXES].suffix : null;
  const force = opts.force === 'index' || opts.force === 'candidates' ? opts.force : undefined;
  return readTablePage(
    redis,
    keyPrefix,
    { ...orderFlowTableQuery(q), sort: { suffix, descending: q.sort.descending, value: q.sort.value }, after: q.after, size: q.size },
    { ...opts, force },
  );
}
