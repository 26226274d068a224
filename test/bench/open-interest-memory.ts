/**
 * Redis memory of the open-interest view over a `dev` history: `npx tsx test/bench/open-interest-memory.ts [sessions]`.
 *
 * Starts its own redis-server (no persistence) on a free port, generates the daily tier of the
 * newest N sessions (default 400) of the simulated `dev` market (seed 42, what `npm start`
 * backfills), newest session first as the history backfill publishes them, and projects their
 * open interest and underlying prices with the projection's own logic and the runtime's atomic
 * apply in chunks of 3,000 (the projector's default). Reports used_memory, MEMORY USAGE per key
 * kind and the projection rate. Results go to test/bench/results/open-interest-memory.json.
 */
import { spawn } from 'child_process';
import fs from 'fs';
import path from 'path';
import Redis from 'ioredis';
import { freePort } from '../../services/stack/process';
import { CHANGE_SESSIONS } from '../../services/views/open-interest';
import { devHistory, projectHistory } from '../support/open-interest-history';

const SESSIONS = Number(process.argv[2] ?? 400);

async function main(): Promise<void> {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const redis = new Redis({ port });
  try {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([redis.ping(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('redis-server did not start')), 30_000)))]).finally(
      () => clearTimeout(timer),
    );
    const history = devHistory(SESSIONS);
    const oiEvents = history.openInterest.length;
    await redis.flushall();
    const before = await usedMemory(redis);
    const t0 = process.hrtime.bigint();
    const applied = await projectHistory(redis, 'mdq', history);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const after = await usedMemory(redis);
    const byKind = await memoryByKind(redis);
    const results = {
      profile: 'dev',
      sessions: SESSIONS,
      changeSessionsKept: CHANGE_SESSIONS,
      openInterestEvents: oiEvents,
      eventsProjected: applied,
      redis: (await redis.info('server')).match(/redis_version:(\S+)/)?.[1],
      usedMemoryDeltaMiB: Number(((after - before) / 2 ** 20).toFixed(1)),
      memoryUsageMiBByKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, Number((v / 2 ** 20).toFixed(2))])),
      bytesPerOpenInterestEvent: Math.round((after - before) / oiEvents),
      eventsPerSecond: Math.round(applied / seconds),
    };
    console.log(JSON.stringify(results, null, 2));
    const out = path.join(__dirname, 'results', 'open-interest-memory.json');
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

/** MEMORY USAGE of every key, summed by key kind: the change table (r, x:*, tk, s) and the compact stores (c, ce, cx, tc, tp, px, pl, os). */
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
      let kind = /^\d{4}-\d{2}-\d{2}$/.test(parts[0]) ? `table ${parts[1]}` : parts[0];
      if (kind === 'table x') kind = `table x:${parts[2]}`;
      out[kind] = (out[kind] ?? 0) + Number(res[i][1]);
    });
  } while (cursor !== '0');
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
