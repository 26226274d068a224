/**
 * The flow-aggregates cube's Redis memory per print and projection cost beside the prints view's:
 * `npx tsx test/bench/flow-aggregates-memory.ts [prints]`.
 *
 * Starts its own redis-server, takes the first N option prints (default 50,000) of a simulated
 * `full` session (every 8th symbol, test/support/order-flow-sample.ts), and projects them with the
 * projections' own logic and the runtime's atomic apply in chunks of 500 (no Kafka): the prints
 * view (open interest first) and, after a flush, the cube. Reports bytes per print by key kind,
 * prints projected per second, this process's CPU and Redis's apply time per print for both.
 * Results go to test/bench/results/flow-aggregates-memory.json.
 */
import fs from 'fs';
import path from 'path';
import type Redis from 'ioredis';
import { topicFor } from '../../schemas/catalog';
import { flowAggregatesProjection } from '../../projections/flow-aggregates/projection';
import { orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import type { Projection } from '../../projections/runtime/projection';
import { applyMicros, memoryByKind, privateRedisServer, projectInChunks, usedMemory } from '../support/bench-redis';
import { orderFlowSample } from '../support/order-flow-sample';

const N = Number(process.argv[2] ?? 50_000);
const DATE = '2024-05-01';

async function measure(redis: Redis, projection: Projection, prints: readonly { ticker: string }[], kindOf: (parts: string[]) => string) {
  const before = await usedMemory(redis);
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const redis0 = await applyMicros(redis);
  await projectInChunks(redis, projection, topicFor('enriched-print')!.name, prints);
  const cpu = process.cpuUsage(cpu0);
  const redisMicros = (await applyMicros(redis)) - redis0;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const bytes = (await usedMemory(redis)) - before;
  const byKind = await memoryByKind(redis, kindOf);
  return {
    usedMemoryDeltaPerPrint: Math.round(bytes / prints.length),
    memoryUsagePerPrintByKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, Number((v / prints.length).toFixed(1))])),
    projectedPrintsPerSecond: Math.round(prints.length / seconds),
    projectorCpuMicrosPerPrint: Number(((cpu.user + cpu.system) / prints.length).toFixed(1)),
    redisApplyMicrosPerPrint: Number((redisMicros / prints.length).toFixed(1)),
  };
}

async function main(): Promise<void> {
  const { redis, server } = await privateRedisServer();
  try {
    const { prints, openInterest } = orderFlowSample(N, DATE);
    const results: Record<string, unknown> = {
      prints: prints.length,
      tickers: new Set(prints.map((p) => p.ticker)).size,
      redis: (await redis.info('server')).match(/redis_version:(\S+)/)?.[1],
    };
    await projectInChunks(redis, orderFlowPrintsProjection, topicFor('open-interest')!.name, openInterest);
    results.printsView = await measure(redis, orderFlowPrintsProjection, prints, (parts) => (['s', 'oi', 'offsets'].includes(parts[0]) ? parts[0] : parts[1]));
    await redis.flushall();
    // Kinds: cs, cm, u, o, osi, tk, s (services/views/flow-aggregates/keys.ts).
    results.cube = await measure(redis, flowAggregatesProjection, prints, (parts) => (parts[0] === 's' || parts[0] === 'offsets' ? parts[0] : parts[1]));
    const a = results.printsView as { projectedPrintsPerSecond: number };
    const b = results.cube as { projectedPrintsPerSecond: number };
    // The share of a replay's work the cube adds, had both run on one core: 1/b over 1/a.
    results.cubeCostRelativeToPrintsView = Number((a.projectedPrintsPerSecond / b.projectedPrintsPerSecond).toFixed(2));
    console.log(JSON.stringify(results, null, 2));
    const out = path.join(__dirname, 'results', 'flow-aggregates-memory.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
