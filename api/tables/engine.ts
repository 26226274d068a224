import type { RedisClient as Redis } from '../../services/redis/client';
import { PartitionKeys } from '../../services/views/keys';
import { compareKeys, encodeSortKey, indexMember, parseIndexMember } from '../../services/views/sort-keys';
import { TableKeys, type TableLayout } from '../../services/views/table';
import { WarmKeys, warmField } from '../../services/views/warm-tier';
import type { TimeWindow } from '../request/time';
import { FirstRows } from './first-rows';
import { scanWarm, withWarmRows } from './warm-reader';
import { LexMerge, emptyLexRange, tighterMax, tighterMin, type LexHit, type LexSource } from './lex-merge';

/**
 * The table engine's read side: one page of a table view (services/views/table.ts) in (sort value,
 * rowKey) order after a cursor, and a scan of every matching row. A query names candidate
 * families — index ranges known to hold every matching row — and the engine plans:
 *  A. walk an index in sort order (the sort field's own index, or for the default sort the
 *     narrowest family ordered by it) across partitions and segments with a k-way lex merge,
 *     fetching rows in growing pipelined chunks and testing them until size + 1 match;
 *  B. when the smallest family holds few rows (at most CANDIDATE_THRESHOLD, and fewer than A is
 *     expected to scan), read it whole, filter, and keep the first size + 1 rows in memory;
 *  C. a sort on a field without an index: B over the smallest family, whatever its size.
 * The extra row proves a next page exists; `next` is the last row's cursor, else null.
 */

/** A set of index ranges known to hold every matching row. */
export interface Family {
  /** Shown in plans: "x:time", "tk", "pt:100000". */
  name: string;
  /** Suffix of the sort index it walks in order, or null for a filter index (ordered by the default sort). */
  sort: string | null;
  /** One source per (partition, segment); `tag` is the segment. */
  sources: LexSource[];
  /** Rows in the family (after count), -1 before. */
  count: number;
}

export interface TableQuery<Row> {
  layout: TableLayout<Row>;
  version: number;
  partitions: number;
  /** Segments to read: session dates, or [''] for a view without segments. */
  segments: readonly string[];
  /** A window on the default sort's value [startMs, endMs), or null. */
  window: TimeWindow | null;
  /** An inclusive range on the default sort's value that narrows every family ordered by it. */
  defaultRange?: readonly [number | null, number | null];
  /** The full row filter; families only choose what is read. */
  predicate(row: Row): boolean;
  /** Families narrower than the whole view (from the request's filter), each a superset of the matches. */
  families?: (plan: TablePlan<Row>) => Family[];
  /**
   * A family known to be the smallest without counting (null when none is), so a walk by the
   * default sort skips the count round trip.
   */
  knownSmallest?: (families: Family[]) => Family | null;
  /** Hashes keyed by rowKey whose values are fetched with each candidate row and attached to it. */
  companions?: { hash: (k: TableKeys, segment: string) => string; attach(row: Row, value: Buffer | null): void }[];
  /** What the warm tier's blocks may be skipped by (warm-reader.ts); the predicate still decides every row. */
  warmBounds?: WarmBounds;
  /** Segments known to be hot (the newest of the view): their tier is not read. */
  hotSegments?: ReadonlySet<string>;
}

/** Bounds every matching row satisfies, for skipping warm blocks: block keys (tickers) and ranges by sort suffix. */
export interface WarmBounds {
  blockKeys?: readonly string[];
  ranges?: Readonly<Record<string, readonly [number | null, number | null] | undefined>>;
}

export interface TableSortSpec<Row> {
  /** Suffix of the sort's index in the layout, or null for a field without one. */
  suffix: string | null;
  descending: boolean;
  value(row: Row): number | string | boolean | null;
}

export interface TablePageQuery<Row> extends TableQuery<Row> {
  sort: TableSortSpec<Row>;
  /** (sortKey, rowKey) of the last row served, or null for the first page. */
  after: { sortKey: string; rowKey: string } | null;
  size: number;
}

export interface TablePage<Row> {
  rows: Row[];
  next: { sortKey: string; rowKey: string } | null;
}

/** Knobs for tests and diagnostics; endpoints pass none. */
export interface TableReadOptions {
  /** 'index' walks an index (plan A), 'candidates' reads the smallest family (B/C); default: the planner decides. */
  force?: 'index' | 'candidates';
  /** Largest family plan B reads instead of walking an index (default CANDIDATE_THRESHOLD). */
  candidateThreshold?: number;
  /** Told the plan chosen, e.g. "A x:premium", "B tk", "C x:time". */
  onPlan?: (plan: string) => void;
}

/** Plan B reads a candidate set of at most this many rows rather than walk an index. */
export const CANDIDATE_THRESHOLD = 5_000;
const SCAN_CHUNK = 1_000;
const MAX_FETCH = 4_000;
const RANGE_SUFFIX = ';'; // the character after ':', so "(<sortKey>;" ends after every rowKey of sortKey

/** BYLEX bound below every member whose sort value is >= v (open when v is null). */
export function lowerBound(v: number | null | undefined): string {
  return v === null || v === undefined ? '-' : `[${encodeSortKey(v)}:`;
}
/** BYLEX bound above every member whose sort value is <= v (open when v is null). */
export function upperBoundInclusive(v: number | null | undefined): string {
  return v === null || v === undefined ? '+' : `(${encodeSortKey(v)}${RANGE_SUFFIX}`;
}

/** What a query reads: its keys per partition, and the families it can draw rows from. */
export class TablePlan<Row> {
  readonly keys: TableKeys[];
  readonly parts: number[];
  /** (partition, segment) pairs held by the warm tier, as `<p>/<seg>`, with their tier field (loadTiers); the hot families leave them out. */
  readonly warm = new Map<string, string>();

  constructor(
    readonly redis: Redis,
    readonly prefix: string,
    readonly q: TableQuery<Row>,
  ) {
    this.parts = Array.from({ length: q.partitions }, (_, p) => p);
    this.keys = this.parts.map((p) => new TableKeys(new PartitionKeys(prefix, q.layout.view, q.version, p)));
  }

  /**
   * Which of the query's (partition, segment) pairs are warm: one pipelined read of every
   * partition's tier hash, made only for a view with a warm tier.
   */
  async loadTiers(): Promise<void> {
    const segs = this.q.segments.filter((s) => s !== '' && !this.q.hotSegments?.has(s));
    if (!this.q.layout.warm || !segs.length) return;
    const pipe = this.redis.pipeline();
    for (const p of this.parts) pipe.hmget(new WarmKeys(this.keys[p].p).tier, ...segs.map(warmField));
    const res = (await pipe.exec())!;
    res.forEach(([err, vals], p) => {
      if (err) throw err;
      (vals as (string | null)[]).forEach((v, i) => {
        if (v !== null) this.warm.set(`${p}/${segs[i]}`, v);
      });
    });
  }

  /** Whether a (partition, segment) pair is read from the hot tier. */
  isHot(p: number, seg: string): boolean {
    return this.warm.size === 0 || !this.warm.has(`${p}/${seg}`);
  }

  /** The default sort's bounds from the window and defaultRange ('-' and '+' when none). */
  defaultBounds(): { min: string; max: string } {
    const w = this.q.window;
    let min = w ? `[${encodeSortKey(w.startMs)}:` : '-';
    let max = w ? `(${encodeSortKey(w.endMs)}:` : '+';
    const r = this.q.defaultRange;
    if (r) {
      min = tighterMin(min, lowerBound(r[0]));
      max = tighterMax(max, upperBoundInclusive(r[1]));
    }
    return { min, max };
  }

  /**
   * A family of one key per (partition, segment). Families ordered by the default sort (filter
   * indexes, the default sort's own index) take the window's bounds as well.
   */
  family(name: string, sort: string | null, keyOf: (k: TableKeys, seg: string) => string, o: { min?: string; max?: string; parts?: number[] } = {}): Family {
    let min = o.min ?? '-';
    let max = o.max ?? '+';
    if (sort === null || sort === this.q.layout.sorts[0].suffix) {
      const b = this.defaultBounds();
      min = tighterMin(min, b.min);
      max = tighterMax(max, b.max);
    }
    const sources: LexSource[] = [];
    if (!emptyLexRange(min, max)) {
      for (const seg of this.q.segments)
        for (const p of o.parts ?? this.parts) if (this.isHot(p, seg)) sources.push({ partition: p, key: keyOf(this.keys[p], seg), min, max, tag: seg });
    }
    return { name, sort, sources, count: -1 };
  }

  /** The walk of a sort index, optionally restricted to values in [lo, hi]. */
  sortFamily(suffix: string, range?: readonly [number | null, number | null]): Family {
    return this.family(`x:${suffix}`, suffix, (k, seg) => k.sorted(seg, suffix), { min: lowerBound(range?.[0]), max: upperBoundInclusive(range?.[1]) });
  }

  /** The union of a filter index's keys for some values (each in the partitions `partitionsOf` gives, or all). */
  indexFamily(name: string, index: string, values: readonly string[], partitionsOf?: (value: string) => number[]): Family {
    const b = this.defaultBounds();
    const sources: LexSource[] = [];
    if (!emptyLexRange(b.min, b.max)) {
      for (const seg of this.q.segments) {
        for (const v of new Set(values)) {
          for (const p of partitionsOf ? partitionsOf(v) : this.parts)
            if (this.isHot(p, seg)) sources.push({ partition: p, key: this.keys[p].index(seg, index, v), min: b.min, max: b.max, tag: seg });
        }
      }
    }
    return { name, sort: null, sources, count: -1 };
  }

  /** Every family of the query; the first, the default sort's index, holds every row. */
  families(): Family[] {
    return [this.sortFamily(this.q.layout.sorts[0].suffix), ...(this.q.families?.(this) ?? [])];
  }

  /** Counts every family's rows (one pipeline) and drops sources that hold none. */
  async count(families: Family[]): Promise<void> {
    const pipe = this.redis.pipeline();
    for (const f of families) {
      for (const s of f.sources) {
        if (s.min === '-' && s.max === '+') pipe.zcard(s.key);
        else pipe.zlexcount(s.key, s.min!, s.max!);
      }
    }
    const res = (await pipe.exec())!;
    let i = 0;
    for (const f of families) {
      const kept: LexSource[] = [];
      f.count = 0;
      for (const s of f.sources) {
        const [err, n] = res[i++];
        if (err) throw err;
        if ((n as number) > 0) kept.push(s);
        f.count += n as number;
      }
      f.sources = kept;
    }
  }

  /** Whether a row passes the window and the predicate. */
  matches(row: Row): boolean {
    const w = this.q.window;
    if (w) {
      const t = this.q.layout.sorts[0].value(row) as number;
      if (t < w.startMs || t >= w.endMs) return false;
    }
    return this.q.predicate(row);
  }

  /** Rows of index hits (null for a member whose row is gone), in hit order: HMGETs, one pipeline. */
  async fetch(hits: LexHit[]): Promise<(Row | null)[]> {
    const groups = new Map<string, { p: number; seg: string; at: number[]; rowKeys: string[] }>();
    hits.forEach((h, i) => {
      const id = `${h.partition}/${h.source.tag}`;
      let g = groups.get(id);
      if (!g) groups.set(id, (g = { p: h.partition, seg: h.source.tag ?? '', at: [], rowKeys: [] }));
      g.at.push(i);
      g.rowKeys.push(parseIndexMember(h.member).rowKey);
    });
    const companions = this.q.companions ?? [];
    const pipe = this.redis.pipeline();
    for (const g of groups.values()) {
      pipe.hmgetBuffer(this.keys[g.p].rows(g.seg), ...g.rowKeys);
      for (const c of companions) pipe.hmgetBuffer(c.hash(this.keys[g.p], g.seg), ...g.rowKeys);
    }
    const res = (await pipe.exec())!;
    const out: (Row | null)[] = new Array(hits.length).fill(null);
    let n = 0;
    const decode = this.q.layout.decode;
    for (const g of groups.values()) {
      const [err, vals] = res[n++] as [Error | null, (Buffer | null)[]];
      if (err) throw err;
      g.at.forEach((i, j) => {
        if (vals[j] !== null) out[i] = decode(vals[j]!, g.rowKeys[j], g.seg);
      });
      for (const c of companions) {
        const [cerr, cvals] = res[n++] as [Error | null, (Buffer | null)[]];
        if (cerr) throw cerr;
        g.at.forEach((i, j) => {
          if (out[i] !== null) c.attach(out[i]!, cvals[j]);
        });
      }
    }
    return out;
  }

  /** Every row of a family, in rounds over all its sources (order within the family is not kept). */
  async scan(f: Family, visit: (row: Row) => void): Promise<void> {
    let active = f.sources.map((s) => ({ s, min: s.min ?? '-' }));
    while (active.length) {
      const pipe = this.redis.pipeline();
      for (const a of active) pipe.zrange(a.s.key, a.min, a.s.max ?? '+', 'BYLEX', 'LIMIT', 0, SCAN_CHUNK);
      const res = (await pipe.exec())!;
      const hits: LexHit[] = [];
      const next: typeof active = [];
      active.forEach((a, i) => {
        const [err, members] = res[i] as [Error | null, string[]];
        if (err) throw err;
        for (const member of members) hits.push({ partition: a.s.partition, member, source: a.s });
        if (members.length === SCAN_CHUNK) next.push({ s: a.s, min: `(${members[members.length - 1]}` });
      });
      for (const row of await this.fetch(hits)) if (row) visit(row);
      active = next;
    }
  }
}

export function smallest(fams: Family[]): Family {
  return fams.reduce((a, b) => (b.count < a.count ? b : a));
}

/** One page in (sort value, rowKey) order after the cursor (see the planner notes at the top). */
export async function readTablePage<Row>(redis: Redis, keyPrefix: string, q: TablePageQuery<Row>, opts: TableReadOptions = {}): Promise<TablePage<Row>> {
  const pl = new TablePlan(redis, keyPrefix, q);
  await pl.loadTiers();
  const want = q.size + 1;
  const sortIdx = q.sort.suffix;
  const defaultSuffix = q.layout.sorts[0].suffix;
  const fams = pl.families();
  let walk: Family | null = null;
  let cands: Family | null = null;
  if (sortIdx !== null) {
    const own = sortIdx === defaultSuffix ? null : (fams.find((f) => f.sort === sortIdx) ?? pl.sortFamily(sortIdx));
    const all = own && !fams.includes(own) ? [...fams, own] : fams;
    const known = own ? null : (q.knownSmallest?.(fams) ?? null);
    if (fams.length === 1 && !q.window && opts.force !== 'candidates') {
      walk = own ?? fams[0]; // nothing narrows the rows: walk the sort index, no counting needed
    } else if (known && !opts.force) {
      walk = known;
    } else {
      await pl.count(all);
      walk = own ?? smallest(fams.filter((f) => f.sort === null || f.sort === defaultSuffix));
      const min = smallest(all);
      const expectedScan = min.count === 0 ? walk.count : Math.min(walk.count, (want * walk.count) / min.count);
      const threshold = opts.candidateThreshold ?? CANDIDATE_THRESHOLD;
      const useB = opts.force === 'candidates' || (opts.force !== 'index' && min.count <= threshold && min.count < expectedScan);
      if (useB) {
        cands = min;
        walk = null;
      }
    }
  } else {
    await pl.count(fams);
    cands = smallest(fams);
  }

  let rows: Row[];
  if (walk) {
    opts.onPlan?.(`A ${walk.name}`);
    rows = await walkIndex(pl, walk, q.sort.descending, q.after, want);
  } else {
    opts.onPlan?.(`${sortIdx !== null ? 'B' : 'C'} ${cands!.name}`);
    rows = await pageFromCandidates(pl, cands!, q.sort, q.after, want);
  }
  if (pl.warm.size) rows = await withWarmRows(pl, rows, q.sort, q.after, want);
  const more = rows.length > q.size;
  if (more) rows.length = q.size;
  const last = rows[rows.length - 1];
  return { rows, next: more ? { sortKey: encodeSortKey(q.sort.value(last)), rowKey: q.layout.rowKeyOf(last) } : null };
}

async function walkIndex<Row>(pl: TablePlan<Row>, f: Family, desc: boolean, after: { sortKey: string; rowKey: string } | null, want: number): Promise<Row[]> {
  let sources = f.sources;
  if (after) {
    const bound = `(${indexMember(after.sortKey, after.rowKey)}`;
    sources = sources.map((s) => (desc ? { ...s, max: tighterMax(s.max ?? '+', bound) } : { ...s, min: tighterMin(s.min ?? '-', bound) }));
  }
  if (!sources.length) return [];
  const firstChunk = Math.min(1_000, Math.max(16, Math.ceil((2 * want) / sources.length)));
  const merge = new LexMerge(pl.redis, sources, { descending: desc, firstChunk });
  const out: Row[] = [];
  let batch = want;
  while (out.length < want) {
    const hits = await merge.next(batch);
    if (!hits.length) break;
    for (const row of await pl.fetch(hits)) {
      if (row && pl.matches(row)) {
        out.push(row);
        if (out.length === want) break;
      }
    }
    batch = Math.min(batch * 2, MAX_FETCH);
  }
  return out;
}

async function pageFromCandidates<Row>(
  pl: TablePlan<Row>,
  f: Family,
  sort: TableSortSpec<Row>,
  after: { sortKey: string; rowKey: string } | null,
  want: number,
): Promise<Row[]> {
  const sign = sort.descending ? -1 : 1;
  const rowKeyOf = pl.q.layout.rowKeyOf;
  // The first `want` rows after the cursor, kept in order.
  const best = new FirstRows<{ sk: string; rk: string; row: Row }>(want, sort.descending);
  await pl.scan(f, (row) => {
    if (!pl.matches(row)) return;
    const sk = encodeSortKey(sort.value(row));
    const rk = rowKeyOf(row);
    if (after && sign * compareKeys(sk, rk, after.sortKey, after.rowKey) <= 0) return;
    best.offer({ sk, rk, row });
  });
  return best.items.map((b) => b.row);
}

/** Visits every row matching the query, read from its smallest family (counted first). */
export async function scanTable<Row>(
  redis: Redis,
  keyPrefix: string,
  q: TableQuery<Row>,
  visit: (row: Row) => void,
  onPlan?: (plan: string) => void,
): Promise<void> {
  const pl = new TablePlan(redis, keyPrefix, q);
  await pl.loadTiers();
  const fams = pl.families();
  await pl.count(fams);
  const f = smallest(fams);
  onPlan?.(`scan ${f.name}${pl.warm.size ? ' + warm' : ''}`);
  await pl.scan(f, (row) => {
    if (pl.matches(row)) visit(row);
  });
  if (pl.warm.size) await scanWarm(pl, visit);
}
