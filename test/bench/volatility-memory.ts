/**
 * Memory of the volatility view for `npm start`'s history: `npx tsx test/bench/volatility-memory.ts [sessions] [tickSessions] [profile]`.
 *
 * Starts its own redis-server (no persistence) on a free port, generates the `dev` profile's
 * daily tier (open interest, open/close, end-of-day quotes) for the last N sessions (default 400)
 * and the tick tier for the newest K of them (default 2), as `npm run ingest -- history` does,
 * and projects them with the projection's own code, partition by partition in chunks of 3,000
 * (prices first, as the lead topic makes a projector do). No Kafka: the view's content does not
 * depend on how events reach the projection. Reports used_memory, MEMORY USAGE by key kind and
 * the projection's in-process rate; results go to test/bench/results/volatility-memory.json.
 */
import fs from 'fs';
import path from 'path';
import { memoryByKind, privateRedisServer, usedMemory } from '../support/bench-redis';
import type { ProfileName } from '../../ingest/simulator/profiles';
import { projectDevHistory } from './volatility-history';

const SESSIONS = Number(process.argv[2] ?? 400);
const TICK_SESSIONS = Number(process.argv[3] ?? 2);
const THROUGH = '2026-11-20';
const PROFILE = (process.argv[4] ?? 'dev') as ProfileName;

async function main(): Promise<void> {
  const { redis, server } = await privateRedisServer();
  try {
    const before = await usedMemory(redis);
    const { days, counts, quotes, projectMs } = await projectDevHistory(redis, 'bench', {
      sessions: SESSIONS,
      tickSessions: TICK_SESSIONS,
      through: THROUGH,
      profile: PROFILE,
      log: console.error,
    });
    const after = await usedMemory(redis);
    const byKind = await memoryByKind(redis, (parts) => parts[0]);
    let snapshots = 0;
    for (const key of await redis.keys('bench:volatility:*:snaps:*')) snapshots += await redis.zcard(key);
    const results = {
      profile: PROFILE,
      sessions: days.length,
      tickSessions: TICK_SESSIONS,
      from: days[0],
      through: days[days.length - 1],
      events: counts,
      usedMemoryBytes: after - before,
      usedMemoryMB: Number(((after - before) / 1048576).toFixed(1)),
      memoryUsageByKindMB: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, Number((v / 1048576).toFixed(2))])),
      // A snapshot's bytes: the surfaces' MEMORY USAGE over the snapshot instants held (snaps: members).
      snapshots,
      surfaceBytesPerSnapshot: Math.round((byKind.s ?? 0) / snapshots),
      // One process computing and applying chunks in turn: no Kafka, no decoding.
      projectedQuotesPerSecondInProcess: Math.round(quotes / (projectMs / 1000)),
      redis: (await redis.info('server')).match(/redis_version:(\S+)/)?.[1],
    };
    console.log(JSON.stringify(results, null, 2));
    const out = path.join(__dirname, 'results', PROFILE === 'dev' ? 'volatility-memory.json' : `volatility-memory-${PROFILE}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
