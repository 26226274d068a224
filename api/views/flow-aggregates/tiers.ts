import type { RedisClient as Redis } from '../../../services/redis/client';
import { LRUCache } from 'lru-cache';
import {
  FLOW_AGGREGATES_VIEW,
  GROUP_IDS,
  cubeGroupsKey,
  deriveEntries,
  derivationOf,
  groupOf,
  packBlock,
  sourceOf,
  suffixOf,
  decodeGroupList,
  unpackGroup,
  type DecodedGroup,
} from '../../../services/views/flow-aggregates';
import { PartitionKeys } from '../../../services/views/keys';
import { WarmKeys, warmField } from '../../../services/views/warm-tier';

/**
 * The cube's keys read from whichever tier holds their session (services/views/flow-aggregates/warm.ts):
 * one pipeline reads every partition's tier fields for the asked sessions, the keys as hot keys,
 * each session's group list and the tier fields again; the keys of a warm session are then
 * answered from the groups holding them, a level it does not store folded from its source's
 * (derived.ts; a second round trip, only for warm sessions and only for what is not cached). A
 * session that moved between the two tier reads
 * (or whose groups went back to the hot tier before they were read) is read again, so an answer
 * never mixes an empty hot read with a warm session.
 */

/** A read of one key of (partition p, session d): a whole hash, one field of a hash, or a lex zset's members. */
export type CubeRead = { p: number; d: string; key: string } & ({ op: 'hash' } | { op: 'field'; field: string } | { op: 'members' });
/**
 * Per read: hash -> block -> packed block, or, for a level a warm session derives (derived.ts),
 * its logical entries (field -> value) already folded; field -> value or null; members -> members in order.
 */
export type CubeAnswer = Record<string, Buffer> | ReadonlyMap<string, string> | Buffer | null | string[];

/**
 * Decoded groups per API process by their session's digest (warm.ts encodeGroupList: a session
 * frozen again with other content has another) and id, up to CACHED_GROUP_BYTES of stored
 * (compressed) bytes: a warm session read again fetches and decodes nothing.
 */
export const CACHED_GROUP_BYTES = 16 * 1024 * 1024;
const decoded = new LRUCache<string, DecodedGroup>({ maxSize: CACHED_GROUP_BYTES });

/**
 * Derived keys of warm sessions (services/views/flow-aggregates/derived.ts) per API process, by
 * their session's digest and suffix, up to CACHED_DERIVED_BYTES of entry text: a coarse question
 * asked again reads no group and folds nothing.
 */
export const CACHED_DERIVED_BYTES = 16 * 1024 * 1024;
const derived = new LRUCache<string, Map<string, string>>({ maxSize: CACHED_DERIVED_BYTES });

function deriveFrom(suffix: string, groups: readonly DecodedGroup[]): Map<string, string> {
  const src = sourceOf(suffix)!;
  const hashes: Map<string, Buffer>[] = [];
  for (const group of groups) {
    for (const [sfx, hash] of group) {
      if (hash instanceof Map && (src.suffix === null ? sfx.startsWith(`${src.kind}:`) : sfx === src.suffix)) hashes.push(hash);
    }
  }
  return deriveEntries(suffix, hashes);
}

const textSize = (m: ReadonlyMap<string, string>): number => {
  let n = 1;
  for (const [f, v] of m) n += f.length + v.length;
  return n;
};

/** Empties this process's caches of decoded groups and derived keys (benchmarks time first reads with it). */
export function clearCubeCaches(): void {
  decoded.clear();
  derived.clear();
}

/** One block of a derived key, packed as the hot tier would hold it (no reader asks for one today). */
function packedField(suffix: string, entries: ReadonlyMap<string, string>, block: string): Buffer | null {
  const { packing } = derivationOf(suffix)!;
  const mine = new Map([...entries].filter(([f]) => packing.blockOf(f) === block));
  return mine.size ? packBlock(block, mine, packing) : null;
}

const MAX_ATTEMPTS = 20;

/** Answers `reads` (in order) from the cube's version `version`. */
export async function readCube(redis: Redis, prefix: string, version: number, reads: readonly CubeRead[]): Promise<CubeAnswer[]> {
  if (!reads.length) return [];
  const keysOf = new Map<number, PartitionKeys>();
  const sessions = new Map<number, string[]>();
  for (const r of reads) {
    if (!keysOf.has(r.p)) keysOf.set(r.p, new PartitionKeys(prefix, FLOW_AGGREGATES_VIEW, version, r.p));
    const ds = sessions.get(r.p) ?? [];
    if (!ds.includes(r.d)) ds.push(r.d);
    sessions.set(r.p, ds);
  }
  const parts = [...sessions.keys()];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const pipe = redis.pipeline();
    const tierRead = () => {
      for (const p of parts) pipe.hmget(new WarmKeys(keysOf.get(p)!).tier, ...sessions.get(p)!.map(warmField));
    };
    tierRead();
    for (const r of reads) {
      if (r.op === 'hash') pipe.hgetallBuffer(r.key);
      else if (r.op === 'field') pipe.hgetBuffer(r.key, r.field);
      else pipe.zrange(r.key, 0, -1);
    }
    // Each session's group ids (none while hot), so a warm session needs one more round trip, not two.
    const pairs = parts.flatMap((p) => sessions.get(p)!.map((d) => [p, d] as const));
    for (const [p, d] of pairs) pipe.hget(cubeGroupsKey(keysOf.get(p)!, d), GROUP_IDS);
    tierRead();
    const res = (await pipe.exec())!;
    for (const [err] of res) if (err) throw err;
    // The warm (p, d) pairs, as read before and after the keys.
    const tiers = (from: number) => {
      const out = new Set<string>();
      parts.forEach((p, i) => {
        (res[from + i][1] as (string | null)[]).forEach((v, j) => {
          if (v !== null) out.add(`${p}/${sessions.get(p)![j]}`);
        });
      });
      return out;
    };
    const before = tiers(0);
    const after = tiers(parts.length + reads.length + pairs.length);
    if (before.size !== after.size || [...before].some((pd) => !after.has(pd))) continue;
    const out: CubeAnswer[] = reads.map((_, i) => res[parts.length + i][1] as CubeAnswer);
    if (!before.size) return out;
    const ids = new Map<string, { digest: string; ids: string[] }>();
    pairs.forEach(([p, d], i) => {
      const stored = res[parts.length + reads.length + i][1] as string | null;
      if (before.has(`${p}/${d}`) && stored !== null) ids.set(`${p}/${d}`, decodeGroupList(stored));
    });
    // A warm session without its list was moved back and frozen again between the reads: read again.
    if (ids.size !== before.size) continue;
    if (await answerWarm(redis, keysOf, reads, ids, out)) return out;
  }
  throw new Error('the flow-aggregates tiers kept moving while being read');
}

/**
 * Fills in the answers of the reads of warm sessions from their groups, those not cached read in
 * one pipeline; false if the session changed meanwhile (moved back, or frozen again).
 */
async function answerWarm(
  redis: Redis,
  keysOf: ReadonlyMap<number, PartitionKeys>,
  reads: readonly CubeRead[],
  warm: ReadonlyMap<string, { digest: string; ids: readonly string[] }>,
  out: CubeAnswer[],
): Promise<boolean> {
  // Per read: its suffix, and the groups it needs (a stored key's, or those a derived key is
  // folded from: one underlying's, or every group of the source kind) unless its answer is cached.
  const plan = new Map<number, { suffix: string; groups: string[] }>();
  const missing = new Map<string, Set<string>>();
  // The groups this read uses, held here too: caching the fetched ones may evict others.
  const held = new Map<string, DecodedGroup>();
  const heldDerived = new Map<number, Map<string, string>>();
  reads.forEach((r, i) => {
    const pd = `${r.p}/${r.d}`;
    const session = warm.get(pd);
    if (session === undefined) return;
    const suffix = suffixOf(keysOf.get(r.p)!, r.d, r.key);
    const src = sourceOf(suffix);
    let groups: string[];
    const folded = src ? derived.get(`${session.digest}\n${suffix}`) : undefined;
    if (folded) {
      heldDerived.set(i, folded);
      groups = [];
    } else if (!src) groups = [groupOf(session.ids, suffix)].filter((id): id is string => id !== null);
    else if (src.suffix !== null) groups = [groupOf(session.ids, src.suffix)].filter((id): id is string => id !== null);
    else groups = session.ids.filter((id) => id.startsWith(`${src.kind}:`));
    plan.set(i, { suffix, groups });
    for (const id of groups) {
      const cached = decoded.get(`${session.digest}\n${id}`);
      if (cached) {
        held.set(`${session.digest}\n${id}`, cached);
        continue;
      }
      if (!missing.has(pd)) missing.set(pd, new Set());
      missing.get(pd)!.add(id);
    }
  });
  if (missing.size) {
    const asked = [...missing].map(([pd, ids]) => ({ pd, ids: [...ids] }));
    const pipe = redis.pipeline();
    for (const { pd, ids } of asked) {
      const at = pd.indexOf('/');
      // The list again: the groups must be those of the digest they are cached under.
      pipe.hmgetBuffer(cubeGroupsKey(keysOf.get(Number(pd.slice(0, at)))!, pd.slice(at + 1)), GROUP_IDS, ...ids);
    }
    const res = (await pipe.exec())!;
    for (let n = 0; n < asked.length; n++) {
      const [err, bodies] = res[n] as [Error | null, (Buffer | null)[]];
      if (err) throw err;
      const { digest } = warm.get(asked[n].pd)!;
      if (bodies[0] === null || decodeGroupList(bodies[0].toString()).digest !== digest) return false;
      for (let j = 1; j < bodies.length; j++) {
        if (bodies[j] === null) return false;
        const g = unpackGroup(bodies[j]!);
        held.set(`${digest}\n${asked[n].ids[j - 1]}`, g);
        decoded.set(`${digest}\n${asked[n].ids[j - 1]}`, g, { size: Math.max(1, bodies[j]!.length) });
      }
    }
  }
  for (const [i, { suffix, groups }] of plan) {
    const r = reads[i];
    const { digest } = warm.get(`${r.p}/${r.d}`)!;
    const group = (id: string) => held.get(`${digest}\n${id}`)!;
    if (sourceOf(suffix)) {
      const key = `${digest}\n${suffix}`;
      let entries = heldDerived.get(i);
      if (!entries) {
        entries = deriveFrom(suffix, groups.map(group));
        derived.set(key, entries, { size: textSize(entries) });
      }
      if (r.op === 'hash') out[i] = entries;
      else if (r.op === 'field') out[i] = packedField(suffix, entries, r.field);
      else out[i] = [];
      continue;
    }
    const got = groups.length ? group(groups[0]).get(suffix) : undefined;
    if (r.op === 'members') out[i] = Array.isArray(got) ? got : [];
    else if (r.op === 'hash') out[i] = got instanceof Map ? Object.fromEntries(got) : {};
    else out[i] = got instanceof Map ? (got.get(r.field) ?? null) : null;
  }
  return true;
}
