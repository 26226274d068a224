import { spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import path from 'path';
import Redis from 'ioredis';
import { freePort } from '../../services/stack/process';
import { PartitionKeys } from '../../services/views/keys';
import { applyAtomically } from '../../projections/runtime/atomic-apply';
import type { Projection } from '../../projections/runtime/projection';
import { eventsByPartition } from './order-flow-sample';

/**
 * What the memory benchmarks that project without Kafka share: a private redis-server, its
 * memory and apply-time counters, and projecting events with a projection's own logic and the
 * runtime's atomic apply in chunks of 500.
 */

/**
 * The private servers still running: stopped when this process exits or is interrupted, so that a
 * benchmark stopped halfway does not leave a server holding gigabytes behind.
 */
const running = new Set<ChildProcess>();
let cleanupInstalled = false;
function stopOnExit(server: ChildProcess): void {
  running.add(server);
  server.once('exit', () => running.delete(server));
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.once('exit', () => running.forEach((s) => s.kill('SIGTERM')));
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      running.forEach((s) => s.kill('SIGTERM'));
      process.exit(130);
    });
}

/** A redis-server of its own (no persistence) on a free port, and a client once it answers. */
export async function privateRedisServer(args: readonly string[] = []): Promise<{ redis: Redis; server: ChildProcess }> {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', ...args], { stdio: 'ignore' });
  stopOnExit(server);
  // ioredis reconnects on its own while the server starts and queues the PING until then (a loop
  // of connect() calls failed with "already connecting" under load and leaked the server).
  const redis = new Redis({ port });
  // Refused connections until the server listens are expected: not worth an "unhandled error" line.
  const starting = () => undefined;
  redis.on('error', starting);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([redis.ping(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('redis-server did not start')), 30_000)))]).finally(
    () => clearTimeout(timer),
  );
  redis.off('error', starting);
  return { redis, server };
}

/** Redis's cumulative time in EXEC (the apply's transaction, atomic-apply.ts, with the commands it ran), microseconds. */
export async function applyMicros(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let us = 0;
  for (const m of stats.matchAll(/cmdstat_exec:calls=\d+,usec=(\d+)/g)) us += Number(m[1]);
  return us;
}

export async function usedMemory(redis: Redis): Promise<number> {
  return Number((await redis.info('memory')).match(/used_memory:(\d+)/)![1]);
}

/** MEMORY USAGE of every key, summed by the kind `kindOf` gives its parts after `<prefix>:<view>:v1:{pNN}`. */
export async function memoryByKind(redis: Redis, kindOf: (parts: string[]) => string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    const pipe = redis.pipeline();
    for (const k of keys) pipe.memory('USAGE', k, 'SAMPLES', 0);
    const res = (await pipe.exec())!;
    keys.forEach((k, i) => {
      const kind = kindOf(k.split(':').slice(4));
      out[kind] = (out[kind] ?? 0) + Number(res[i][1]);
    });
  } while (cursor !== '0');
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

/**
 * Projects `events` of `topic` into version 1 under `prefix` ('mdq'), chunks of 500 per partition.
 * Each partition's offsets continue after those already applied, so events can come in several calls.
 */
export async function projectInChunks(
  redis: Redis,
  projection: Projection,
  topic: string,
  events: readonly { ticker: string }[],
  prefix = 'mdq',
): Promise<void> {
  const byPart = eventsByPartition(topic, events);
  for (const [p, listed] of byPart) {
    const keys = new PartitionKeys(prefix, projection.view, 1, p);
    const applied = Number((await redis.hget(keys.offsets, topic)) ?? -1);
    const evs = listed.map((e) => ({ ...e, offset: e.offset + applied + 1 }));
    const others = projection.topics.map((t) => t.name).filter((t) => t !== topic);
    for (let i = 0; i < evs.length; i += 500) {
      const chunk = evs.slice(i, i + 500);
      const othersAt = await Promise.all(others.map(async (t) => [t, Number((await redis.hget(keys.offsets, t)) ?? -1)] as [string, number]));
      const ops = await projection.project(chunk, keys, redis);
      const res = await applyAtomically(redis, keys.offsets, topic, chunk[0].offset - 1, chunk[chunk.length - 1].offset, ops, othersAt);
      if (!res.applied) throw new Error('not applied');
    }
  }
}

/** MEMORY USAGE of every key matching `pattern`, summed. */
export async function bytesOf(redis: Redis, pattern: string): Promise<number> {
  let total = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 5_000);
    cursor = next;
    const pipe = redis.pipeline();
    for (const k of keys) pipe.memory('USAGE', k, 'SAMPLES', '0');
    for (const [, n] of (await pipe.exec())!) total += Number(n ?? 0);
  } while (cursor !== '0');
  return total;
}

/** The median of `times` runs, microseconds. */
export async function median(times: number, run: () => Promise<unknown>): Promise<number> {
  const ts: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = process.hrtime.bigint();
    await run();
    ts.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  ts.sort((a, b) => a - b);
  return Math.round(ts[Math.floor(ts.length / 2)]);
}

/** Runs a benchmark against a private redis-server, writes its results to test/bench/results/<name>.json, and stops the server. */
export async function benchWithRedis(name: string, run: (redis: Redis) => Promise<Record<string, unknown>>): Promise<void> {
  const { redis, server } = await privateRedisServer();
  try {
    const results = await run(redis);
    const out = path.join(__dirname, '..', 'bench', 'results', `${name}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}
