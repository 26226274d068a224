/**
 * Memory of the volatility view for `npm start`'s history: `npx tsx test/bench/volatility-memory.ts [sessions] [tickSessions]`.
 *
 * Starts its own redis-server (no persistence) on a free port, generates the `dev` profile's
 * daily tier (open interest, open/close, end-of-day quotes) for the last N sessions (default 400)
 * and the tick tier for the newest K of them (default 2), as `npm run ingest -- history` does,
 * and projects them with the projection's own code, partition by partition in chunks of 3,000
 * (prices first, as the lead topic makes a projector do). No Kafka: the view's content does not
 * depend on how events reach the projection. Reports used_memory, MEMORY USAGE by key kind and
 * the projection's in-process rate; results go to test/bench/results/volatility-memory.json.
 */
import { spawn } from 'child_process';
import fs from 'fs';
import path from 'path';
import Redis from 'ioredis';
import { marketFor } from '../../ingest/produce/session-producer';
import type { SimEvent } from '../../ingest/simulator/events';
import { volatilityViewProjection } from '../../projections/volatility/projection';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { tradingDaysBetween } from '../../services/domain/calendar';
import { partitionOf } from '../../services/kafka/partition';
import { freePort } from '../../services/stack/process';
import { PartitionKeys } from '../../services/views/keys';

const SESSIONS = Number(process.argv[2] ?? 400);
const TICK_SESSIONS = Number(process.argv[3] ?? 2);
const THROUGH = '2026-11-20';
const CHUNK = 3000;
const TOPIC_OF: Record<string, string> = {
  'underlying-price': 'market.underlying-prices',
  'option-quote': 'market.option-quotes',
  'open-interest': 'market.open-interest',
};

async function main(): Promise<void> {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const redis = new Redis({ port });
  try {
    await redis.ping();
    const days = tradingDaysBetween('2024-01-01', THROUGH).slice(-SESSIONS);
    const market = marketFor(42, 'dev');
    const before = await usedMemory(redis);
    const counts: Record<string, number> = {};
    let projectMs = 0;
    let quotes = 0;
    const t0 = Date.now();
    for (const [i, date] of days.entries()) {
      const events: SimEvent[] = [];
      for (const tier of i >= days.length - TICK_SESSIONS ? (['daily', 'tick'] as const) : (['daily'] as const)) {
        const g = market.session(date, tier);
        for (let k = 0; k < g.chunks; k++) for (const e of g.chunk(k)) if (TOPIC_OF[e.type]) events.push(e);
      }
      for (const e of events) counts[e.type] = (counts[e.type] ?? 0) + 1;
      const p0 = Date.now();
      for (const type of ['underlying-price', 'option-quote', 'open-interest']) {
        const byPartition = new Map<number, SimEvent[]>();
        for (const e of events) {
          if (e.type !== type) continue;
          const p = partitionOf(String(e.data.ticker), MARKET_PARTITIONS);
          (byPartition.get(p) ?? byPartition.set(p, []).get(p)!).push(e);
        }
        for (const [p, list] of byPartition) {
          const keys = new PartitionKeys('bench', volatilityViewProjection.view, 1, p);
          for (let j = 0; j < list.length; j += CHUNK) {
            const chunk = list.slice(j, j + CHUNK).map((e, n) => ({ topic: TOPIC_OF[type], partition: p, offset: j + n, key: null, value: e.data }));
            const ops = await volatilityViewProjection.project(chunk, keys, redis);
            const m = redis.multi();
            for (const [cmd, ...args] of ops) m.call(cmd, ...args);
            await m.exec();
          }
        }
        if (type === 'option-quote') quotes += events.filter((e) => e.type === type).length;
      }
      projectMs += Date.now() - p0;
      if (i % 50 === 0) console.error(`${date}: ${i + 1}/${days.length} sessions, ${Math.round((Date.now() - t0) / 1000)} s`);
    }
    const after = await usedMemory(redis);
    const results = {
      profile: 'dev',
      sessions: days.length,
      tickSessions: TICK_SESSIONS,
      from: days[0],
      through: days[days.length - 1],
      events: counts,
      usedMemoryBytes: after - before,
      usedMemoryMB: Number(((after - before) / 1048576).toFixed(1)),
      memoryUsageByKindMB: Object.fromEntries(Object.entries(await memoryByKind(redis)).map(([k, v]) => [k, Number((v / 1048576).toFixed(2))])),
      // One process computing and applying chunks in turn: no Kafka, no decoding.
      projectedQuotesPerSecondInProcess: Math.round(quotes / (projectMs / 1000)),
      redis: (await redis.info('server')).match(/redis_version:(\S+)/)?.[1],
    };
    console.log(JSON.stringify(results, null, 2));
    const out = path.join(__dirname, 'results', 'volatility-memory.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number((await redis.info('memory')).match(/used_memory:(\d+)/)![1]);
}

/** MEMORY USAGE of every key, summed by kind (s, snaps, px, oi, ivx). */
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
      const kind = k.split(':')[4];
      out[kind] = (out[kind] ?? 0) + Number(res[i][1]);
    });
  } while (cursor !== '0');
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
