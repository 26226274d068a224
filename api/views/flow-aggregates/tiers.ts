import { createHash } from 'node:crypto';
import type { RedisClient as Redis } from '../../../services/redis/client';
import { LRUCache } from 'lru-cache';
import {
  FLOW_AGGREGATES_VIEW,
  GROUP_IDS,
  cubeGroupsKey,
  decodeGroupIds,
  deriveKey,
  groupOf,
  sourceOf,
  suffixOf,
  unpackGroup,
  type DecodedGroup,
} from '../../../services/views/flow-aggregates';
import { PartitionKeys } from '../../../services/views/keys';
import { WarmKeys, warmField } from '../../../services/views/warm-tier';

/**
 * The cube's keys read from whichever tier holds their session (services/views/flow-aggregates/warm.ts):
 * one pipeline reads every partition's tier fields for the asked sessions, the keys as hot keys,
 * each session's group list and the tier fields again; the keys of a warm session are then
 * answered from the groups holding them (a second round trip, only for warm sessions). A session that moved between the two tier reads
 * (or whose groups went back to the hot tier before they were read) is read again, so an answer
 * never mixes an empty hot read with a warm session.
 */

/** A read of one key of (partition p, session d): a whole hash, one field of a hash, or a lex zset's members. */
export type CubeRead = { p: number; d: string; key: string } & ({ op: 'hash' } | { op: 'field'; field: string } | { op: 'members' });
/** Per read: hash -> field -> value; field -> value or null; members -> members in order. */
export type CubeAnswer = Record<string, Buffer> | Buffer | null | string[];

/**
 * Decoded groups per API process by the digest of their stored bytes (a group frozen again after a
 * move back has other bytes if its content changed), up to CACHED_GROUP_BYTES of stored (compressed)
 * bytes: a warm session read again decodes nothing.
 */
export const CACHED_GROUP_BYTES = 16 * 1024 * 1024;
const decoded = new LRUCache<string, DecodedGroup>({ maxSize: CACHED_GROUP_BYTES });

/** A group decoded (or cached), with the digest that names its bytes. */
function groupOfBody(body: Buffer): { digest: string; group: DecodedGroup } {
  const digest = createHash('sha1').update(body).digest('base64');
  let group = decoded.get(digest);
  if (!group) decoded.set(digest, (group = unpackGroup(body)), { size: Math.max(1, body.length) });
  return { digest, group };
}

/**
 * Derived keys of warm sessions (services/views/flow-aggregates/derived.ts) per API process, by
 * their suffix and the digests of the groups they were folded from, up to CACHED_DERIVED_BYTES of
 * packed blocks: a coarse question asked again folds nothing.
 */
export const CACHED_DERIVED_BYTES = 16 * 1024 * 1024;
const derived = new LRUCache<string, Map<string, Buffer>>({ maxSize: CACHED_DERIVED_BYTES });

function derivedKey(suffix: string, sources: readonly { digest: string; group: DecodedGroup }[]): Map<string, Buffer> {
  const id = `${suffix}\n${sources.map((s) => s.digest).join('\n')}`;
  let got = derived.get(id);
  if (got) return got;
  const src = sourceOf(suffix)!;
  const hashes: Map<string, Buffer>[] = [];
  for (const { group } of sources) {
    for (const [sfx, hash] of group) {
      if (hash instanceof Map && (src.suffix === null ? sfx.startsWith(`${src.kind}:`) : sfx === src.suffix)) hashes.push(hash);
    }
  }
  got = deriveKey(suffix, hashes);
  let size = 1;
  for (const [name, block] of got) size += name.length + block.length;
  derived.set(id, got, { size });
  return got;
}

/** Empties this process's caches of decoded groups and derived keys (benchmarks time first reads with it). */
export function clearCubeCaches(): void {
  decoded.clear();
  derived.clear();
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
    const ids = new Map<string, string[]>();
    pairs.forEach(([p, d], i) => {
      const stored = res[parts.length + reads.length + i][1] as string | null;
      if (before.has(`${p}/${d}`) && stored !== null) ids.set(`${p}/${d}`, decodeGroupIds(stored));
    });
    // A warm session without its list was moved back and frozen again between the reads: read again.
    if (ids.size !== before.size) continue;
    if (await answerWarm(redis, keysOf, reads, ids, out)) return out;
  }
  throw new Error('the flow-aggregates tiers kept moving while being read');
}

/** Fills in the answers of the reads of warm sessions from their groups; false if a group is gone (moved back meanwhile). */
async function answerWarm(
  redis: Redis,
  keysOf: ReadonlyMap<number, PartitionKeys>,
  reads: readonly CubeRead[],
  warm: ReadonlyMap<string, readonly string[]>,
  out: CubeAnswer[],
): Promise<boolean> {
  // The groups each warm (partition, session) needs, read in one pipeline: a stored key's, or
  // the groups a derived key is folded from (one underlying's, or every group of the source kind).
  const wanted = new Map<string, Set<string>>();
  const groupsOfRead = new Map<number, string[]>();
  reads.forEach((r, i) => {
    const ids = warm.get(`${r.p}/${r.d}`);
    if (ids === undefined) return;
    const suffix = suffixOf(keysOf.get(r.p)!, r.d, r.key);
    const src = sourceOf(suffix);
    let need: string[];
    if (!src) need = [groupOf(ids, suffix)].filter((id): id is string => id !== null);
    else if (src.suffix !== null) need = [groupOf(ids, src.suffix)].filter((id): id is string => id !== null);
    else need = ids.filter((id) => id.startsWith(`${src.kind}:`));
    groupsOfRead.set(i, need);
    const pd = `${r.p}/${r.d}`;
    if (!wanted.has(pd)) wanted.set(pd, new Set());
    for (const id of need) wanted.get(pd)!.add(id);
  });
  const asked = [...wanted].filter(([, ids]) => ids.size).map(([pd, ids]) => ({ pd, ids: [...ids] }));
  const pipe = redis.pipeline();
  for (const { pd, ids } of asked) {
    const at = pd.indexOf('/');
    pipe.hmgetBuffer(cubeGroupsKey(keysOf.get(Number(pd.slice(0, at)))!, pd.slice(at + 1)), ...ids);
  }
  const groups = new Map<string, { digest: string; group: DecodedGroup }>();
  const res = asked.length ? (await pipe.exec())! : [];
  for (let n = 0; n < asked.length; n++) {
    const [err, bodies] = res[n] as [Error | null, (Buffer | null)[]];
    if (err) throw err;
    for (let j = 0; j < bodies.length; j++) {
      if (bodies[j] === null) return false;
      groups.set(`${asked[n].pd}\n${asked[n].ids[j]}`, groupOfBody(bodies[j]!));
    }
  }
  for (const [i, ids] of groupsOfRead) {
    const r = reads[i];
    const suffix = suffixOf(keysOf.get(r.p)!, r.d, r.key);
    const sources = ids.map((id) => groups.get(`${r.p}/${r.d}\n${id}`)!);
    let got: Map<string, Buffer> | string[] | undefined;
    if (sourceOf(suffix)) got = derivedKey(suffix, sources);
    else got = sources.length ? sources[0].group.get(suffix) : undefined;
    if (r.op === 'members') out[i] = Array.isArray(got) ? got : [];
    else if (r.op === 'hash') out[i] = got instanceof Map ? Object.fromEntries(got) : {};
    else out[i] = got instanceof Map ? (got.get(r.field) ?? null) : null;
  }
  return true;
}
