import type Redis from 'ioredis';

/** One Redis write of a projection: command name, then its key, then the other arguments. */
export type RedisOp = [command: string, key: string, ...args: string[]];

/**
 * Applies a chunk's writes and advances the partition's applied offset in one atomic step, but
 * only if the stored offset is still the one the chunk was computed against. A second instance
 * that briefly owns the same partition during a rebalance, or a redelivery, can therefore never
 * apply a message twice: its compare fails and it re-reads the offset.
 *
 * KEYS[1] = offsets hash, KEYS[2..] = every key the ops touch (declared for Redis Cluster)
 * ARGV[1] = topic, ARGV[2] = expected applied offset (-1: none), ARGV[3] = new offset,
 * ARGV[4] = JSON array of ops
 */
const SCRIPT = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then cur = '-1' end
if cur ~= ARGV[2] then return {0, cur} end
local ops = cjson.decode(ARGV[4])
for i = 1, #ops do redis.call(unpack(ops[i])) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return {1, ARGV[3]}
`;

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
): Promise<ApplyResult> {
  installApplyScript(redis);
  const keys = [offsetsKey, ...new Set(ops.map((o) => o[1]))];
  const [ok, offset] = await (redis as unknown as WithApply).mdqApplyBatch(
    keys.length,
    ...keys,
    topic,
    String(expected),
    String(next),
    JSON.stringify(ops),
  );
  return { applied: ok === 1, offset: Number(offset) };
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
