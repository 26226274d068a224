/**
 * Redis CPU per row of the two ways a chunk's writes were applied atomically:
 * `npx tsx test/bench/apply-path-probe.ts [rows]` (default 100,000).
 *
 * Starts its own redis-server (no persistence) on a free port, computes the prints view's writes
 * of the first N prints of a simulated `full` session (the same data as order-flow-memory.ts) in
 * chunks of 500, then applies them three times each way into an emptied Redis and prints Redis's
 * CPU (used_cpu_user + sys) and the wall time per row:
 *  - `lua`: the compare-and-apply Lua script the runtime used before (kept here, verbatim), given
 *    the writes as one JSON document;
 *  - `multi`: applyAtomically as it is now (WATCH the offsets, compare, MULTI/EXEC).
 * The latest figures are in docs/benchmarks.md.
 */
import { spawn } from 'child_process';
import Redis from 'ioredis';
import { freePort } from '../../services/stack/process';
import { PartitionKeys } from '../../services/views/keys';
import { orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { applyAtomically, coalesceOps, type RedisOp } from '../../projections/runtime/atomic-apply';

/** The earlier apply script. */
const LUA_APPLY = `
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
import type { Projection } from '../../projections/runtime/projection';
import { eventsByPartition, orderFlowSample } from '../support/order-flow-sample';

const N = Number(process.argv[2] ?? 100_000);
const DATE = '2024-05-01';

async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
}

/** The chunks' ops of the prints view, per partition, computed against an empty view. */
async function chunksOf(redis: Redis, projection: Projection, topic: string, events: readonly { ticker: string }[]) {
  const byPart = eventsByPartition(topic, events);
  const out: { keys: PartitionKeys; first: number; last: number; ops: RedisOp[] }[] = [];
  for (const [p, evs] of byPart) {
    const keys = new PartitionKeys('mdq', projection.view, 1, p);
    for (let i = 0; i < evs.length; i += 500) {
      const chunk = evs.slice(i, i + 500).map((e) => ({ ...e, value: { ...e.value } }));
      out.push({ keys, first: i, last: chunk[chunk.length - 1].offset, ops: await projection.project(chunk, keys, redis) });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const redis = new Redis({ port });
  await redis.ping();
  const { prints } = orderFlowSample(N, DATE);
  const topic = orderFlowPrintsProjection.topics[0].name;
  const chunks = await chunksOf(redis, orderFlowPrintsProjection, topic, prints);
  console.log(`${prints.length} rows, ${chunks.length} chunks`);
  for (let round = 0; round < 3; round++) {
    for (const mode of ['lua', 'multi']) {
      await redis.flushall();
      const c0 = await redisCpu(redis);
      const t0 = Date.now();
      for (const ch of chunks) {
        if (mode === 'lua') {
          // The script took JSON text: binary values (MessagePack rows) go in as
          // latin1 text, which JSON carries as UTF-8 (up to 2 bytes per byte): close enough for
          // comparing the two paths' cost.
          const ops = coalesceOps(ch.ops).map((op) => op.map((a) => (typeof a === 'string' ? a : a.toString('latin1'))));
          const keys = [ch.keys.offsets, ...new Set(ops.map((o) => o[1]))];
          const [ok] = (await redis.eval(LUA_APPLY, keys.length, ...keys, topic, String(ch.first - 1), String(ch.last), JSON.stringify(ops))) as [
            number,
            string,
          ];
          if (ok !== 1) throw new Error('not applied');
        } else {
          const r = await applyAtomically(redis, ch.keys.offsets, topic, ch.first - 1, ch.last, ch.ops);
          if (!r.applied) throw new Error('not applied');
        }
      }
      const cpu = (await redisCpu(redis)) - c0;
      console.log(
        `${mode} round ${round}: redis ${((cpu / prints.length) * 1e6).toFixed(2)} us/row, wall ${(((Date.now() - t0) * 1000) / prints.length).toFixed(2)} us/row`,
      );
    }
  }
  redis.disconnect();
  server.kill();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
