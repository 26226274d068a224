import calculateSlot from 'cluster-key-slot';
import type { Command, default as IORedis } from 'ioredis';
import { isCluster, type RedisClient as Redis } from '../../services/redis/client';
import { RespBatch } from '../../services/redis/encoded-command';

/**
 * One Redis write of a projection: command name, then its key, then the other arguments (binary
 * values, such as stored order-flow rows, as Buffers).
 */
export type RedisOp = [command: string, key: string, ...args: (string | Buffer)[]];

/**
 * Commands whose consecutive uses on one key merge into one call (variadic, order-preserving),
 * with how many arguments make one item: ZADD score member, HSET field value, the others a member.
 */
const ITEM_ARGS: Record<string, number> = { ZADD: 2, HSET: 2, ZREM: 1, HDEL: 1, SADD: 1, SREM: 1 };
/** The longest variadic call sent (arguments after the key): bounds one command's size in Redis's query buffer. */
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

export interface ApplyResult {
  applied: boolean;
  /** Not applied because another topic of the partition moved (compute the chunk again). */
  conflict?: boolean;
  /** The partition's applied offset after the call. */
  offset: number;
}

interface ConnectionPool {
  idle: IORedis[];
  closed: boolean;
}
/**
 * Idle transaction connections, by the client they were duplicated from and the server they
 * reach (WATCH state belongs to a connection, so each apply in flight holds one). On a Redis
 * Cluster a transaction runs on a connection to the master of its key's slot: the partition's
 * hash tag puts every key of the transaction there. They close when that client ends.
 */
const pools = new WeakMap<Redis, Map<string, ConnectionPool>>();

function poolOf(redis: Redis, node: string): ConnectionPool {
  let byNode = pools.get(redis);
  if (!byNode) {
    const m = (byNode = new Map());
    pools.set(redis, m);
    redis.once('end', () => {
      for (const p of m.values()) {
        p.closed = true;
        for (const c of p.idle.splice(0)) c.disconnect();
      }
    });
  }
  let pool = byNode.get(node);
  if (!pool) byNode.set(node, (pool = { idle: [], closed: false }));
  return pool;
}

/** The server a transaction on `key` runs on: the client itself, or the master of its slot. */
function transactionServer(redis: Redis, key: string): { node: string; server: IORedis } {
  if (!isCluster(redis)) return { node: '', server: redis };
  const node = redis.slots[calculateSlot(key)]?.[0];
  const server = node === undefined ? undefined : redis.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === node);
  if (!server) throw new Error(`no master known for the slot of ${key} (cluster not ready)`);
  return { node, server };
}

async function withTransactionConnection<T>(redis: Redis, key: string, run: (c: IORedis) => Promise<T>): Promise<T> {
  const { node, server } = transactionServer(redis, key);
  const pool = poolOf(redis, node);
  if (pool.closed) throw new Error('Connection is closed.');
  let c = pool.idle.pop();
  if (!c || c.status !== 'ready') {
    c?.disconnect();
    c = server.duplicate({ lazyConnect: true, enableOfflineQueue: false, autoResendUnfulfilledCommands: false, enableAutoPipelining: false });
    // Errors reach the caller through the failed command; the event only must not go unhandled.
    c.on('error', () => {});
    try {
      await c.connect();
    } catch (err) {
      c.disconnect();
      throw err;
    }
  }
  try {
    const out = await run(c);
    if (pool.closed) c.disconnect();
    else pool.idle.push(c);
    return out;
  } catch (err) {
    // Its WATCH state (or the reason it failed) is unknown: never reuse it.
    c.disconnect();
    throw err;
  }
}

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
 * How: on a connection of its own, WATCH the partition's offsets hash, read the offsets and
 * compare; then MULTI, the writes, the new offset, EXEC. Every apply of the partition writes that
 * hash, so EXEC runs nothing if any other apply (or a `seen` marker, recordSeenOffset) landed
 * between the compare and it; that is reported as a conflict and the chunk is computed again.
 * Why not one Lua script given the writes as a document (the same semantics): Redis spends about
 * a quarter more CPU per row decoding it and converting every argument between Lua and Redis
 * (test/bench/apply-path-probe.ts), and Redis's one thread is what limits a projector.
 *
 * The connection must never carry the sequence across a reconnect (an EXEC without its WATCH
 * would apply unconditionally), so transaction connections have no offline queue and never
 * resend a command that was in flight; a connection that failed mid-sequence is closed.
 */
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
  ops = coalesceOps(ops);
  return withTransactionConnection<ApplyResult>(redis, offsetsKey, async (c) => {
    const [[watchErr], [readErr, stored]] = (await c
      .pipeline()
      .watch(offsetsKey)
      .hmget(offsetsKey, topic, ...others.map(([t]) => t))
      .exec())! as [Error | null, (string | null)[]][];
    if (watchErr ?? readErr) throw watchErr ?? readErr;
    const cur = stored[0] ?? '-1';
    const moved = cur !== String(expected);
    if (moved || others.some(([, o], i) => (stored[i + 1] ?? '-1') !== String(o))) {
      await c.unwatch();
      return { applied: false, conflict: !moved, offset: Number(cur) };
    }
    const tx = c.multi();
    // Wire forms written by us (services/redis/encoded-command.ts): ioredis's own cost ~14 % of
    // the projector's CPU building them.
    const resp = new RespBatch(c);
    // multi() returns a Pipeline, whose sendCommand queues a Command; its type does not show it.
    const queue = tx as unknown as { sendCommand(command: Command): unknown };
    for (const op of ops) queue.sendCommand(resp.command(op));
    tx.hset(offsetsKey, topic, String(next));
    const res = await tx.exec();
    // null: a watched write landed after the compare (another apply of the partition).
    if (res === null) return { applied: false, conflict: true, offset: Number(cur) };
    // A command refused when queued (arity, unknown command) makes EXEC run nothing; one that
    // fails as it runs (a key of the wrong type: a bug) does not undo the others, as a failing
    // call did not undo the earlier ones in the Lua script before. Either way it is reported.
    const failed = res.find(([err]) => err);
    if (failed) throw failed[0];
    return { applied: true, conflict: false, offset: next };
  });
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

/**
 * Applies writes that `build` computes from reads it makes on the given connection, only if none
 * of the watched keys changed since `build` started: WATCH, build, MULTI, the writes, EXEC. For
 * layout changes that must not interleave with a chunk of the same partition (a warm session
 * moved back to the hot tier before the chunk that writes to it). `build` returns null to apply
 * nothing. Returns whether the writes were applied; on false the caller reads again and retries.
 */
export async function applyIfUnchanged(redis: Redis, watched: readonly string[], build: (c: Redis) => Promise<RedisOp[] | null>): Promise<boolean> {
  return withTransactionConnection<boolean>(redis, watched[0]!, async (c) => {
    await c.watch(...watched);
    const ops = await build(c);
    if (ops === null) {
      await c.unwatch();
      return true;
    }
    const tx = c.multi();
    const resp = new RespBatch(c);
    const queue = tx as unknown as { sendCommand(command: Command): unknown };
    for (const op of coalesceOps(ops)) queue.sendCommand(resp.command(op));
    const res = await tx.exec();
    if (res === null) return false;
    const failed = res.find(([err]) => err);
    if (failed) throw failed[0];
    return true;
  });
}
