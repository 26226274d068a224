import type Redis from 'ioredis';

/** One Redis write of a projection: command name, then its key, then the other arguments. */
export type RedisOp = [command: string, key: string, ...args: string[]];

/**
 * Applies a chunk's writes and advances the partition's applied offset in one atomic step, but
 * only if the stored offset is still the one the chunk was computed against. A second instance
 * that briefly owns the same partition during a rebalance, or a redelivery, can therefore never
 * apply a message twice: its compare fails and it re-reads the offset.
 *
 * A projection that consumes several co-partitioned topics reads state the other topics wrote (an
 * open-interest join), so its chunk also names the applied offsets of those topics it was
 * computed against: if one of them moved meanwhile (another instance applied a chunk of the other
 * topic of this partition, e.g. during a rebalance), nothing is applied and the chunk is computed
 * again. The partition's whole state is therefore updated serially, whatever the assignment.
 *
 * KEYS[1] = offsets hash, KEYS[2..] = every key the ops touch (declared for Redis Cluster)
 * ARGV[1] = topic, ARGV[2] = expected applied offset (-1: none), ARGV[3] = new offset,
 * ARGV[4] = JSON array of ops, ARGV[5..] = pairs (other topic, its expected applied offset)
 * Returns {1, new offset}, {0, stored offset} (this topic moved), {2, stored offset} (another did).
 */
const SCRIPT = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then cur = '-1' end
if cur ~= ARGV[2] then return {0, cur} end
for i = 5, #ARGV, 2 do
  local o = redis.call('HGET', KEYS[1], ARGV[i])
  if not o then o = '-1' end
  if o ~= ARGV[i + 1] then return {2, cur} end
end
local ops = cjson.decode(ARGV[4])
for i = 1, #ops do redis.call(unpack(ops[i])) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return {1, ARGV[3]}
`;

/**
 * Commands whose consecutive uses on one key merge into one call (variadic, order-preserving),
 * with how many arguments make one item: ZADD score member, HSET field value, the others a member.
 */
const ITEM_ARGS: Record<string, number> = { ZADD: 2, HSET: 2, ZREM: 1, HDEL: 1, SADD: 1, SREM: 1 };
/** Lua's unpack is limited to a few thousand values; every call stays well below. */
const MAX_OP_ARGS = 2_000;

/**
 * Merges a chunk's writes so that Redis runs one call per key and command where the projection
 * wrote many (a chunk of 500 prints touches each sort index 500 times), and splits a variadic
 * call longer than MAX_OP_ARGS (a projection may hand over one call per key). Only consecutive
 * uses on the same key merge: an op joins the previous op on its key when that op has the same
 * command, so the order of the writes to each key is unchanged and the result is identical. Ops on
 * different keys are independent, so their relative order does not matter.
 */
export function coalesceOps(ops: readonly RedisOp[]): RedisOp[] {
  const out: RedisOp[] = [];
  const lastOnKey = new Map<string, number>();
  // Ops are copied only when another merges into them (most ops of a chunk are on keys written
  // once), so the input is never modified.
  const copied = new Set<number>();
  const add = (op: RedisOp) => {
    const [cmd, key] = op;
    const at = lastOnKey.get(key);
    if (at !== undefined && cmd in ITEM_ARGS) {
      let prev = out[at];
      if (prev[0] === cmd && prev.length + op.length - 2 <= MAX_OP_ARGS) {
        if (!copied.has(at)) {
          out[at] = prev = [...prev];
          copied.add(at);
        }
        for (let i = 2; i < op.length; i++) prev.push(op[i]);
        return;
      }
    }
    out.push(op);
    lastOnKey.set(key, out.length - 1);
  };
  for (const op of ops) {
    const item = ITEM_ARGS[op[0]];
    if (item === undefined || op.length - 2 <= MAX_OP_ARGS) {
      add(op);
      continue;
    }
    const n = Math.floor(MAX_OP_ARGS / item) * item;
    for (let i = 2; i < op.length; i += n) add([op[0], op[1], ...op.slice(i, i + n)]);
  }
  return out;
}

interface WithApply {
  mdqApplyBatch(...args: (string | number)[]): Promise<[number, string]>;
}

export function installApplyScript(redis: Redis): void {
  if (!(redis as unknown as Partial<WithApply>).mdqApplyBatch) {
    redis.defineCommand('mdqApplyBatch', { lua: SCRIPT });
  }
}

export interface ApplyResult {
  applied: boolean;
  /** Not applied because another topic of the partition moved (compute the chunk again). */
  conflict?: boolean;
  /** The partition's applied offset after the call. */
  offset: number;
}

export async function applyAtomically(
  redis: Redis,
  offsetsKey: string,
  topic: string,
  expected: number,
  next: number,
  ops: RedisOp[],
  /** Other topics of the partition the chunk was computed against, with their applied offsets. */
  others: readonly [topic: string, applied: number][] = [],
): Promise<ApplyResult> {
  installApplyScript(redis);
  ops = coalesceOps(ops);
  const keys = [offsetsKey, ...new Set(ops.map((o) => o[1]))];
  const [ok, offset] = await (redis as unknown as WithApply).mdqApplyBatch(
    keys.length,
    ...keys,
    topic,
    String(expected),
    String(next),
    JSON.stringify(ops),
    ...others.flatMap(([t, o]) => [t, String(o)]),
  );
  return { applied: ok === 1, conflict: ok === 2, offset: Number(offset) };
}

/** Applied offsets of several topics of one partition (-1 = none). */
export async function readAppliedOffsets(redis: Redis, offsetsKey: string, topics: readonly string[]): Promise<[string, number][]> {
  if (!topics.length) return [];
  const vs = await redis.hmget(offsetsKey, ...topics);
  return topics.map((t, i) => [t, vs[i] === null ? -1 : Number(vs[i])]);
}

export async function readAppliedOffset(redis: Redis, offsetsKey: string, topic: string): Promise<number> {
  const v = await redis.hget(offsetsKey, topic);
  return v === null ? -1 : Number(v);
}

// Raises `seen:<topic>` to the offset only if it is higher (batches of a partition can race).
const RAISE = `local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if tonumber(ARGV[2]) > cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1`;

/**
 * Records the last offset the consumer moved past, transaction markers included. It is not part
 * of exactly-once state (the applied offset is); it only tells lag reporting that a partition
 * whose remaining offsets are markers is caught up.
 */
export async function recordSeenOffset(redis: Redis, offsetsKey: string, topic: string, offset: number): Promise<void> {
  await redis.eval(RAISE, 1, offsetsKey, `seen:${topic}`, String(offset));
}

/** The furthest point a view has consumed to: the applied offset or, past markers, the seen one. */
export async function readConsumedOffset(redis: Redis, offsetsKey: string, topic: string): Promise<number> {
  const [applied, seen] = await redis.hmget(offsetsKey, topic, `seen:${topic}`);
  return Math.max(applied === null ? -1 : Number(applied), seen === null ? -1 : Number(seen));
}
