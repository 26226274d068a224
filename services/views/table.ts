import type { PartitionKeys } from './keys';
import { encodeSortKey, indexMember } from './sort-keys';
import type { WarmTier } from './warm-tier';

/**
 * The storage of a table view: what a table-shaped endpoint pages through (api/tables/). A view
 * declares its layout once (TableLayout); its projector writes rows with `rowWrites` and the
 * table engine reads them, so the two cannot disagree. Per partition (hash tag) and segment (a
 * session date, or '' for a view that is not split by session):
 *
 *   s                       zset  (lex) segments that have rows in this partition
 *   <seg>:r                 hash  rowKey -> stored row (the layout's codec)
 *   <seg>:x:<sort>          zset  every row, by one sort field (layout.sorts; the first is the default order)
 *   <seg>:<index>:<value>   zset  rows whose `index` has `value` (a ticker, a type), by the default sort
 *
 * Index members are `<sortKey>:<rowKey>` with all scores 0 (sort-keys.ts), so ZRANGE BYLEX walks
 * rows in (sort value, rowKey) order. A rowKey is unique within the view, never contains ':', and
 * is deterministic (derived from the events), so a replay writes the same members.
 */

export interface TableSort<Row> {
  /** The FieldSet name of the field (api side), e.g. TRADE_TIME. */
  field: string;
  /** Key suffix of its index, e.g. time. */
  suffix: string;
  value(row: Row): number | string | boolean | null;
}

export interface TableIndex<Row> {
  /** Key part, e.g. tk. */
  name: string;
  /** The values a row is filed under (a ticker; several for a list field). */
  values(row: Row): readonly string[];
}

export interface TableLayout<Row> {
  view: string;
  /** Split by session: segmentOf gives a row's session date. Otherwise every segment is ''. */
  segmented: boolean;
  /** The segment of a row: its session date, or '' when the view is not split by session. */
  segmentOf(row: Row): string;
  rowKeyOf(row: Row): string;
  encode(row: Row): string | Buffer;
  decode(stored: string | Buffer, rowKey: string, segment: string): Row;
  /** Indexed sort orders; the first is the default order and orders every filter index. */
  sorts: readonly TableSort<Row>[];
  indexes: readonly TableIndex<Row>[];
  /** Sessions older than the newest few are kept as compact blocks (warm-tier.ts); absent: always hot. */
  warm?: WarmTier<Row>;
}

/** Keys of one partition of a table view version. */
export class TableKeys {
  readonly segments: string;
  constructor(readonly p: PartitionKeys) {
    this.segments = p.key('s');
  }
  rows(seg: string): string {
    return seg ? this.p.key(seg, 'r') : this.p.key('r');
  }
  sorted(seg: string, suffix: string): string {
    return seg ? this.p.key(seg, 'x', suffix) : this.p.key('x', suffix);
  }
  /** A filter index key; a value of '' names an index of one set (e.g. "every unusual row"). */
  index(seg: string, name: string, value: string): string {
    const parts = value === '' ? [name] : [name, value];
    return seg ? this.p.key(seg, ...parts) : this.p.key(...parts);
  }
}

/** A Redis write: command, key, arguments (the projector runtime's RedisOp). */
export type TableWrite = [command: string, key: string, ...args: (string | Buffer)[]];

/** The writes that store a row and every index entry of it. */
export function rowWrites<Row>(layout: TableLayout<Row>, k: TableKeys, row: Row): TableWrite[] {
  const seg = layout.segmentOf(row);
  const rowKey = layout.rowKeyOf(row);
  const out: TableWrite[] = [['HSET', k.rows(seg), rowKey, layout.encode(row)]];
  for (const [key, member] of indexEntries(layout, k, row, seg, rowKey)) out.push(['ZADD', key, '0', member]);
  if (seg) out.push(['ZADD', k.segments, '0', seg]);
  return out;
}

/** The writes that remove a stored row's index entries and the row (before it is replaced). */
export function rowRemovals<Row>(layout: TableLayout<Row>, k: TableKeys, row: Row): TableWrite[] {
  const seg = layout.segmentOf(row);
  const rowKey = layout.rowKeyOf(row);
  const out: TableWrite[] = indexEntries(layout, k, row, seg, rowKey).map(([key, member]): TableWrite => ['ZREM', key, member]);
  out.push(['HDEL', k.rows(seg), rowKey]);
  return out;
}

function indexEntries<Row>(layout: TableLayout<Row>, k: TableKeys, row: Row, seg: string, rowKey: string): [string, string][] {
  const out: [string, string][] = [];
  for (const s of layout.sorts) out.push([k.sorted(seg, s.suffix), indexMember(encodeSortKey(s.value(row)), rowKey)]);
  const byDefault = out[0][1];
  for (const ix of layout.indexes) for (const v of new Set(ix.values(row))) out.push([k.index(seg, ix.name, v), byDefault]);
  return out;
}

/**
 * Every hot key holding a session's rows: the rows hash, each sort index, and each filter index a
 * row is filed in (the keys indexEntries names, without building its members).
 */
export function hotKeysOf<Row>(layout: TableLayout<Row>, k: TableKeys, seg: string, rows: Iterable<Row>): string[] {
  const set = new HotKeySet(layout, k, seg);
  set.add(rows);
  return set.keys();
}

/** hotKeysOf, collected a batch of rows at a time (the move sees a session's rows one block key at a time). */
export class HotKeySet<Row> {
  private readonly values: Set<string>[];
  private any = false;
  constructor(
    private readonly layout: TableLayout<Row>,
    private readonly k: TableKeys,
    private readonly seg: string,
  ) {
    this.values = layout.indexes.map(() => new Set<string>());
  }
  add(rows: Iterable<Row>): void {
    const indexes = this.layout.indexes;
    for (const row of rows) {
      this.any = true;
      for (let i = 0; i < indexes.length; i++) for (const v of indexes[i].values(row)) this.values[i].add(v);
    }
  }
  keys(): string[] {
    const { layout, k, seg } = this;
    const keys = new Set<string>([k.rows(seg)]);
    if (this.any) for (const s of layout.sorts) keys.add(k.sorted(seg, s.suffix));
    layout.indexes.forEach((ix, i) => {
      for (const v of this.values[i]) keys.add(k.index(seg, ix.name, v));
    });
    return [...keys];
  }
}
