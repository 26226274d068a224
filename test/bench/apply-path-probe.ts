/**
 * Redis CPU per row of the two ways a chunk's writes were applied atomically:
 * `npx tsx test/bench/apply-path-probe.ts [rows]` (default 100,000).
 *
 * Starts its own redis-server (no persistence) on a free port, computes the prints view's writes
 * of the first N prints of a simulated `full` session (the same data as order-flow-memory.ts) in
 * chunks of 500, then applies them three times each way into an emptied Redis and prints Redis's
 * CPU (used_cpu_user + sys) and the wall time per row:
 *  - `lua`: the compare-and-apply Lua script used until 2026-11-24 (kept here, verbatim), given
 *    the writes as one JSON document;
 *  - `multi`: applyAtomically as it is now (WATCH the offsets, compare, MULTI/EXEC).
 * Measured 2026-11-24 (100,000 rows, two runs of three rounds): lua 18.3-22.1 µs of Redis CPU per
 * row, multi 14.3-15.0.
 */
import { spawn } from 'child_process';
import Redis from 'ioredis';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { partitionOf } from '../../services/kafka/partition';
import { freePort } from '../../services/stack/process';
import { PartitionKeys } from '../../services/views/keys';
import type { ConsolidatedTradeEvent, EnrichedPrintEvent, OptionPrint } from '../../services/domain/order-flow';
import { RISK_FREE_RATE } from '../../services/domain/rates';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { PROFILES } from '../../ingest/simulator/profiles';
import { OrderFlowPartition } from '../../projections/order-flow-processor/partition-state';
import { orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { applyAtomically, coalesceOps, type RedisOp } from '../../projections/runtime/atomic-apply';

/** The apply script until 2026-11-24. */
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
import type { Projection, SourceEvent } from '../../projections/runtime/projection';


const N = Number(process.argv[2] ?? 100_000);
const DATE = '2024-05-01';

async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
}

/** The chunks' ops of the prints view, per partition, computed against an empty view. */
async function chunksOf(redis: Redis, projection: Projection, topic: string, events: readonly { ticker: string }[]) {
  const byPart = new Map<number, SourceEvent[]>();
  for (const e of events) {
    const p = partitionOf(e.ticker, MARKET_PARTITIONS);
    const list = byPart.get(p) ?? [];
    list.push({ topic, partition: p, offset: list.length, key: e.ticker, value: e as unknown as Record<string, unknown> });
    byPart.set(p, list);
  }
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
  const { prints } = buildData();
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
          const ops = coalesceOps(ch.ops);
          const keys = [ch.keys.offsets, ...new Set(ops.map((o) => o[1]))];
          const [ok] = (await redis.eval(LUA_APPLY, keys.length, ...keys, topic, String(ch.first - 1), String(ch.last), JSON.stringify(ops))) as [number, string];
          if (ok !== 1) throw new Error('not applied');
        } else {
          const r = await applyAtomically(redis, ch.keys.offsets, topic, ch.first - 1, ch.last, ch.ops);
          if (!r.applied) throw new Error('not applied');
        }
      }
      const cpu = (await redisCpu(redis)) - c0;
      console.log(`${mode} round ${round}: redis ${((cpu / prints.length) * 1e6).toFixed(2)} us/row, wall ${((Date.now() - t0) * 1000 / prints.length).toFixed(2)} us/row`);
    }
  }
  redis.disconnect();
  server.kill();
}

function buildData() {
  // The `full` market (its chains and activity are the realistic ones), every 8th symbol.
  const market = new SimulatedMarket(42, PROFILES.full);
  const symbols = new Set(market.instruments.filter((_, i) => i % 8 === 0).map((i) => i.symbol));
  const daily = market.session(DATE, 'daily');
  const openInterest: { osi: string; ticker: string; sessionDate: string; openInterest: number }[] = [];
  for (let k = 0; k < daily.chunks; k++) for (const e of daily.chunk(k)) if (e.type === 'open-interest' && symbols.has(e.data.ticker as string)) openInterest.push(e.data as never);
  const tick = market.session(DATE, 'tick', symbols);
  const offsets = new Array(MARKET_PARTITIONS).fill(0);
  // The processor's own fold per partition: enrichment, session volume and consolidation.
  const parts = new Map<number, OrderFlowPartition>();
  const prints: EnrichedPrintEvent[] = [];
  const latest = new Map<string, ConsolidatedTradeEvent>();
  for (let k = 0; k < tick.chunks && prints.length < N; k++) {
    for (const e of tick.chunk(k)) {
      if (e.type !== 'option-print' || prints.length >= N) continue;
      const raw = e.data as unknown as OptionPrint;
      const inst = market.bySymbol.get(raw.ticker)!;
      const p = partitionOf(raw.ticker, MARKET_PARTITIONS);
      if (!parts.has(p)) parts.set(p, new OrderFlowPartition(p, RISK_FREE_RATE));
      const out = parts.get(p)!.apply(raw, offsets[p]++, { sector: inst.sector, industry: inst.industry, isETF: inst.isETF, isIndex: inst.isIndex });
      prints.push(out.enriched);
      latest.set(out.consolidated.rowKey, out.consolidated);
    }
  }
  return { prints, consolidated: [...latest.values()], openInterest };
}


main().catch((err) => {
  console.error(err);
  process.exit(1);
});
