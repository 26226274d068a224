import type { ChainableCommander } from 'ioredis';
import type { RedisClient as Redis } from '../../services/redis/client';
import { topicFor, type TopicSpec } from '../../schemas/catalog';
import { openInterestFlags, type OrderFlowCommon } from '../../services/domain/order-flow';
import type { PartitionKeys } from '../../services/views/keys';
import {
  STAT_FIELDS,
  comboStatStem,
  tierStatStem,
  decodeRow,
  encodeRow,
  openInterestField,
  orderFlowKeys,
  orderFlowLayout,
  osiBucket,
  parseIndexMember,
  eachIndexEntry,
  premiumCents,
  rowIndexEntries,
  statFieldPosition,
  type OrderFlowKeys,
  type OrderFlowRow,
} from '../../services/views/order-flow';
import { FeedGate, feedAppend } from '../../services/views/feed';
import type { RedisOp } from '../runtime/atomic-apply';
import { feedTrimOf } from '../runtime/feed';
import type { Projection, SourceEvent } from '../runtime/projection';
import { withWarmTier } from '../runtime/warm-tier';

/**
 * The writer shared by both order-flow views (services/views/order-flow/keys.ts has the key layout).
 *
 * Rows are upserted by rowKey: within a chunk only the last event of a rowKey counts, and it is
 * compared with the stored row — the old row's index entries that the new one does not have are
 * removed, the new ones added, and the statistics counters move by the difference of the two
 * rows' contributions. So an unchanged redelivery writes nothing, and a consolidated trade's
 * versions replace one another exactly.
 *
 * Open-interest join: `oi:<D>:<root+expiry>` hashes hold the start-of-session open interest per
 * contract. A row takes
 * the value present when it is projected (0 when none); an open-interest event that changes the
 * value re-derives the flags of the rows of that contract already stored (found through the
 * `<D>:os:<osi>` index) and moves them in or out of `<D>:un`. The final view is therefore the
 * same function of (rows, open interest) whatever the interleaving of the two topics. The
 * runtime serialises chunks of the two topics of one partition (atomic-apply.ts).
 *
 * Counters: every touched statistics hash (`st`) gets all STAT_FIELDS, and a combination hash
 * (`sc`, `sc:<TICKER>`) the fields of the combinations that have rows, so which fields exist never
 * depends on the history, only on the rows. They are read with the chunk's other
 * reads and written back as one HSET per hash: the value read plus the chunk's net change. That
 * is as safe as the row diff above, which also rests on a read: the apply refuses a chunk if any
 * other apply of the partition landed since (atomic-apply.ts), so the values read are current.
 * Why not an HINCRBY per field: that is 30 commands per hash, a large share of a chunk's
 * commands, and ioredis spends per command and per argument.
 */

export interface OrderFlowViewSpec<E extends OrderFlowCommon> {
  view: string;
  /** Layout of the stored rows (Projection.format): a change rebuilds older views on start. */
  format: number;
  /** Whether an event is a row of this view (default: every event is). */
  admits?(e: E): boolean;
  /** The derived topic of the rows. */
  rows: TopicSpec;
  /** The stored row of an event, joined with the contract's open interest. */
  toRow(e: E, openInterest: number): OrderFlowRow;
  /** Stored comprising trades of an event (consolidated view), if any. */
  comprising?(e: E): Buffer;
}

interface OpenInterestEvent {
  osi: string;
  sessionDate: string;
  openInterest: number;
}

const OPEN_INTEREST = topicFor('open-interest')!;

/**
 * Collects a chunk's writes: index diffs, row writes and net counter changes, grouped by key so
 * that each key gets one variadic command (a chunk of 500 rows touches each sort index 500
 * times). Grouping does not reorder anything that matters: within one chunk every row (rowKey)
 * and every contract's open interest is written once, index members carry the rowKey and hash
 * fields are a rowKey or (open interest) a contract, so no two writes of a chunk touch the same
 * member or field — removals, additions and sets commute.
 */
class ChunkWriter {
  private readonly removals = new Map<string, string[]>();
  private readonly additions = new Map<string, string[]>();
  private readonly fields = new Map<string, (string | Buffer)[]>();
  private readonly buckets = new Map<string, Set<string>>();
  private readonly openInterestSessions = new Set<string>();
  /** Net change of each statistics hash, by STAT_FIELDS position. */
  private readonly counters = new Map<string, number[]>();
  /** Net change of each combination statistics hash: stem -> [premium cents, rows, contracts]. */
  private readonly comboCounters = new Map<string, Map<string, [number, number, number]>>();
  private readonly sessions = new Set<string>();

  constructor(private readonly k: OrderFlowKeys) {}

  private readonly addIndexEntry = (key: string, member: string): void => ChunkWriter.add(this.additions, key, '0', member);

  private static add<V extends string | Buffer>(to: Map<string, V[]>, key: string, a: V, b?: V): void {
    let list = to.get(key);
    if (!list) to.set(key, (list = []));
    list.push(a);
    if (b !== undefined) list.push(b);
  }

  /** HSET key field value (a row, comprising trades, an open interest). */
  set(key: string, field: string, value: string | Buffer): void {
    ChunkWriter.add(this.fields, key, field, value);
  }

  /** A contract's open interest in session D, its bucket listed in `oi:<D>` and the session in `oi` (once per chunk). */
  openInterest(d: string, osi: string, value: number): void {
    this.set(this.k.openInterest(d, osi), openInterestField(osi), String(value));
    const key = this.k.openInterestBuckets(d);
    let set = this.buckets.get(key);
    if (!set) this.buckets.set(key, (set = new Set()));
    set.add(osiBucket(osi));
    this.openInterestSessions.add(d);
  }

  /** Replaces `old` (null: none) by `next` in the rows, the indexes and (rows path) the counters. */
  upsert(old: OrderFlowRow | null, next: OrderFlowRow, stored: Buffer, counters: boolean): void {
    if (old) {
      const before = rowIndexEntries(this.k, old);
      const after = rowIndexEntries(this.k, next);
      const had = new Set(before.map(([key, m]) => `${key}\n${m}`));
      const has = new Set(after.map(([key, m]) => `${key}\n${m}`));
      for (const [key, m] of before) if (!has.has(`${key}\n${m}`)) ChunkWriter.add(this.removals, key, m);
      for (const [key, m] of after) if (!had.has(`${key}\n${m}`)) ChunkWriter.add(this.additions, key, '0', m);
    } else {
      // A new row (every row of a replay): only additions, no diff to compute.
      eachIndexEntry(this.k, next, this.addIndexEntry);
    }
    this.set(this.k.rows(next.sessionDate), next.rowKey, stored);
    if (counters) {
      if (old) this.count(old, -1);
      this.count(next, 1);
      this.sessions.add(next.sessionDate);
    }
  }

  private count(r: OrderFlowRow, sign: 1 | -1): void {
    const at = statFieldPosition(r.contractType, r.tradeSideCode);
    if (at < 0) return;
    const s = this.k.indexKeys(r.sessionDate);
    this.countInto(s.stats, at, r, sign);
    const stem = comboStatStem(r)!;
    this.countCombo(s.comboStats, stem, r, sign);
    this.countCombo(s.tierStats, tierStatStem(stem), r, sign);
    this.countCombo(s.tickerComboStats(r.ticker), stem, r, sign);
  }

  private countCombo(key: string, stem: string, r: OrderFlowRow, sign: 1 | -1): void {
    let m = this.comboCounters.get(key);
    if (!m) this.comboCounters.set(key, (m = new Map()));
    let c = m.get(stem);
    if (!c) m.set(stem, (c = [0, 0, 0]));
    c[0] += sign * premiumCents(r.premium);
    c[1] += sign;
    c[2] += sign * r.size;
  }

  private countInto(key: string, at: number, r: OrderFlowRow, sign: 1 | -1): void {
    let c = this.counters.get(key);
    if (!c) this.counters.set(key, (c = new Array<number>(STAT_FIELDS.length).fill(0)));
    c[at] += sign * premiumCents(r.premium);
    c[at + 1] += sign;
    c[at + 2] += sign * r.size;
  }

  /**
   * The writes. `storedCounters`: the statistics hashes' STAT_FIELDS as read for this chunk (a
   * missing field or hash counts 0), `storedCombos` the combination hashes as read; each must
   * hold every hash the chunk counted into.
   */
  finish(
    storedCounters: ReadonlyMap<string, readonly (string | null)[]> = new Map(),
    storedCombos: ReadonlyMap<string, Record<string, string>> = new Map(),
  ): RedisOp[] {
    // One command per key (applyAtomically splits a call longer than it sends at once).
    const ops: RedisOp[] = [];
    for (const [key, members] of this.removals) ops.push(['ZREM', key, ...members]);
    for (const [key, scored] of this.additions) ops.push(['ZADD', key, ...scored]);
    for (const [key, pairs] of this.fields) ops.push(['HSET', key, ...pairs]);
    for (const [key, buckets] of this.buckets) ops.push(['SADD', key, ...buckets]);
    if (this.openInterestSessions.size) ops.push(['ZADD', this.k.openInterestSessions, ...[...this.openInterestSessions].flatMap((d) => ['0', d])]);
    for (const [key, c] of this.counters) {
      const stored = storedCounters.get(key);
      if (!stored) throw new Error(`statistics hash ${key} was not read for this chunk`);
      const op: RedisOp = ['HSET', key];
      STAT_FIELDS.forEach((f, i) => op.push(f, String(Number(stored[i] ?? 0) + c[i])));
      ops.push(op);
    }
    for (const [key, deltas] of this.comboCounters) {
      const stored = storedCombos.get(key);
      if (!stored) throw new Error(`statistics hash ${key} was not read for this chunk`);
      const set: RedisOp = ['HSET', key];
      const del: RedisOp = ['HDEL', key];
      for (const [stem, c] of deltas) {
        if (c[0] === 0 && c[1] === 0 && c[2] === 0) continue;
        const fields = [`${stem}p`, `${stem}n`, `${stem}v`];
        const now = fields.map((f, i) => Number(stored[f] ?? 0) + c[i]);
        // A combination without rows leaves no fields behind (its sums are then zero too).
        if (now[1] === 0) del.push(...fields.filter((f) => f in stored));
        else fields.forEach((f, i) => set.push(f, String(now[i])));
      }
      if (set.length > 2) ops.push(set);
      if (del.length > 2) ops.push(del);
    }
    for (const d of this.sessions) ops.push(['ZADD', this.k.sessions, '0', d]);
    return ops;
  }
}

function groupBy<T>(items: Iterable<T>, keyOf: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const key = keyOf(t);
    const list = out.get(key);
    if (list) list.push(t);
    else out.set(key, [t]);
  }
  return out;
}

async function projectRows<E extends OrderFlowCommon>(
  spec: OrderFlowViewSpec<E>,
  events: SourceEvent[],
  keys: PartitionKeys,
  k: OrderFlowKeys,
  redis: Redis,
): Promise<RedisOp[]> {
  // The last version of each rowKey in the chunk replaces what is stored.
  const latest = new Map<string, E>();
  for (const ev of events) {
    if (ev.value === null) continue;
    const e = ev.value as unknown as E;
    latest.delete(e.rowKey);
    if (!spec.admits || spec.admits(e)) latest.set(e.rowKey, e);
  }
  if (!latest.size) {
    const trim = feedTrimOf(keys, events);
    return trim ? [trim] : [];
  }
  const bySession = groupBy(latest.values(), (e) => e.sessionDate);
  // One round trip: the contracts' open interest, the stored rows, then the statistics hashes
  // the chunk can count into (its sessions' and their tickers'; a version of a row never changes
  // its ticker).
  const pipe = redis.pipeline();
  const openInterest = queueOpenInterest(pipe, k, bySession.keys(), (d) => bySession.get(d)!.map((e) => e.osi));
  for (const [d, es] of bySession) pipe.hmgetBuffer(k.rows(d), ...es.map((e) => e.rowKey));
  const statKeys: string[] = [];
  const comboKeys: string[] = [];
  for (const [d, es] of bySession) {
    const s = k.indexKeys(d);
    statKeys.push(s.stats);
    comboKeys.push(s.comboStats, s.tierStats, ...new Set(es.map((e) => s.tickerComboStats(e.ticker))));
  }
  for (const key of statKeys) pipe.hmget(key, ...STAT_FIELDS);
  for (const key of comboKeys) pipe.hgetall(key);
  pipe.zrange(k.sessions, -1, -1); // the newest session before the chunk, for the feed (FeedGate)
  const res = (await pipe.exec())!;
  const oi = openInterest.read(res);
  const w = new ChunkWriter(k);
  // The stored form of each latest version, reused by the feed below.
  const encodedOf = new Map<E, Buffer>();
  let i = openInterest.replies;
  for (const [d, es] of bySession) {
    const [err, stored] = res[i++] as [Error | null, (Buffer | null)[]];
    if (err) throw err;
    es.forEach((e, j) => {
      const row = spec.toRow(e, oi.get(`${d}|${e.osi}`) ?? 0);
      const encoded = encodeRow(row);
      encodedOf.set(e, encoded);
      if (spec.comprising) w.set(k.comprising(d), e.rowKey, spec.comprising(e));
      const was = stored[j];
      if (was !== null && was.equals(encoded)) return; // the same row again: nothing changes
      w.upsert(was === null ? null : decodeRow(was, e.rowKey, d), row, encoded, true);
    });
  }
  const storedCounters = new Map<string, (string | null)[]>();
  for (const key of statKeys) {
    const [err, vals] = res[i++] as [Error | null, (string | null)[]];
    if (err) throw err;
    storedCounters.set(key, vals);
  }
  const storedCombos = new Map<string, Record<string, string>>();
  for (const key of comboKeys) {
    const [err, hash] = res[i++] as [Error | null, Record<string, string>];
    if (err) throw err;
    storedCombos.set(key, hash);
  }
  const [err, newest] = res[i++] as [Error | null, string[]];
  if (err) throw err;
  return [...w.finish(storedCounters, storedCombos), ...feedOps(spec, events, keys, oi, encodedOf, new FeedGate(newest[0] ?? ''))];
}

/**
 * Every version of every live row of the chunk (FeedGate), in offset order, for the push streams'
 * feed (services/views/feed.ts): earlier versions of a row within the chunk are entries too, so
 * the feed does not depend on how events were cut into chunks. A version's open interest is the one
 * its chunk saw (a later correction re-derives the stored row, not the feed).
 */
function feedOps<E extends OrderFlowCommon>(
  spec: OrderFlowViewSpec<E>,
  events: SourceEvent[],
  keys: PartitionKeys,
  oi: Map<string, number>,
  encodedOf: Map<E, Buffer>,
  gate: FeedGate,
): RedisOp[] {
  const ops: RedisOp[] = [];
  for (const ev of events) {
    if (ev.value === null) continue;
    const e = ev.value as unknown as E;
    if ((spec.admits && !spec.admits(e)) || !gate.admits(e.sessionDate)) continue;
    const encoded = encodedOf.get(e) ?? encodeRow(spec.toRow(e, oi.get(`${e.sessionDate}|${e.osi}`) ?? 0));
    ops.push(feedAppend(keys, ev.offset, e.sessionDate, e.rowKey, encoded));
  }
  const trim = feedTrimOf(keys, events);
  if (trim) ops.push(trim);
  return ops;
}

async function projectOpenInterest(events: SourceEvent[], k: OrderFlowKeys, redis: Redis): Promise<RedisOp[]> {
  // The last value of each (session, contract) in the chunk counts.
  const latest = new Map<string, Map<string, number>>();
  for (const ev of events) {
    if (ev.value === null) continue;
    const e = ev.value as unknown as OpenInterestEvent;
    let m = latest.get(e.sessionDate);
    if (!m) latest.set(e.sessionDate, (m = new Map()));
    m.set(e.osi, Number(e.openInterest));
  }
  if (!latest.size) return [];
  // One round trip: the stored open interest, then the rows of each contract.
  const pipe = redis.pipeline();
  const openInterest = queueOpenInterest(pipe, k, latest.keys(), (d) => [...latest.get(d)!.keys()]);
  for (const [d, m] of latest) for (const osi of m.keys()) pipe.zrange(k.contract(d, osi), 0, -1);
  const res = (await pipe.exec())!;
  const stored = openInterest.read(res);
  const w = new ChunkWriter(k);
  // Rows whose open interest changed: session -> rowKey -> the new open interest.
  const rederive = new Map<string, Map<string, number>>();
  let i = openInterest.replies;
  for (const [d, m] of latest) {
    for (const [osi, oi] of m) {
      const [e2, members] = res[i++] as [Error | null, string[]];
      if (e2) throw e2;
      if (stored.get(`${d}|${osi}`) === oi) continue;
      w.openInterest(d, osi, oi);
      if (!members.length) continue;
      let r = rederive.get(d);
      if (!r) rederive.set(d, (r = new Map()));
      for (const mem of members) r.set(parseIndexMember(mem).rowKey, oi);
    }
  }
  if (rederive.size) {
    const p2 = redis.pipeline();
    for (const [d, r] of rederive) p2.hmgetBuffer(k.rows(d), ...r.keys());
    const rows = (await p2.exec())!;
    let n = 0;
    for (const [d, r] of rederive) {
      const [err, stored] = rows[n++] as [Error | null, (Buffer | null)[]];
      if (err) throw err;
      let j = 0;
      for (const [rowKey, oi] of r) {
        const was = stored[j++];
        if (was === null) continue; // an index entry without its row cannot happen; be safe
        const old = decodeRow(was, rowKey, d);
        const next = { ...old, ...openInterestFlags(old, oi) };
        const encoded = encodeRow(next);
        if (!encoded.equals(was)) w.upsert(old, next, encoded, false);
      }
    }
  }
  return w.finish();
}

type PipelineReplies = [Error | null, unknown][];

/**
 * Queues the reads of the stored open interest of contracts on `pipe` (one HMGET per
 * open-interest hash), so that they share a round trip with the chunk's other reads. They are the
 * pipeline's first `replies` replies; `read` gives the values keyed `<session>|<osi>` (absent
 * when none is stored).
 */
function queueOpenInterest(
  pipe: ChainableCommander,
  k: OrderFlowKeys,
  sessions: Iterable<string>,
  osisOf: (d: string) => string[],
): { replies: number; read(res: PipelineReplies): Map<string, number> } {
  const groups: { d: string; key: string; osis: string[] }[] = [];
  for (const d of sessions) {
    const byKey = groupBy(new Set(osisOf(d)), (osi) => k.openInterest(d, osi));
    for (const [key, osis] of byKey) groups.push({ d, key, osis });
  }
  for (const g of groups) pipe.hmget(g.key, ...g.osis.map(openInterestField));
  return {
    replies: groups.length,
    read(res) {
      const out = new Map<string, number>();
      groups.forEach((g, i) => {
        const [err, vals] = res[i] as [Error | null, (string | null)[]];
        if (err) throw err;
        g.osis.forEach((osi, j) => {
          if (vals[j] !== null) out.set(`${g.d}|${osi}`, Number(vals[j]));
        });
      });
      return out;
    },
  };
}

/** A projection of one order-flow view: its derived topic joined with the open interest. */
export function orderFlowProjection<E extends OrderFlowCommon>(spec: OrderFlowViewSpec<E>): Projection {
  // Sessions older than the newest few move to compact blocks (runtime/warm-tier.ts); rows and
  // open-interest events both name their session.
  return withWarmTier(hotOrderFlowProjection(spec), {
    layout: orderFlowLayout(spec.view),
    rowsTopic: spec.rows.name,
    sessionOf: (e) => (e.value as { sessionDate?: string } | null)?.sessionDate ?? null,
  });
}

function hotOrderFlowProjection<E extends OrderFlowCommon>(spec: OrderFlowViewSpec<E>): Projection {
  return {
    view: spec.view,
    format: spec.format,
    topics: [spec.rows, OPEN_INTEREST],
    // Rows projected before their contract's open interest are re-derived when it arrives: on a
    // replay without a lead topic that doubled the work of about half the rows.
    lead: OPEN_INTEREST,
    async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
      if (!events.length) return [];
      const k = orderFlowKeys(keys);
      // A chunk holds events of one topic-partition.
      if (events[0].topic.endsWith(OPEN_INTEREST.name)) return projectOpenInterest(events, k, redis);
      return projectRows(spec, events, keys, k, redis);
    },
  };
}
