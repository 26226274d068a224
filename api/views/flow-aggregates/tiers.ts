import { createHash } from 'node:crypto';
import type { RedisClient as Redis } from '../../../services/redis/client';
import { LRUCache } from 'lru-cache';
import {
  FLOW_AGGREGATES_VIEW,
  GROUP_IDS,
  cubeGroupsKey,
  decodeGroupIds,
  groupOf,
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

function groupOfBody(body: Buffer): DecodedGroup {
  const id = createHash('sha1').update(body).digest('base64');
  let g = decoded.get(id);
  if (!g) decoded.set(id, (g = unpackGroup(body)), { size: Math.max(1, body.length) });
  return g;
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
  // The groups each warm (partition, session) needs, read in one pipeline.
  const wanted = new Map<string, Set<string>>();
  const groupOfRead = new Map<number, string | null>();
  reads.forEach((r, i) => {
    const ids = warm.get(`${r.p}/${r.d}`);
    if (ids === undefined) return;
    const id = groupOf(ids, suffixOf(keysOf.get(r.p)!, r.d, r.key));
    groupOfRead.set(i, id);
    if (id === null) return;
    const pd = `${r.p}/${r.d}`;
    if (!wanted.has(pd)) wanted.set(pd, new Set());
    wanted.get(pd)!.add(id);
  });
  const asked = [...wanted].map(([pd, ids]) => ({ pd, ids: [...ids] }));
  const pipe = redis.pipeline();
  for (const { pd, ids } of asked) {
    const at = pd.indexOf('/');
    pipe.hmgetBuffer(cubeGroupsKey(keysOf.get(Number(pd.slice(0, at)))!, pd.slice(at + 1)), ...ids);
  }
  const groups = new Map<string, DecodedGroup>();
  const res = asked.length ? (await pipe.exec())! : [];
  for (let n = 0; n < asked.length; n++) {
    const [err, bodies] = res[n] as [Error | null, (Buffer | null)[]];
    if (err) throw err;
    for (let j = 0; j < bodies.length; j++) {
      if (bodies[j] === null) return false;
      groups.set(`${asked[n].pd}\n${asked[n].ids[j]}`, groupOfBody(bodies[j]!));
    }
  }
  for (const [i, id] of groupOfRead) {
    const r = reads[i];
    const got = id === null ? undefined : groups.get(`${r.p}/${r.d}\n${id}`)!.get(suffixOf(keysOf.get(r.p)!, r.d, r.key));
    if (r.op === 'members') out[i] = Array.isArray(got) ? got : [];
    else if (r.op === 'hash') out[i] = got instanceof Map ? Object.fromEntries(got) : {};
    else out[i] = got instanceof Map ? (got.get(r.field) ?? null) : null;
  }
  return true;
}
