import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import TinyQueue from 'tinyqueue';
import { compareKeys, encodeSortKey } from '../../services/views/sort-keys';
import type { RedisClient as Redis } from '../../services/redis/client';
import type { PartitionKeys } from '../../services/views/keys';
import type { TableLayout } from '../../services/views/table';
import {
  WARM_BLOCK_ROWS,
  WarmKeys,
  blocksHolding,
  coversBlockBodies,
  isWarmMetaStamp,
  readSessionMetas,
  unpackBlock,
  unpackCompanion,
  type BlockMeta,
} from '../../services/views/warm-tier';
import type { TablePlan, TableSortSpec } from './engine';
import { FirstRows } from './first-rows';

/**
 * The table engine's read of the warm tier (services/views/warm-tier.ts): the blocks of the
 * query's warm (partition, session) pairs. Block metadata is read first (one pipeline); a block
 * is skipped when its block key or a min/max range cannot match, or when it lies wholly before
 * the cursor. For a page the remaining blocks are read in the order of their bound on the sort
 * field (greatest maximum first for a descending sort) and reading stops once the page is full
 * and the next block cannot hold a row that sorts before the page's last one, so a ticker's
 * newest prints of a month-old session decode a block or two, not the session.
 */

const BLOCKS_PER_ROUND = 16;

/**
 * Decoded blocks, by their session's tier field and block id where the field digests the blocks'
 * bytes (coversBlockBodies), else by the digest of the bytes read: either way a session frozen
 * again with other rows misses, so a hit is always the block as stored now. Cursor walks and
 * repeated queries over a warm session decode each block once and, keyed by the tier field, do not
 * read it again; callers get copies of the rows, since a page's rows are decorated in place.
 */
const decoded = new LRUCache<string, object[]>({ maxSize: 200_000, sizeCalculation: (rows) => Math.max(1, rows.length) });

/** A block's rows, decoded once: keyed by its session's stamp and its id when the stamp covers the bodies, else by a digest of its bytes. */
function rowsOf<Row>(pl: TablePlan<Row>, b: Block, body: Buffer): Row[] {
  const id = b.rowsKey ?? `${pl.q.layout.view}\n${b.seg}\n${createHash('sha1').update(body).digest('base64')}`;
  let rows = decoded.get(id) as Row[] | undefined;
  if (!rows) decoded.set(id, (rows = unpackBlock(pl.q.layout, body, b.seg)) as object[]);
  return rows;
}

interface Block {
  p: number;
  seg: string;
  meta: BlockMeta;
  /** The key of its decoded rows when its session's stamp covers the blocks' bodies (coversBlockBodies): found without reading the block. */
  rowsKey: string | null;
}

interface Keyed<Row> {
  row: Row;
  sk: string;
  rk: string;
  p: number;
  seg: string;
}

/** A warm session's block metadata of one partition, decoded, by block key, and in the orders pages asked for. */
interface SessionMetas {
  all: BlockMeta[];
  /** Each block key's blocks in block order (`<key>:<n>`, n ascending). */
  byKey: Map<string, BlockMeta[]>;
  /** Every block in the order of its bound on a sort (`<sort position><+|->`), null when a block has none (ordersOf). */
  byBound: Map<string, BlockMeta[] | null>;
  /**
   * Whether each block key's blocks are in the order of their bounds on the default sort (both
   * the least and the greatest value never decrease from a block to the next), as blocks cut
   * from rows in that order are: the key's list is then a run of that order as it is. Computed once.
   */
  keyRuns?: boolean;
}

/**
 * Decoded block metadata of warm (partition, session) pairs, by their tier field (warmTierValue),
 * which changes whenever the session's blocks do: a warm session is read by every query over it,
 * and a `full` session has tens of thousands of blocks. Bounded by the number of blocks (each
 * order cached with them, one or two a session in practice, adds a small entry per block).
 */
const metas = new LRUCache<string, SessionMetas>({ maxSize: 400_000, sizeCalculation: (m) => Math.max(1, m.all.length) });

function sessionMetas(all: BlockMeta[]): SessionMetas {
  const byKey = new Map<string, BlockMeta[]>();
  for (const m of all) {
    const list = byKey.get(m.blockKey);
    if (list) list.push(m);
    else byKey.set(m.blockKey, [m]);
  }
  return { all, byKey, byBound: new Map() };
}

/** Whether every block key's list of `m` is a run of the default sort (SessionMetas.keyRuns). */
function keyRuns(m: SessionMetas): boolean {
  if (m.keyRuns === undefined) {
    m.keyRuns = [...m.byKey.values()].every((list) =>
      list.every((b, i) => {
        const lo = numberOrNull(b.min[0]);
        const hi = numberOrNull(b.max[0]);
        return lo !== null && hi !== null && (i === 0 || (lo >= list[i - 1].min[0]! && hi >= list[i - 1].max[0]!));
      }),
    );
  }
  return m.keyRuns;
}

/**
 * `metas` in the order of their bound on sort `at` (greatest maximum first when descending), or
 * null when a block has no numeric bound. A session's whole order is computed once and cached
 * with its metadata: a page over every row of a `full` session otherwise ordered its ~18,000
 * blocks for each request, to read a few hundred.
 */
function ordersOf(m: SessionMetas, metas: readonly BlockMeta[], at: number, descending: boolean): BlockMeta[] | null {
  const whole = metas === m.all;
  const key = `${at}${descending ? '-' : '+'}`;
  if (whole && m.byBound.has(key)) return m.byBound.get(key)!;
  const sign = descending ? -1 : 1;
  const bounds = new Float64Array(metas.length);
  for (let i = 0; i < metas.length; i++) {
    const bound = numberOrNull(descending ? metas[i].max[at] : metas[i].min[at]);
    if (bound === null) {
      if (whole) m.byBound.set(key, null);
      return null;
    }
    bounds[i] = bound;
  }
  // Positions sorted by their bounds (a typed array of numbers sorts without an object per block).
  const order = Uint32Array.from(metas.keys()).sort((a, b) => sign * (bounds[a] < bounds[b] ? -1 : bounds[a] > bounds[b] ? 1 : 0));
  const out = Array.from(order, (i) => metas[i]);
  if (whole) m.byBound.set(key, out);
  return out;
}

/**
 * A pair's candidate blocks as runs, each in the order of its bound on sort `at` (read from its end
 * when `backward`), or null when a block has no numeric bound. On the default sort each block key's
 * list is a run already (keyRuns): a ticker's page or a page over every row then merges the keys'
 * runs without ordering any block; on another sort, one run, ordered (ordersOf).
 */
function runsOf(
  m: SessionMetas,
  test: ReturnType<typeof blockTest>,
  at: number,
  descending: boolean,
): { lists: readonly (readonly BlockMeta[])[]; backward: boolean } | null {
  if (at === 0 && keyRuns(m)) return { lists: test.keys ? test.keys.map((k) => m.byKey.get(k) ?? []) : [...m.byKey.values()], backward: descending };
  const order = ordersOf(m, test.listed(m), at, descending);
  return order && { lists: [order], backward: false };
}

/** A warm (partition, session) pair of the query, with its block metadata. */
interface WarmPair {
  p: number;
  seg: string;
  metas: SessionMetas;
  /** The session's stamp keys its blocks' rows (coversBlockBodies): `<this><block id>`. */
  rowsPrefix: string | null;
}

const blockOf = (pair: WarmPair, meta: BlockMeta): Block => ({
  p: pair.p,
  seg: pair.seg,
  meta,
  rowsKey: pair.rowsPrefix === null ? null : pair.rowsPrefix + meta.id,
});

/** The query's warm pairs with their block metadata (from the cache, else one pipeline). */
async function warmPairs<Row>(pl: TablePlan<Row>): Promise<WarmPair[]> {
  const pairs = [...pl.warm].map(([id, tier]) => {
    const at = id.indexOf('/');
    const p = Number(id.slice(0, at));
    const seg = id.slice(at + 1);
    const cacheKey = isWarmMetaStamp(tier) ? `${pl.keys[p].p.key(seg)}\n${tier}` : null;
    const rowsPrefix = cacheKey !== null && coversBlockBodies(tier) ? `${pl.q.layout.view}\n${cacheKey}\n` : null;
    return { p, seg, cacheKey, rowsPrefix, metas: cacheKey === null ? undefined : metas.get(cacheKey) };
  });
  const missing = pairs.filter((x) => x.metas === undefined);
  if (missing.length) {
    const read = await readSessionMetas(
      pl.redis,
      missing.map(({ p, seg }) => ({ w: new WarmKeys(pl.keys[p].p), seg })),
    );
    read.forEach((all, n) => {
      const x = missing[n];
      x.metas = sessionMetas(all);
      if (x.cacheKey !== null) metas.set(x.cacheKey, x.metas);
    });
  }
  return pairs.map(({ p, seg, metas: m, rowsPrefix }) => ({ p, seg, metas: m!, rowsPrefix }));
}

/** The blocks of a pair a query may read (listed: its tickers' only), and whether a block can hold a match (its ranges). */
function blockTest<Row>(pl: TablePlan<Row>): {
  keys: string[] | null;
  listed: (m: SessionMetas) => readonly BlockMeta[];
  fits: (meta: BlockMeta) => boolean;
} {
  const sorts = pl.q.layout.sorts;
  const b = pl.q.warmBounds;
  const keys = b?.blockKeys ? [...new Set(b.blockKeys)] : null;
  // Every bound as [sort position, lo, hi]: the window and default range on the first sort.
  const bounds: [number, number | null, number | null][] = [];
  const w = pl.q.window;
  if (w) bounds.push([0, w.startMs, w.endMs]);
  if (pl.q.defaultRange) bounds.push([0, pl.q.defaultRange[0], pl.q.defaultRange[1]]);
  for (const [suffix, r] of Object.entries(b?.ranges ?? {})) {
    const i = sorts.findIndex((s) => s.suffix === suffix);
    if (i >= 0 && r) bounds.push([i, r[0], r[1]]);
  }
  return {
    keys,
    listed: (m) => (keys ? keys.flatMap((k) => m.byKey.get(k) ?? []) : m.all),
    // A bound is inclusive; the window's end is exclusive, which only makes the test looser.
    fits: (meta) => !bounds.some(([i, lo, hi]) => meta.min[i] !== null && ((lo !== null && meta.max[i]! < lo) || (hi !== null && meta.min[i]! > hi))),
  };
}

/** The warm pairs' blocks that can hold a match of the query. */
function candidateBlocks<Row>(pl: TablePlan<Row>, pairs: readonly WarmPair[]): Block[] {
  const test = blockTest(pl);
  const out: Block[] = [];
  for (const pair of pairs) for (const meta of test.listed(pair.metas)) if (test.fits(meta)) out.push(blockOf(pair, meta));
  return out;
}

/**
 * The candidate blocks of every pair in the order of their bound on sort `at`, merged lazily from
 * each pair's runs (runsOf), so that a page pays for the blocks it reads, not for all of them;
 * null when a block has no numeric bound. `skip` leaves out blocks the cursor has passed.
 */
function orderedBlocks<Row>(
  pl: TablePlan<Row>,
  pairs: WarmPair[],
  at: number,
  descending: boolean,
  skip: (b: Block) => boolean,
): (() => Block | undefined) | null {
  const test = blockTest(pl);
  const bound = descending ? (m: BlockMeta) => -m.max[at]! : (m: BlockMeta) => m.min[at]!;
  // A cursor walks a run from `i` by `step`; `at` is the bound of the block it is on.
  const cursors: { pair: WarmPair; list: readonly BlockMeta[]; i: number; step: number; at: number }[] = [];
  for (const pair of pairs) {
    const runs = runsOf(pair.metas, test, at, descending);
    if (!runs) return null;
    for (const list of runs.lists) {
      if (!list.length) continue;
      const i = runs.backward ? list.length - 1 : 0;
      cursors.push({ pair, list, i, step: runs.backward ? -1 : 1, at: bound(list[i]) });
    }
  }
  const heap = new TinyQueue(cursors, (a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return () => {
    while (heap.length) {
      const c = heap.pop()!;
      const meta = c.list[c.i];
      c.i += c.step;
      if (c.i >= 0 && c.i < c.list.length) {
        c.at = bound(c.list[c.i]);
        heap.push(c);
      }
      const block = blockOf(c.pair, meta);
      if (test.fits(meta) && !skip(block)) return block;
    }
    return undefined;
  };
}

/**
 * Hands each block's decoded rows (shared: copy what is kept) to `visit`, in the blocks' order:
 * from the cache when their session's stamp keys them, the others read in one pipeline.
 */
async function readBlockRows<Row>(pl: TablePlan<Row>, blocks: Block[], visit: (rows: readonly Row[], b: Block) => void): Promise<void> {
  const cached = blocks.map((b) => (b.rowsKey === null ? undefined : (decoded.get(b.rowsKey) as Row[] | undefined)));
  const read = blocks.filter((_, i) => cached[i] === undefined);
  const bodies = new Map<Block, Buffer | null>();
  if (read.length) {
    const pipe = pl.redis.pipeline();
    for (const b of read) pipe.hgetBuffer(new WarmKeys(pl.keys[b.p].p).blocks(b.seg), b.meta.id);
    (await pipe.exec())!.forEach(([err, body], i) => {
      if (err) throw err;
      bodies.set(read[i], body as Buffer | null);
    });
  }
  blocks.forEach((b, i) => {
    if (cached[i]) return visit(cached[i], b);
    const body = bodies.get(b);
    if (!body) return; // moved back to the hot tier since the metadata was read
    visit(rowsOf(pl, b, body), b);
  });
}

/** Decodes blocks in rounds of one pipeline each, visiting (a copy of) every row that matches the query. */
async function readBlocks<Row>(pl: TablePlan<Row>, blocks: Block[], visit: (row: Row, b: Block) => void): Promise<void> {
  await readBlockRows(pl, blocks, (rows, b) => {
    for (const row of rows) if (pl.matches(row)) visit({ ...row }, b);
  });
}

/** Visits every warm row matching the query (scanTable's warm part). */
export async function scanWarm<Row>(pl: TablePlan<Row>, visit: (row: Row) => void): Promise<void> {
  const blocks = candidateBlocks(pl, await warmPairs(pl));
  for (let i = 0; i < blocks.length; i += BLOCKS_PER_ROUND) await readBlocks(pl, blocks.slice(i, i + BLOCKS_PER_ROUND), visit);
}

/**
 * The first `want` rows after the cursor from the hot rows (already the hot tier's first `want`,
 * in order) and the warm blocks together, in (sort value, rowKey) order.
 */
export async function withWarmRows<Row>(
  pl: TablePlan<Row>,
  hot: Row[],
  sort: TableSortSpec<Row>,
  after: { sortKey: string; rowKey: string } | null,
  want: number,
): Promise<Row[]> {
  const sign = sort.descending ? -1 : 1;
  const rowKeyOf = pl.q.layout.rowKeyOf;
  const best = new FirstRows<Keyed<Row>>(want, sort.descending);
  for (const row of hot) best.offer({ row, sk: encodeSortKey(sort.value(row)), rk: rowKeyOf(row), p: -1, seg: '' });

  // The blocks in the order of their bound on the sort field (its greatest value in the block
  // for a descending sort), when every block has one; else all candidates, unordered.
  const at = sort.suffix === null ? -1 : pl.q.layout.sorts.findIndex((s) => s.suffix === sort.suffix);
  const byDefault = at === 0;
  const bound = (b: Block) => (sort.descending ? b.meta.max[at] : b.meta.min[at])!;
  // The pairs' metadata once: an unordered read falls back to every candidate of the same pairs.
  const pairs = await warmPairs(pl);
  const inOrder = at < 0 ? null : orderedBlocks(pl, pairs, at, sort.descending, (b) => after !== null && !farEnd(b, sort, at, after));
  const unordered = inOrder ? [] : candidateBlocks(pl, pairs);
  const next = (n: number): Block[] => {
    if (!inOrder) return unordered.splice(0, n);
    const out: Block[] = [];
    while (out.length < n) {
      const b = inOrder();
      if (!b) break;
      out.push(b);
    }
    return out;
  };
  // Rounds grow from the blocks a page needs at best (one more than its rows fill) to
  // BLOCKS_PER_ROUND, so a page of a ticker's newest rows decodes a block or two.
  const per = pl.q.layout.warm?.rowsPerBlock ?? WARM_BLOCK_ROWS;
  for (let take = inOrder ? Math.min(BLOCKS_PER_ROUND, Math.ceil(want / per) + 1) : BLOCKS_PER_ROUND; ; take = Math.min(take * 2, BLOCKS_PER_ROUND)) {
    const round = next(take);
    if (!round.length) break;
    // In bound order: once the page is full and this round's first block starts after its last
    // row, no later block can contribute.
    const worst = best.worst;
    if (inOrder && worst && sign * order(encodeSortKey(bound(round[0])), worst.sk) > 0) break;
    await readBlockRows(pl, round, (rows, b) => {
      // Walk a block's rows in the page's order where it is known (a block is in default-sort
      // order; on another indexed sort, its order is computed once per decoded block) and stop at
      // the first row that cannot enter the full page: the rest of the block sorts after it.
      const n = rows.length;
      const ord = byDefault || at < 0 ? null : blockOrder(rows, at, sort.value, rowKeyOf);
      const inSortOrder = byDefault || ord !== null;
      for (let j = 0; j < n; j++) {
        const pos = sort.descending ? n - 1 - j : j;
        const row = rows[ord ? ord[pos] : inSortOrder ? pos : j];
        const last = best.worst;
        // The row's keys once: taken before the filter only where they can end the walk.
        let sk: string | undefined;
        let rk: string | undefined;
        if (inSortOrder && last) {
          sk = encodeSortKey(sort.value(row));
          rk = rowKeyOf(row);
          if (sign * compareKeys(sk, rk, last.sk, last.rk) > 0) break;
        }
        if (!pl.matches(row)) continue;
        const e = { row, sk: sk ?? encodeSortKey(sort.value(row)), rk: rk ?? rowKeyOf(row), p: b.p, seg: b.seg };
        if (after && sign * compareKeys(e.sk, e.rk, after.sortKey, after.rowKey) <= 0) continue;
        best.offer(e);
      }
    });
  }
  // The page's warm rows are the cache's (rowsOf): copies, since a page's rows are decorated in place.
  for (const e of best.items) if (e.p >= 0) e.row = { ...e.row };
  await attachCompanions(pl, best.items);
  return best.items.map((e) => e.row);
}

/**
 * Positions of a decoded block's rows in (value on sort `at`, rowKey) order, or null when a value
 * is not a number: computed once per block and sort (the rows are the decoded-block cache's, so a
 * repeated page walks a block's best rows first and stops after a few).
 */
const blockOrders = new WeakMap<readonly object[], Map<number, Uint32Array | null>>();
function blockOrder<Row>(rows: readonly Row[], at: number, value: (r: Row) => unknown, rowKeyOf: (r: Row) => string): Uint32Array | null {
  let byAt = blockOrders.get(rows as readonly object[]);
  if (!byAt) blockOrders.set(rows as readonly object[], (byAt = new Map()));
  let ord = byAt.get(at);
  if (ord === undefined) {
    const vs = rows.map((r) => numberOrNull(value(r) as number));
    if (vs.some((v) => v === null)) ord = null;
    else {
      const keys = rows.map(rowKeyOf);
      const v = vs as number[];
      // Numbers order as their sort keys do (encodeSortKey), ties by rowKey: the page's order.
      ord = Uint32Array.from(rows.keys()).sort((a, b) => (v[a] < v[b] ? -1 : v[a] > v[b] ? 1 : keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
    }
    byAt.set(at, ord);
  }
  return ord;
}

/** A block's bound as a number, or null when it has none (a value that is not a number, or NaN): its blocks are then read unordered. */
function numberOrNull(v: number | null | undefined): number | null {
  return typeof v === 'number' && !Number.isNaN(v) ? v : null;
}

/** The order of two sort keys: negative, zero or positive. */
function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a block's far end (its last row in sort order) is at or after the cursor: otherwise every row of it was served. */
function farEnd<Row>(b: Block, sort: TableSortSpec<Row>, at: number, after: { sortKey: string }): boolean {
  const v = sort.descending ? b.meta.min[at] : b.meta.max[at];
  if (v === null) return true;
  const far = encodeSortKey(v);
  return sort.descending ? far <= after.sortKey : far >= after.sortKey;
}

/** The companion values (comprising trades...) of the warm rows of a page (hot rows have theirs). */
async function attachCompanions<Row>(pl: TablePlan<Row>, rows: Keyed<Row>[]): Promise<void> {
  const companions = pl.q.companions ?? [];
  const warm = rows.filter((e) => e.p >= 0);
  if (!companions.length || !warm.length) return;
  const pipe = pl.redis.pipeline();
  for (const e of warm) for (const c of companions) pipe.hgetBuffer(c.hash(pl.keys[e.p], e.seg), e.rk);
  const res = (await pipe.exec())!;
  let n = 0;
  for (const e of warm) {
    for (const c of companions) {
      const [err, v] = res[n++] as [Error | null, Buffer | null];
      if (err) throw err;
      c.attach(e.row, v);
    }
  }
}

/**
 * Values of a companion hash (warm-tier.ts WarmTier.companions) for rows of a warm session, by
 * rowKey: the blocks that can hold each row are found from the block metadata.
 */
export async function readWarmCompanion<Row>(
  redis: Redis,
  layout: TableLayout<Row>,
  keys: PartitionKeys,
  seg: string,
  name: string,
  rows: readonly Row[],
): Promise<Map<string, Buffer>> {
  const companion = layout.warm?.companions?.find((c) => c.name === name);
  if (!companion) throw new Error(`${layout.view} has no warm companion '${name}'`);
  const w = new WarmKeys(keys);
  const [metas] = await readSessionMetas(redis, [{ w, seg }]);
  const ids = [...new Set(rows.flatMap((r) => blocksHolding(layout, metas, r)))];
  const out = new Map<string, Buffer>();
  if (!ids.length) return out;
  for (const body of await redis.hmgetBuffer(w.companion(seg, name), ...ids)) if (body) for (const [rk, v] of unpackCompanion(companion, body)) out.set(rk, v);
  return out;
}
