import { setImmediate } from 'node:timers/promises';
import type { RedisClient as Redis } from '../../services/redis/client';
import type { PartitionKeys } from '../../services/views/keys';
import { HotKeySet, TableKeys, rowWrites, type TableLayout } from '../../services/views/table';
import {
  WarmKeys,
  hotSessionsKey,
  lastEventField,
  eachPackedBlockOfStored,
  packCompanion,
  packSessionMetas,
  packStateHashes,
  unpackBlock,
  unpackCompanion,
  unpackStateHashes,
  warmField,
  warmTierValue,
  type PackedBlock,
  type WarmStateHashes,
} from '../../services/views/warm-tier';
import { applyIfUnchanged, coalesceOps, type RedisOp } from './atomic-apply';
import type { Projection, SourceEvent } from './projection';

/**
 * Moves a view's older sessions to the warm tier inside the projection, so the move is exactly
 * once and restart-safe like any other write. What a session becomes is the view's SessionMover's
 * (a table view's blocks, services/views/warm-tier.ts; the flow-aggregates cube's groups); when:
 *
 * - **Freeze** (hot -> warm): at the end of a chunk of the rows topic (or, in a view with state
 *   hashes, of a state topic), a hot session of the partition that is older than its newest
 *   `hotSessions` (sessions with rows or state: a new session's open interest, arriving before
 *   the open, makes the oldest hot one old before the session's first print, so its move does not
 *   delay the opening prints), that the chunk does not write to and whose last row lies at least
 *   `quietMessages` offsets of the rows topic back, is packed into blocks, and its rows and
 *   indexes are unlinked, in the same compare-and-apply transaction as the chunk. The quiet rule
 *   keeps a session that is still being written (a backfill arriving newest first) hot until it
 *   is complete, instead of moving it back and forth every chunk.
 * - **Thaw** (warm -> hot): a chunk that writes to a warm session (late data, a redelivery, an
 *   open-interest change) first moves that session back to the hot tier in a transaction of its
 *   own, guarded by the partition's offsets and tier hash, so the view's writer only ever sees hot
 *   sessions; the session freezes again once it is quiet.
 * - **State alone**: a session that has state hashes (WarmTier.stateHashes: open interest) but no
 *   rows yet freezes its state alone once it is old by the same rule; its first rows thaw it.
 *
 * Neither move changes a row, so answers are the same from either tier. The layout a replay ends
 * with depends only on the events, not on how they were cut into chunks, as long as the quiet
 * offsets are at least the chunk size: a session the last chunk wrote to is then never quiet at its
 * end, whichever chunk its last event fell in, and the last chunk of either topic sees every
 * session and the rows topic's end.
 */

export interface WarmTierOptions {
  /** Sessions kept hot per partition (the newest ones). */
  hotSessions: number;
  /** Offsets of the rows topic a session must have been left alone for before it freezes. */
  quietMessages: number;
}

/**
 * How a view's session of one partition moves between the tiers: a table view's rows and indexes
 * (tableMover), or another layout of its own (the flow-aggregates cube). The session list is the
 * partition's `s` zset either way.
 */
export interface SessionMover {
  /** The writes that replace a hot session by its warm form, ending with its tier field (`redis` may be a transaction's client). */
  freezeOps(redis: Redis, keys: PartitionKeys, d: string): Promise<RedisOp[]>;
  /** The writes that restore a warm session and drop its warm keys (the tier field is left to the caller). */
  thawOps(redis: Redis, keys: PartitionKeys, d: string): Promise<RedisOp[]>;
}

/** A table view's mover: rows and indexes to blocks (services/views/warm-tier.ts) and back. */
export function tableMover<Row>(layout: TableLayout<Row>): SessionMover {
  if (!layout.warm) throw new Error(`${layout.view} declares no warm tier`);
  return {
    freezeOps: (redis, keys, d) => freezeOps(redis, layout, keys, d),
    thawOps: (c, keys, d) => thawTableOps(c, layout, keys, d),
  };
}

const moverOf = <Row>(m: TableLayout<Row> | SessionMover): SessionMover => ('freezeOps' in m ? m : tableMover(m));

export interface WarmTierSpec<Row> {
  /** The view's table layout (its tableMover), or a mover of its own. */
  layout: TableLayout<Row> | SessionMover;
  /** Name (without prefix) of the topic whose events are the rows. */
  rowsTopic: string;
  /** The session an event writes to (rows and joined topics alike), or null. */
  sessionOf(e: SourceEvent): string | null;
}

export const DEFAULT_HOT_SESSIONS = 3;
export const DEFAULT_QUIET_MESSAGES = 3_000;

/** The options from MDQ_HOT_SESSIONS and MDQ_WARM_QUIET_MESSAGES. */
export function warmTierOptions(env: NodeJS.ProcessEnv = process.env): WarmTierOptions {
  const hot = Number(env.MDQ_HOT_SESSIONS ?? DEFAULT_HOT_SESSIONS);
  const quiet = Number(env.MDQ_WARM_QUIET_MESSAGES ?? DEFAULT_QUIET_MESSAGES);
  if (!Number.isInteger(hot) || hot < 1) throw new Error(`MDQ_HOT_SESSIONS must be an integer >= 1, got ${env.MDQ_HOT_SESSIONS}`);
  if (!Number.isInteger(quiet) || quiet < 0) throw new Error(`MDQ_WARM_QUIET_MESSAGES must be an integer >= 0, got ${env.MDQ_WARM_QUIET_MESSAGES}`);
  return { hotSessions: hot, quietMessages: quiet };
}

const HSCAN_COUNT = 2_000;

/** `inner` with its older sessions moved to and from the warm tier (options: given, else read from the environment at each chunk). */
export function withWarmTier<Row>(inner: Projection, spec: WarmTierSpec<Row>, given?: WarmTierOptions): Projection {
  const mover = moverOf(spec.layout);
  const states = 'freezeOps' in spec.layout ? [] : (spec.layout.warm?.stateHashes ?? []);
  const stateSessionKeys = (k: TableKeys) => states.map((st) => st.sessions(k));
  // The version's hot-session count, fixed by its first chunk (hotSessionsKey), per version.
  const fixed = new Map<string, number>();
  const hotSessionsOf = async (keys: PartitionKeys, redis: Redis, want: number): Promise<number> => {
    const key = hotSessionsKey(keys.prefix, keys.view, keys.version);
    let n = fixed.get(key);
    if (n === undefined) {
      await redis.set(key, String(want), 'NX');
      fixed.set(key, (n = Number(await redis.get(key))));
    }
    return n;
  };
  return {
    ...inner,
    async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
      if (!events.length) return inner.project(events, keys, redis);
      const opts = given ?? warmTierOptions();
      const k = new TableKeys(keys);
      const w = new WarmKeys(keys);
      const lastOf = new Map<string, number>();
      for (const e of events) {
        const d = e.value === null ? null : spec.sessionOf(e);
        if (d) lastOf.set(d, e.offset);
      }
      // The tier hash and the partition's sessions in one round trip (both small), with the
      // sessions that have state (open interest), which count as sessions too.
      const rowsChunk = events[0].topic.endsWith(spec.rowsTopic);
      const stateKeys = stateSessionKeys(k);
      let [tier, stored, offsets, stateful] = await tierState(redis, k, w, keys, stateKeys);
      const thaw = [...lastOf.keys()].filter((d) => tier[warmField(d)] !== undefined);
      if (thaw.length) {
        for (const d of thaw) await thawSession(redis, mover, keys, d);
        [tier, stored, offsets, stateful] = await tierState(redis, k, w, keys, stateKeys);
      }
      const ops = await inner.project(events, keys, redis);
      // Only a rows chunk moves sessions, or a state chunk where the view has state: a new
      // session's open interest arrives before the open, so the move of the session it makes
      // old falls before the session's first print rather than on it.
      if (!rowsChunk && !states.length) return ops;
      // Beside the applied offsets (bookkeeping, like them: not part of the view's content).
      if (rowsChunk && lastOf.size) ops.push(['HSET', keys.offsets, ...[...lastOf].flatMap(([d, o]) => [lastEventField(d), String(o)])]);
      // How far the rows topic is: this chunk's end, or (a state chunk) what is applied of it.
      const rowsAt = rowsChunk ? events[events.length - 1].offset : appliedOffset(offsets, spec.rowsTopic);
      // The newest `hot` sessions with rows are kept hot, counting the newest session that has
      // only state so far when it is newer than all of them (tomorrow's open interest), never
      // more than that one: the API takes the newest `hot` - 1 sessions with rows for hot
      // without asking (api/tables/table-endpoint.ts). A session with state but no rows that is
      // older than the oldest hot one moves its state alone, back again when its rows arrive.
      const withRows = new Set(stored);
      if (rowsChunk) for (const d of lastOf.keys()) withRows.add(d);
      const newestWithRows = [...withRows].sort().pop() ?? '';
      const stateOnly = [...new Set([...stateful, ...(rowsChunk ? [] : lastOf.keys())])].filter((d) => !withRows.has(d));
      const ahead = stateOnly.filter((d) => d > newestWithRows).sort();
      const counted = [...withRows, ...ahead.slice(-1)].sort();
      const hot = await hotSessionsOf(keys, redis, opts.hotSessions);
      const old = counted.slice(0, Math.max(0, counted.length - hot));
      const oldestHot = counted.length >= hot ? counted[counted.length - hot] : '';
      for (const d of stateOnly) if (d < oldestHot) old.push(d);
      for (const d of old) {
        if (tier[warmField(d)] !== undefined || lastOf.has(d)) continue;
        const last = offsets[lastEventField(d)];
        if (last !== undefined && rowsAt - Number(last) < opts.quietMessages) continue;
        ops.push(...(await mover.freezeOps(redis, keys, d)));
      }
      return ops;
    },
  };
}

/** The applied offset of a topic (named without its prefix) in the offsets hash; -1 when none is. */
function appliedOffset(offsets: Record<string, string>, topic: string): number {
  const field = Object.keys(offsets).find((f) => f.endsWith(topic) && !f.startsWith('last:'));
  return field === undefined ? -1 : Number(offsets[field]);
}

/**
 * The tier hash, the partition's sessions, its offsets hash (with the sessions' last events) and
 * the sessions that have state hashes (`stateKeys`), in one round trip.
 */
async function tierState(
  redis: Redis,
  k: TableKeys,
  w: WarmKeys,
  keys: PartitionKeys,
  stateKeys: readonly string[],
): Promise<[Record<string, string>, string[], Record<string, string>, string[]]> {
  const pipe = redis.pipeline().hgetall(w.tier).zrange(k.segments, 0, -1).hgetall(keys.offsets);
  for (const key of stateKeys) pipe.zrange(key, 0, -1);
  const res = (await pipe.exec())! as [Error | null, unknown][];
  for (const [err] of res) if (err) throw err;
  const stateful = new Set(res.slice(3).flatMap(([, v]) => v as string[]));
  return [res[0][1] as Record<string, string>, res[1][1] as string[], res[2][1] as Record<string, string>, [...stateful]];
}

/**
 * Gives the event loop a turn every TURN_MS of work. Moving a `full` session's partition takes
 * tens of seconds of CPU (~37 µs a row); in one stretch it would hold back the process's other
 * partitions and its Kafka heartbeats (a consumer silent for the 30 s session timeout is evicted).
 */
class Turns {
  private since = Date.now();
  /** Whether TURN_MS have passed since the last turn (checked per row: no promise unless due). */
  get due(): boolean {
    return Date.now() - this.since >= TURN_MS;
  }
  async take(): Promise<void> {
    await setImmediate();
    this.since = Date.now();
  }
}
const TURN_MS = 20;

/** The writes that replace a hot session of one partition by its blocks. */
export async function freezeOps<Row>(redis: Redis, layout: TableLayout<Row>, keys: PartitionKeys, d: string): Promise<RedisOp[]> {
  const k = new TableKeys(keys);
  const w = new WarmKeys(keys);
  const hotKeys = new HotKeySet(layout, k, d);
  const blocks: PackedBlock[] = [];
  const turn = new Turns();
  for (const b of eachPackedBlockOfStored(layout, await hashEntries(redis, k.rows(d)), d, (rows) => hotKeys.add(rows))) {
    if (b) blocks.push(b);
    if (turn.due) await turn.take();
  }
  const ops: RedisOp[] = [];
  const hot = hotKeys.keys();
  ops.push(['UNLINK', hot[0], ...hot.slice(1)]);
  ops.push(['UNLINK', w.blocks(d), w.metas(d), w.metaHash(d)]);
  if (blocks.length) {
    ops.push(['HSET', w.blocks(d), ...blocks.flatMap((b) => [b.id, b.body])]);
    ops.push(['SET', w.metas(d), packSessionMetas(blocks.map((b) => b.meta))]);
  }
  for (const c of layout.warm?.companions ?? []) {
    const values = await hashEntries(redis, c.hash(k, d));
    ops.push(['UNLINK', c.hash(k, d), w.companion(d, c.name)]);
    const packed: (string | Buffer)[] = [];
    for (const b of blocks) {
      const entries = b.rowKeys.filter((rk) => values.has(rk)).map((rk): [string, Buffer] => [rk, values.get(rk)!]);
      if (entries.length) packed.push(b.id, packCompanion(c, entries));
    }
    if (packed.length) ops.push(['HSET', w.companion(d, c.name), ...packed]);
  }
  for (const st of layout.warm?.stateHashes ?? []) ops.push(...(await freezeStateOps(redis, st, k, w, d)));
  ops.push(['HSET', w.tier, warmField(d), warmTierValue(blocks)]);
  return ops;
}

/** The writes that replace a session's state hashes (and their registry) by one packed value. */
async function freezeStateOps(redis: Redis, st: WarmStateHashes, k: TableKeys, w: WarmKeys, d: string): Promise<RedisOp[]> {
  const registry = st.registry(k, d);
  const members = await redis.smembers(registry);
  const ops: RedisOp[] = [['UNLINK', w.state(d, st.name)]];
  if (!members.length) return ops;
  // One HSCAN each, pipelined: a small hash answers whole at once, and the flat reply needs no
  // conversion (HGETALL's object cost more than the packing); a larger one is read to its end.
  const pipe = redis.pipeline();
  for (const m of members) pipe.hscan(st.hash(k, d, m), '0', 'COUNT', HSCAN_COUNT);
  const res = (await pipe.exec())!;
  const hashes = new Map<string, string[]>();
  for (let i = 0; i < members.length; i++) {
    const [err, reply] = res[i] as [Error | null, [string, string[]]];
    if (err) throw err;
    hashes.set(members[i], reply[0] === '0' ? reply[1] : [...(await hashEntries(redis, st.hash(k, d, members[i])))].flatMap(([f, v]) => [f, v.toString()]));
  }
  ops.push(['UNLINK', registry, ...members.map((m) => st.hash(k, d, m))]);
  ops.push(['SET', w.state(d, st.name), packStateHashes(hashes)]);
  return ops;
}

/** The writes that restore a warm session's state hashes and their registry. */
async function thawStateOps(c: Redis, st: WarmStateHashes, k: TableKeys, w: WarmKeys, d: string): Promise<RedisOp[]> {
  const packed = await c.getBuffer(w.state(d, st.name));
  const ops: RedisOp[] = [];
  if (packed) {
    const hashes = unpackStateHashes(packed);
    for (const [m, flat] of hashes) if (flat.length) ops.push(['HSET', st.hash(k, d, m), ...flat]);
    if (hashes.size) ops.push(['SADD', st.registry(k, d), ...hashes.keys()]);
  }
  ops.push(['UNLINK', w.state(d, st.name)]);
  return ops;
}

/** A hash's fields and values (HSCAN). */
async function hashEntries(redis: Redis, key: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscanBuffer(key, cursor, 'COUNT', HSCAN_COUNT);
    cursor = next.toString();
    for (let i = 0; i < flat.length; i += 2) out.set(flat[i].toString(), flat[i + 1]);
  } while (cursor !== '0');
  return out;
}

/** The writes that restore a warm table session's rows, indexes and companions and drop its blocks. */
async function thawTableOps<Row>(c: Redis, layout: TableLayout<Row>, keys: PartitionKeys, d: string): Promise<RedisOp[]> {
  const k = new TableKeys(keys);
  const w = new WarmKeys(keys);
  const bodies = await c.hvalsBuffer(w.blocks(d));
  const ops: RedisOp[] = [];
  const turn = new Turns();
  for (const body of bodies) {
    for (const row of unpackBlock(layout, body, d)) ops.push(...rowWrites(layout, k, row));
    if (turn.due) await turn.take();
  }
  for (const comp of layout.warm?.companions ?? []) {
    for (const body of await c.hvalsBuffer(w.companion(d, comp.name)))
      for (const [rk, v] of unpackCompanion(comp, body)) ops.push(['HSET', comp.hash(k, d), rk, v]);
    ops.push(['UNLINK', w.companion(d, comp.name)]);
  }
  for (const st of layout.warm?.stateHashes ?? []) ops.push(...(await thawStateOps(c, st, k, w, d)));
  ops.push(['UNLINK', w.blocks(d), w.metas(d), w.metaHash(d)]);
  return ops;
}

/** Moves a warm session of one partition back to the hot tier (its own guarded transaction). */
export async function thawSession<Row>(redis: Redis, view: TableLayout<Row> | SessionMover, keys: PartitionKeys, d: string): Promise<void> {
  const mover = moverOf(view);
  const w = new WarmKeys(keys);
  for (;;) {
    const done = await applyIfUnchanged(redis, [keys.offsets, w.tier], async (c) => {
      if ((await c.hget(w.tier, warmField(d))) === null) return null; // thawed meanwhile
      const ops = await mover.thawOps(c, keys, d);
      ops.push(['HDEL', w.tier, warmField(d)]);
      return coalesceOps(ops);
    });
    if (done) return;
  }
}

/**
 * Freezes every hot session of a partition older than its newest `hotSessions` now, without
 * waiting for a chunk (the end of a replay, tests): the same writes as a chunk's move, in
 * transactions guarded by the partition's offsets. Returns the sessions frozen.
 */
export async function settleWarmTier<Row>(redis: Redis, view: TableLayout<Row> | SessionMover, keys: PartitionKeys, hotSessions: number): Promise<string[]> {
  const mover = moverOf(view);
  const k = new TableKeys(keys);
  const w = new WarmKeys(keys);
  const frozen: string[] = [];
  for (;;) {
    let d: string | undefined;
    const done = await applyIfUnchanged(redis, [keys.offsets, w.tier], async (c) => {
      const sessions = await c.zrange(k.segments, 0, -1);
      const tier = await c.hgetall(w.tier);
      d = sessions.slice(0, Math.max(0, sessions.length - hotSessions)).find((s) => tier[warmField(s)] === undefined);
      return d === undefined ? null : mover.freezeOps(c, keys, d);
    });
    if (done && d === undefined) return frozen;
    if (done) frozen.push(d!);
  }
}
