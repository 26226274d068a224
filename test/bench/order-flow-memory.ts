/**
 * Redis memory per stored order-flow row: `npx tsx test/bench/order-flow-memory.ts [rows]`.
 *
 * Starts its own redis-server (no persistence) on a free port, takes the first N option prints
 * (default 50,000) of a simulated `full` session (every 8th symbol), enriches them with the real enrichment code,
 * groups them into consolidated trades with the processor's own fold (last version only), projects both views with the projections' own logic and the runtime's atomic
 * apply, joins the session's open interest, and reports used_memory deltas and MEMORY USAGE per
 * key kind. Results go to test/bench/results/order-flow-memory.json.
 */
import { spawn } from 'child_process';
import fs from 'fs';
import path from 'path';
import Redis from 'ioredis';
import { topicFor } from '../../schemas/catalog';
import { freePort } from '../../services/stack/process';
import { PartitionKeys } from '../../services/views/keys';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { applyAtomically } from '../../projections/runtime/atomic-apply';
import type { Projection } from '../../projections/runtime/projection';
import { eventsByPartition, orderFlowSample } from '../support/order-flow-sample';

const N = Number(process.argv[2] ?? 50_000);
const DATE = '2024-05-01';

async function main(): Promise<void> {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  // ioredis reconnects on its own while the server starts and queues the PING until then (a loop
  // of connect() calls failed with "already connecting" under load and leaked the server).
  const redis = new Redis({ port });
  try {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([redis.ping(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('redis-server did not start')), 30_000)))]).finally(
      () => clearTimeout(timer),
    );
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
      await project(redis, projection, topicFor('open-interest')!.name, openInterest);
      const afterOi = await usedMemory(redis);
      const t0 = process.hrtime.bigint();
      const cpu0 = process.cpuUsage();
      const redis0 = await applyMicros(redis);
      await project(redis, projection, projection.topics[0].name, rows);
      const cpu = process.cpuUsage(cpu0);
      const redisMicros = (await applyMicros(redis)) - redis0;
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const after = await usedMemory(redis);
      const byKind = await memoryByKind(redis);
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

/** Redis's cumulative time in scripts (EVALSHA and EVAL), microseconds. */
async function applyMicros(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let us = 0;
  // EXEC's time includes the commands it ran (the apply's transaction, atomic-apply.ts).
  for (const m of stats.matchAll(/cmdstat_exec:calls=\d+,usec=(\d+)/g)) us += Number(m[1]);
  return us;
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number((await redis.info('memory')).match(/used_memory:(\d+)/)![1]);
}

/** MEMORY USAGE of every key, summed by key kind (r, ct, x:time, tk, os, pt, un, st, oi, ...). */
async function memoryByKind(redis: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    const pipe = redis.pipeline();
    for (const k of keys) pipe.memory('USAGE', k, 'SAMPLES', 0);
    const res = (await pipe.exec())!;
    keys.forEach((k, i) => {
      const parts = k.split(':').slice(4); // after <prefix>:<view>:v1:{pNN}
      let kind = parts[0] === 's' || parts[0] === 'oi' || parts[0] === 'offsets' ? parts[0] : parts[1];
      if (kind === 'x') kind = `x:${parts[2]}`;
      if (kind === 'st' && parts.length > 2) kind = 'st:<ticker>';
      if (kind === 'pt') kind = `pt:${parts[2]}`;
      out[kind] = (out[kind] ?? 0) + Number(res[i][1]);
    });
  } while (cursor !== '0');
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

async function sampleRowLength(redis: Redis): Promise<number | null> {
  const [, keys] = await redis.scan('0', 'MATCH', '*:r', 'COUNT', 10_000);
  if (!keys.length) return null;
  const vals = Object.values(await redis.hgetall(keys[0]));
  return vals.reduce((s, v) => s + v.length, 0) / vals.length;
}

async function project(redis: Redis, projection: Projection, topic: string, events: readonly { ticker: string }[]): Promise<void> {
  const byPart = eventsByPartition(topic, events);
  for (const [p, evs] of byPart) {
    const keys = new PartitionKeys('mdq', projection.view, 1, p);
    const others = projection.topics.map((t) => t.name).filter((t) => t !== topic);
    for (let i = 0; i < evs.length; i += 500) {
      const chunk = evs.slice(i, i + 500);
      const othersAt = await Promise.all(others.map(async (t) => [t, Number((await redis.hget(keys.offsets, t)) ?? -1)] as [string, number]));
      const ops = await projection.project(chunk, keys, redis);
      const res = await applyAtomically(redis, keys.offsets, topic, i - 1, chunk[chunk.length - 1].offset, ops, othersAt);
      if (!res.applied) throw new Error('not applied');
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
