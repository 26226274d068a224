import type Redis from 'ioredis';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { partitionOf } from '../../services/kafka/partition';
import { PartitionKeys } from '../../services/views/keys';
import {
  COMBO_DIMENSIONS,
  ORDER_FLOW_CONSOLIDATED_VIEW,
  PREMIUM_TIERS,
  SORT_INDEXES,
  combosAllowing,
  compareKeys,
  decodeComprising,
  decodeRow,
  encodeSortKey,
  indexMember,
  orderFlowKeys,
  parseIndexMember,
  partitionOfRowKey,
  premiumCents,
  statField,
  statisticsFromCounters,
  type Combo,
  type ComprisingTrade,
  type IndexedSort,
  type OrderFlowKeys,
  type OrderFlowRow,
  type OrderFlowStatistics,
} from '../../services/views/order-flow';
import type { TimeWindow } from '../request/time';
import { LexMerge, emptyLexRange, tighterMax, tighterMin, type LexHit, type LexSource } from './lex-merge';

/**
 * The contract between the order-flow endpoints and the view reader, and its implementation.
 *
 * The reader plans each query over the order-flow view (services/views/order-flow.ts):
 *  A. walk an index in sort order (x:<sort>, or tk:/os:/pt:/un: by tradeTime) across partitions
 *     and sessions with a k-way merge, testing `predicate` on each row, until a page is full;
 *  B. or, when a filter's own index holds few rows (ticker, osi, premium tier, a range on an
 *     indexed field), read those rows and sort them in memory;
 *  C. a sort on a field without an index reads the smallest candidate set and sorts it (correct,
 *     slow on large sets).
 * Rows are returned in (sort value, rowKey) order, ascending or descending; `next` is the cursor
 * of the last row when more rows may follow, else null.
 */

export interface OrderFlowSort<Row> {
  /** Canonical field name (FieldSet name), e.g. TRADE_TIME, PREMIUM, IMPLIED_VOLATILITY. */
  field: string;
  descending: boolean;
  /** Reads the sort value of a row (used for fields without an index, and to build cursors). */
  value(row: Row): number | string | boolean | null;
}

export interface OrderFlowHints {
  /** Underlyings the filter restricts to (OR). */
  tickers?: string[];
  /** One contract (unconsolidated osi filter). */
  osi?: string;
  /** Inclusive ranges on indexed fields, from the filter object (premiumRange, sizeRange...). */
  ranges?: Partial<Record<IndexedSort, [number | null, number | null]>>;
  /** isUnusual: true in the filter object. */
  unusualOnly?: boolean;
  /** Values the filter object allows (OR within each), for the combination index. */
  contractTypes?: string[];
  tradeSides?: string[];
  sectors?: string[];
}

export interface OrderFlowQuery<Row> {
  view: string;
  version: number;
  /** Session dates to read. */
  sessions: string[];
  /** tradeTime window [startMs, endMs), or null for whole sessions. */
  window: TimeWindow | null;
  /** The full row filter (filter object and filterExpression); hints only choose the plan. */
  predicate(row: Row): boolean;
  hints: OrderFlowHints;
  /**
   * Set when the filter is at most a tickers filter (no filterExpression, no other filter field):
   * `predicate` then tests nothing beyond `hints.tickers`, and statistics over whole sessions come
   * from the precomputed counters. Leave unset when unsure (statistics then scan the rows).
   */
  onlyTickersFilter?: boolean;
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
export interface OrderFlowReadOptions {
  /**
   * Pages: 'index' walks an index (plan A, when the sort has one), 'candidates' reads the smallest
   * candidate set (plan B/C). Statistics: 'counters' or 'scan'. Default: the planner decides.
   */
  force?: 'index' | 'candidates' | 'counters' | 'scan';
  /** Largest candidate set plan B reads instead of walking an index (default CANDIDATE_THRESHOLD). */
  candidateThreshold?: number;
  /** Told the plan chosen, e.g. "A x:premium", "B tk", "C x:time", "counters", "scan os". */
  onPlan?: (plan: string) => void;
}

/** Plan B reads a candidate set of at most this many rows rather than walk an index. */
export const CANDIDATE_THRESHOLD = 5_000;
/**
 * Most combination sets (cx) one (partition, session) may contribute to a family: a filter that
 * pins few of the combination's dimensions enumerates too many sets to be worth counting. 48
 * admits a contract type and a trade side over every tier and sector (4 x 12), a common filter.
 */
export const MAX_COMBOS = 48;
const SCAN_CHUNK = 1_000;
const MAX_FETCH = 4_000;

/** A set of rows known to contain every match: index ranges of (partition, session) zsets. */
interface Family {
  name: string;
  /** Members are ordered by tradeTime (the family can serve a TRADE_TIME walk). */
  byTime: boolean;
  /** One source per (partition, session); `tag` is the session. */
  sources: LexSource[];
  count: number;
}

const RANGE_SUFFIX = ';'; // the character after ':', so "(<sortKey>;" ends after every rowKey of sortKey

function lowerBound(v: number | null | undefined): string {
  return v === null || v === undefined ? '-' : `[${encodeSortKey(v)}:`;
}
function upperBoundInclusive(v: number | null | undefined): string {
  return v === null || v === undefined ? '+' : `(${encodeSortKey(v)}${RANGE_SUFFIX}`;
}

class Planner<Row extends OrderFlowRow> {
  readonly keys: OrderFlowKeys[];
  readonly parts: number[];

  constructor(
    readonly redis: Redis,
    readonly prefix: string,
    readonly q: OrderFlowQuery<Row>,
  ) {
    this.parts = Array.from({ length: MARKET_PARTITIONS }, (_, p) => p);
    this.keys = this.parts.map((p) => orderFlowKeys(new PartitionKeys(prefix, q.view, q.version, p)));
  }

  /** The tradeTime bounds of the query: its window and a TRADE_TIME range hint. */
  private timeBounds(): { min: string; max: string } {
    let min = '-';
    let max = '+';
    const w = this.q.window;
    if (w) {
      min = `[${encodeSortKey(w.startMs)}:`;
      max = `(${encodeSortKey(w.endMs)}:`;
    }
    const r = this.q.hints.ranges?.TRADE_TIME;
    if (r) {
      min = tighterMin(min, lowerBound(r[0]));
      max = tighterMax(max, upperBoundInclusive(r[1]));
    }
    return { min, max };
  }

  private family(name: string, byTime: boolean, parts: number[], keyOf: (k: OrderFlowKeys, d: string) => string, min: string, max: string): Family {
    const sources: LexSource[] = [];
    if (!emptyLexRange(min, max)) {
      for (const d of this.q.sessions) for (const p of parts) sources.push({ partition: p, key: keyOf(this.keys[p], d), min, max, tag: d });
    }
    return { name, byTime, sources, count: -1 };
  }

  /** The index walk of an indexed sort field (x:<sort>), restricted by a range hint on it. */
  sortFamily(sort: IndexedSort): Family {
    if (sort === 'TRADE_TIME') {
      const t = this.timeBounds();
      return this.family('x:time', true, this.parts, (k, d) => k.sorted(d, 'TRADE_TIME'), t.min, t.max);
    }
    const r = this.q.hints.ranges?.[sort];
    return this.family(`x:${SORT_INDEXES[sort].suffix}`, false, this.parts, (k, d) => k.sorted(d, sort), lowerBound(r?.[0]), upperBoundInclusive(r?.[1]));
  }

  /** Every family the hints and the window allow (the first one, x:time, holds every row). */
  families(): Family[] {
    const h = this.q.hints;
    const t = this.timeBounds();
    const out = [this.sortFamily('TRADE_TIME')];
    if (h.tickers) {
      const byPart = new Map<number, string[]>();
      for (const tk of new Set(h.tickers)) {
        const p = partitionOf(tk, MARKET_PARTITIONS);
        byPart.set(p, [...(byPart.get(p) ?? []), tk]);
      }
      const sources: LexSource[] = [];
      if (!emptyLexRange(t.min, t.max)) {
        for (const d of this.q.sessions) {
          for (const [p, tks] of byPart) for (const tk of tks) sources.push({ partition: p, key: this.keys[p].ticker(d, tk), min: t.min, max: t.max, tag: d });
        }
      }
      out.push({ name: 'tk', byTime: true, sources, count: -1 });
    }
    if (h.osi !== undefined) out.push(this.family('os', true, this.parts, (k, d) => k.contract(d, h.osi!), t.min, t.max));
    const minPremium = h.ranges?.PREMIUM?.[0];
    if (minPremium !== null && minPremium !== undefined) {
      const tier = [...PREMIUM_TIERS].reverse().find((x) => x <= minPremium);
      if (tier !== undefined) out.push(this.family(`pt:${tier}`, true, this.parts, (k, d) => k.premiumTier(d, tier), t.min, t.max));
    }
    if (h.unusualOnly) out.push(this.family('un', true, this.parts, (k, d) => k.unusual(d), t.min, t.max));
    const combos = this.combos();
    if (combos) {
      const sources: LexSource[] = [];
      if (!emptyLexRange(t.min, t.max)) {
        for (const d of this.q.sessions)
          for (const p of this.parts) for (const c of combos) sources.push({ partition: p, key: this.keys[p].combo(d, c), min: t.min, max: t.max, tag: d });
      }
      out.push({ name: 'cx', byTime: true, sources, count: -1 });
    }
    for (const [f] of this.boundedRanges()) out.push(this.sortFamily(f));
    return out;
  }

  /** The range hints with a bound, on indexed fields other than TRADE_TIME (timeBounds has that). */
  private boundedRanges(): [IndexedSort, [number | null, number | null]][] {
    const ranges = this.q.hints.ranges ?? {};
    return (Object.keys(ranges) as IndexedSort[])
      .filter((f) => f !== 'TRADE_TIME' && ranges[f] && (ranges[f]![0] !== null || ranges[f]![1] !== null))
      .map((f) => [f, ranges[f]!]);
  }

  /**
   * The combination sets (services/views/order-flow.ts, COMBO_DIMENSIONS) that hold every row the
   * hints allow, or null when the hints pin none of contract type, trade side and sector (the
   * premium tier alone is the pt: index) or allow more than MAX_COMBOS sets.
   */
  combos(): Combo[] | null {
    const h = this.q.hints;
    if (!h.contractTypes && !h.tradeSides && !h.sectors) return null;
    const combos = combosAllowing({ contractTypes: h.contractTypes, tradeSides: h.tradeSides, sectors: h.sectors, premium: h.ranges?.PREMIUM });
    return combos.length > MAX_COMBOS ? null : combos;
  }

  /**
   * Asked when the hints have a combination family: true when its sets are a subset of every
   * other family, so counting could only
   * confirm them as the walk (and, for plan B, as the candidates: B would read them all only when
   * they hold less than a page, which the walk reads too). So it is when the hints pin combination
   * dimensions and at most a premium floor on a tier boundary: no tickers, contract or unusual
   * flag, no premium ceiling and no other range. The other families are then x:time, pt:<tier>
   * and x:premium from that floor, and each holds every row of the sets.
   */
  combosAreSmallest(): boolean {
    const h = this.q.hints;
    if (h.tickers || h.osi !== undefined || h.unusualOnly) return false;
    return this.boundedRanges().every(([f, [lo, hi]]) => f === 'PREMIUM' && hi === null && (lo === null || COMBO_DIMENSIONS.tier.includes(lo)));
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

  /** Whether a row passes the window, the hints and the predicate. */
  matches(row: Row): boolean {
    const w = this.q.window;
    if (w && (row.tradeTime < w.startMs || row.tradeTime >= w.endMs)) return false;
    const h = this.q.hints;
    if (h.tickers && !h.tickers.includes(row.ticker)) return false;
    if (h.osi !== undefined && row.osi !== h.osi) return false;
    if (h.unusualOnly && !row.isUnusual) return false;
    if (h.contractTypes && !h.contractTypes.includes(row.contractType)) return false;
    if (h.tradeSides && !h.tradeSides.includes(row.tradeSideCode)) return false;
    if (h.sectors && !h.sectors.includes(row.sector)) return false;
    if (h.ranges) {
      for (const f of Object.keys(h.ranges) as IndexedSort[]) {
        const r = h.ranges[f];
        if (!r) continue;
        const v = SORT_INDEXES[f].value(row);
        if ((r[0] !== null && v < r[0]) || (r[1] !== null && v > r[1])) return false;
      }
    }
    return this.q.predicate(row);
  }

  /** Rows of index hits (null for a member whose row is gone), in hit order: HMGETs, one pipeline. */
  async fetch(hits: LexHit[]): Promise<(Row | null)[]> {
    const groups = new Map<string, { p: number; d: string; at: number[]; rowKeys: string[] }>();
    hits.forEach((h, i) => {
      const id = `${h.partition}/${h.source.tag}`;
      let g = groups.get(id);
      if (!g) groups.set(id, (g = { p: h.partition, d: h.source.tag!, at: [], rowKeys: [] }));
      g.at.push(i);
      g.rowKeys.push(parseIndexMember(h.member).rowKey);
    });
    const pipe = this.redis.pipeline();
    for (const g of groups.values()) pipe.hmgetBuffer(this.keys[g.p].rows(g.d), ...g.rowKeys);
    const res = (await pipe.exec())!;
    const out: (Row | null)[] = new Array(hits.length).fill(null);
    let n = 0;
    for (const g of groups.values()) {
      const [err, vals] = res[n++] as [Error | null, (Buffer | null)[]];
      if (err) throw err;
      g.at.forEach((i, j) => {
        if (vals[j] !== null) out[i] = decodeRow<Row>(vals[j]!, g.rowKeys[j], g.d);
      });
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

function smallest(fams: Family[]): Family {
  return fams.reduce((a, b) => (b.count < a.count ? b : a));
}

/**
 * One page in (sort value, rowKey) order after the cursor.
 *
 * Plan A (sort field with an index): walk x:<sort> — for TRADE_TIME the narrowest by-time index
 * the hints allow (os, tk, pt:<tier>, un, else x:time) — over every (partition, session) with a
 * k-way lex merge from the cursor, restricted by a range hint on the sort field or the window,
 * fetching rows in growing pipelined chunks and testing them until size + 1 match.
 * Plan B: when the smallest candidate set (the index of a hint, or the window's x:time range)
 * holds at most CANDIDATE_THRESHOLD rows and fewer than A is expected to scan (size + 1 divided by
 * the candidates' share of the walked index), read the set, filter, and keep the first size + 1
 * rows after the cursor in memory.
 * Plan C (sort field without an index): B over the smallest candidate set, whatever its size —
 * every row of the sessions when nothing narrows it: correct, but a full scan on every page.
 * `next` is the cursor of the last row when a further matching row exists.
 */
export async function readOrderFlowPage<Row extends OrderFlowRow>(
  redis: Redis,
  keyPrefix: string,
  q: OrderFlowPageQuery<Row>,
  opts: OrderFlowReadOptions = {},
): Promise<OrderFlowPage<Row>> {
  const pl = new Planner(redis, keyPrefix, q);
  const want = q.size + 1;
  const sortIdx = q.sort.field in SORT_INDEXES ? (q.sort.field as IndexedSort) : null;
  const fams = pl.families();
  const cx = fams.find((f) => f.name === 'cx');
  let walk: Family | null = null;
  let cands: Family | null = null;
  if (sortIdx) {
    const own = sortIdx === 'TRADE_TIME' ? null : (fams.find((f) => f.name === `x:${SORT_INDEXES[sortIdx].suffix}`) ?? pl.sortFamily(sortIdx));
    const all = own && !fams.includes(own) ? [...fams, own] : fams;
    if (fams.length === 1 && !q.window && opts.force !== 'candidates') {
      walk = own ?? fams[0]; // nothing narrows the rows: walk the sort index, no counting needed
    } else if (!own && !opts.force && cx && pl.combosAreSmallest()) {
      walk = cx; // counting could only confirm that the combination sets are the smallest family
    } else {
      await pl.count(all);
      walk = own ?? smallest(fams.filter((f) => f.byTime));
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

  const desc = q.sort.descending;
  const after = q.after;
  let rows: Row[];
  if (walk) {
    opts.onPlan?.(`A ${walk.name}`);
    rows = await walkIndex(pl, walk, desc, after, want);
  } else {
    opts.onPlan?.(`${sortIdx ? 'B' : 'C'} ${cands!.name}`);
    rows = await pageFromCandidates(pl, cands!, q.sort, after, want);
  }
  const more = rows.length > q.size;
  if (more) rows.length = q.size;
  const last = rows[rows.length - 1];
  return { rows, next: more ? { sortKey: encodeSortKey(q.sort.value(last)), rowKey: last.rowKey } : null };
}

async function walkIndex<Row extends OrderFlowRow>(
  pl: Planner<Row>,
  f: Family,
  desc: boolean,
  after: { sortKey: string; rowKey: string } | null,
  want: number,
): Promise<Row[]> {
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

async function pageFromCandidates<Row extends OrderFlowRow>(
  pl: Planner<Row>,
  f: Family,
  sort: OrderFlowSort<Row>,
  after: { sortKey: string; rowKey: string } | null,
  want: number,
): Promise<Row[]> {
  const sign = sort.descending ? -1 : 1;
  // The first `want` rows after the cursor, kept in order (binary insertion, bounded size).
  const best: { sk: string; row: Row }[] = [];
  const cmp = (a: { sk: string; row: Row }, sk: string, rk: string) => sign * compareKeys(a.sk, a.row.rowKey, sk, rk);
  await pl.scan(f, (row) => {
    if (!pl.matches(row)) return;
    const sk = encodeSortKey(sort.value(row));
    if (after && sign * compareKeys(sk, row.rowKey, after.sortKey, after.rowKey) <= 0) return;
    if (best.length === want && cmp(best[want - 1], sk, row.rowKey) < 0) return;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(best[mid], sk, row.rowKey) < 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, { sk, row });
    if (best.length > want) best.pop();
  });
  return best.map((b) => b.row);
}

/**
 * Exact sums per (contractType, tradeSide) of premium, rows and contracts over every matching row.
 * Whole sessions with at most a tickers filter read the projector's counters (`<D>:st`, or
 * `<D>:st:<TICKER>` in the ticker's partition); anything else scans the smallest candidate set.
 * Both sum premium in integer cents, so they agree exactly.
 */
export async function readOrderFlowStatistics<Row extends OrderFlowRow>(
  redis: Redis,
  keyPrefix: string,
  q: OrderFlowQuery<Row>,
  opts: OrderFlowReadOptions = {},
): Promise<OrderFlowStatistics> {
  const pl = new Planner(redis, keyPrefix, q);
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
    const pipe = redis.pipeline();
    for (const d of q.sessions) {
      if (h.tickers) for (const t of new Set(h.tickers)) pipe.hgetall(pl.keys[partitionOf(t, MARKET_PARTITIONS)].tickerStats(d, t));
      else for (const k of pl.keys) pipe.hgetall(k.stats(d));
    }
    for (const [err, hash] of (await pipe.exec())!) {
      if (err) throw err;
      for (const [f, v] of Object.entries(hash as Record<string, string>)) add(f, Number(v));
    }
  } else {
    const fams = pl.families();
    await pl.count(fams);
    const f = smallest(fams);
    opts.onPlan?.(`scan ${f.name}`);
    await pl.scan(f, (row) => {
      if (!pl.matches(row)) return;
      add(statField(row.contractType, row.tradeSideCode, 'p'), premiumCents(row.premium));
      add(statField(row.contractType, row.tradeSideCode, 'n'), 1);
      add(statField(row.contractType, row.tradeSideCode, 'v'), row.size);
    });
  }
  return statisticsFromCounters(sums);
}

/**
 * The state of a view version: every partition's applied offsets (written by the same atomic
 * transaction as the rows, so a changed row changes them). The `seen:` marker hints are left out: they
 * move past transaction markers without any row changing.
 */
export async function orderFlowStamp(redis: Redis, keyPrefix: string, view: string, version: number): Promise<string> {
  const pipe = redis.pipeline();
  for (let p = 0; p < MARKET_PARTITIONS; p++) pipe.hgetall(new PartitionKeys(keyPrefix, view, version, p).offsets);
  let stamp = String(version);
  for (const [err, offsets] of (await pipe.exec())!) {
    if (err) throw err;
    const applied = Object.entries(offsets as Record<string, string>).filter(([topic]) => !topic.startsWith('seen:'));
    stamp += `|${applied
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([t, o]) => `${t}=${o}`)
      .join(',')}`;
  }
  return stamp;
}

/** Session dates that have rows in the view (any partition), ascending. */
export async function orderFlowSessions(redis: Redis, keyPrefix: string, view: string, version: number): Promise<string[]> {
  const pipe = redis.pipeline();
  for (let p = 0; p < MARKET_PARTITIONS; p++) pipe.zrange(orderFlowKeys(new PartitionKeys(keyPrefix, view, version, p)).sessions, 0, -1);
  const all = new Set<string>();
  for (const [err, ds] of (await pipe.exec())!) {
    if (err) throw err;
    for (const d of ds as string[]) all.add(d);
  }
  return [...all].sort();
}

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
