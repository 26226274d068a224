import type { RedisClient as Redis } from '../../services/redis/client';
import type { PartitionKeys } from '../../services/views/keys';
import {
  DERIVATIONS,
  FlowAggregateKeys,
  GROUP_IDS,
  deriveKey,
  derivationOf,
  cubeGroupsKey,
  decodeGroupList,
  encodeGroupList,
  packSession,
  sessionDataKeys,
  suffixOf,
  unpackGroup,
  type SessionEntry,
} from '../../services/views/flow-aggregates';
import { WarmKeys, warmField } from '../../services/views/warm-tier';
import type { RedisOp } from '../runtime/atomic-apply';
import type { SessionMover } from '../runtime/warm-tier';

/**
 * How a session of the flow-aggregates cube moves between the tiers (services/views/flow-aggregates/warm.ts),
 * for projections/runtime/warm-tier.ts withWarmTier: freezing reads every data key of the session
 * in one pipeline and replaces them by their groups; thawing writes each key back as it was.
 */
export const cubeMover: SessionMover = {
  async freezeOps(redis: Redis, keys: PartitionKeys, d: string): Promise<RedisOp[]> {
    const k = new FlowAggregateKeys(keys);
    const tickers = await redis.zrange(k.tickers(d), 0, -1);
    const expPipe = redis.pipeline();
    for (const t of tickers) expPipe.zrange(k.atmExpirations(d, t), 0, -1);
    const exps = new Map<string, string[]>();
    ((tickers.length ? await expPipe.exec() : []) ?? []).forEach(([err, got], i) => {
      if (err) throw err;
      exps.set(tickers[i], got as string[]);
    });
    const names = sessionDataKeys(k, d, tickers, exps);
    // Derived levels are unlinked but not kept: reads and a move back fold them from what is.
    const kept = names.filter((key) => !derivationOf(suffixOf(keys, d, key)));
    const pipe = redis.pipeline();
    for (const key of kept) {
      if (isZset(keys, d, key)) pipe.zrange(key, 0, -1);
      else pipe.hgetallBuffer(key);
    }
    const entries: SessionEntry[] = [];
    (await pipe.exec())!.forEach(([err, got], i) => {
      if (err) throw err;
      const suffix = suffixOf(keys, d, kept[i]);
      if (Array.isArray(got)) entries.push({ suffix, members: got as string[] });
      else {
        const hash = got as Record<string, Buffer>;
        entries.push({ suffix, fields: Object.keys(hash), values: Object.values(hash) });
      }
    });
    const groups = packSession(entries);
    const ops: RedisOp[] = [];
    for (let i = 0; i < names.length; i += 500) ops.push(['UNLINK', names[i], ...names.slice(i + 1, i + 500)]);
    ops.push(['UNLINK', cubeGroupsKey(keys, d)]);
    ops.push(['HSET', cubeGroupsKey(keys, d), GROUP_IDS, encodeGroupList(groups), ...groups.flatMap((g) => [g.id, g.body])]);
    ops.push(['HSET', new WarmKeys(keys).tier, warmField(d), String(groups.length)]);
    return ops;
  },

  async thawOps(c: Redis, keys: PartitionKeys, d: string): Promise<RedisOp[]> {
    const stored = await c.hget(cubeGroupsKey(keys, d), GROUP_IDS);
    const ids = stored === null ? [] : decodeGroupList(stored).ids;
    const ops: RedisOp[] = [];
    const bodies = ids.length ? await c.hmgetBuffer(cubeGroupsKey(keys, d), ...ids) : [];
    const kept = new Map<string, Map<string, Buffer> | string[]>();
    bodies.forEach((body, i) => {
      if (body === null) throw new Error(`warm group ${ids[i]} of ${keys.key(d)} is missing`);
      for (const [suffix, got] of unpackGroup(body)) kept.set(suffix, got);
    });
    // The derived levels back from their sources: the hot tier's bytes (derived.ts).
    const hashesOf = (kind: string) => [...kept].filter(([s, v]) => s.startsWith(`${kind}:`) && v instanceof Map).map(([, v]) => v as Map<string, Buffer>);
    const all = new Map<string, Map<string, Buffer> | string[]>(kept);
    for (const [kind, how] of Object.entries(DERIVATIONS)) {
      if (!how.perTicker) {
        const sources = hashesOf(how.source);
        if (sources.length) all.set(kind, deriveKey(kind, sources));
        continue;
      }
      for (const [s, v] of kept) {
        if (!s.startsWith(`${how.source}:`) || !(v instanceof Map)) continue;
        const suffix = `${kind}:${s.slice(how.source.length + 1)}`;
        all.set(suffix, deriveKey(suffix, [v]));
      }
    }
    for (const [suffix, got] of all) {
      const key = keys.key(d, suffix);
      if (Array.isArray(got)) ops.push(['ZADD', key, ...got.flatMap((m) => ['0', m])]);
      else if (got.size) ops.push(['HSET', key, ...[...got].flatMap(([f, v]) => [f, v])]);
    }
    ops.push(['UNLINK', cubeGroupsKey(keys, d)]);
    return ops;
  },
};

/** The at-the-money expirations (`<D>:ae:<TICKER>`) are the session's only zsets among its data keys. */
const isZset = (keys: PartitionKeys, d: string, key: string): boolean => suffixOf(keys, d, key).startsWith('ae:');
