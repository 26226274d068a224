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
import fs from 'fs';
import path from 'path';
import { memoryByKind, privateRedisServer, usedMemory } from '../support/bench-redis';
import { CHANGE_SESSIONS } from '../../services/views/open-interest';
import { devHistory, projectHistory } from '../support/open-interest-history';

const SESSIONS = Number(process.argv[2] ?? 400);

async function main(): Promise<void> {
  const { redis, server } = await privateRedisServer();
  try {
    const history = devHistory(SESSIONS);
    const oiEvents = history.openInterest.length;
    await redis.flushall();
    const before = await usedMemory(redis);
    const t0 = process.hrtime.bigint();
    const applied = await projectHistory(redis, 'mdq', history);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const after = await usedMemory(redis);
    const byKind = await memoryByKind(redis, (parts) => {
      // The change table (r, x:*, tk, s) and the compact stores (c, ce, cx, tc, tp, px, pl, os).
      const kind = /^\d{4}-\d{2}-\d{2}$/.test(parts[0]) ? `table ${parts[1]}` : parts[0];
      return kind === 'table x' ? `table x:${parts[2]}` : kind;
    });
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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
