/**
 * Redis memory per stored order-flow row: `npx tsx test/bench/order-flow-memory.ts [rows]`.
 *
 * Starts its own redis-server (no persistence) on a free port, takes the first N option prints
 * (default 50,000) of a simulated `full` session (every 8th symbol), enriches them with the real enrichment code,
 * groups them into consolidated trades with the processor's own fold (last version only), projects both views with the projections' own logic and the runtime's atomic
 * apply, joins the session's open interest, and reports used_memory deltas and MEMORY USAGE per
 * key kind. Results go to test/bench/results/order-flow-memory.json.
 */
import fs from 'fs';
import path from 'path';
import type Redis from 'ioredis';
import { topicFor } from '../../schemas/catalog';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { applyMicros, memoryByKind, privateRedisServer, projectInChunks, usedMemory } from '../support/bench-redis';
import { orderFlowSample } from '../support/order-flow-sample';

const N = Number(process.argv[2] ?? 50_000);
const DATE = '2024-05-01';

async function main(): Promise<void> {
  const { redis, server } = await privateRedisServer();
  try {
    const { prints, consolidated, openInterest } = orderFlowSample(N, DATE);
    const results: Record<string, unknown> = {
      rows: prints.length,
      consolidatedRows: consolidated.length,
      openInterestContracts: openInterest.length,
      redis: (await redis.info('server')).match(/redis_version:(\S+)/)?.[1],
    };
    for (const [name, projection, rows] of [
      ['prints', orderFlowPrintsProjection, prints],
      ['consolidated', orderFlowConsolidatedProjection, consolidated],
    ] as const) {
      await redis.flushall();
      const before = await usedMemory(redis);
      // Open interest first: the rows then join it directly (the same final bytes either way).
      await projectInChunks(redis, projection, topicFor('open-interest')!.name, openInterest);
      const afterOi = await usedMemory(redis);
      const t0 = process.hrtime.bigint();
      const cpu0 = process.cpuUsage();
      const redis0 = await applyMicros(redis);
      await projectInChunks(redis, projection, projection.topics[0].name, rows);
      const cpu = process.cpuUsage(cpu0);
      const redisMicros = (await applyMicros(redis)) - redis0;
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const after = await usedMemory(redis);
      const byKind = await memoryByKind(redis, kindOf);
      const rowBytes = after - afterOi;
      results[name] = {
        rows: rows.length,
        usedMemoryDeltaPerRow: Math.round(rowBytes / rows.length),
        openInterestBytesPerContract: Math.round((afterOi - before) / openInterest.length),
        memoryUsagePerRowByKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, Math.round(v / rows.length)])),
        avgStoredRowChars: Math.round((await sampleRowLength(redis)) ?? 0),
        // One process projecting and applying chunks of 500 in turn (no Kafka, no decoding).
        projectedRowsPerSecond: Math.round(rows.length / seconds),
        // This process's CPU (computing the writes, encoding and sending them) and Redis's time
        // in the apply transaction, per row: the two halves a projector's throughput is made of.
        projectorCpuMicrosPerRow: Number(((cpu.user + cpu.system) / rows.length).toFixed(1)),
        redisApplyMicrosPerRow: Number((redisMicros / rows.length).toFixed(1)),
      };
    }
    console.log(JSON.stringify(results, null, 2));
    const out = path.join(__dirname, 'results', 'order-flow-memory.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

/** The key kind of a view key's parts after `<prefix>:<view>:v1:{pNN}` (r, ct, x:time, tk, os, pt:<tier>, un, st, oi, ...). */
function kindOf(parts: string[]): string {
  let kind = parts[0] === 's' || parts[0] === 'oi' || parts[0] === 'offsets' ? parts[0] : parts[1];
  if (kind === 'x') kind = `x:${parts[2]}`;
  if (kind === 'st' && parts.length > 2) kind = 'st:<ticker>';
  if (kind === 'pt') kind = `pt:${parts[2]}`;
  return kind;
}

async function sampleRowLength(redis: Redis): Promise<number | null> {
  const [, keys] = await redis.scan('0', 'MATCH', '*:r', 'COUNT', 10_000);
  if (!keys.length) return null;
  const vals = Object.values(await redis.hgetall(keys[0]));
  return vals.reduce((s, v) => s + v.length, 0) / vals.length;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
