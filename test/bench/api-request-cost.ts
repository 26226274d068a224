/**
 * API CPU per request: one `api/main.ts` process answers a fixed number of order-flow requests
 * from a few concurrent clients; the process's CPU time (user + system, from /proc) divided by
 * the requests is the cost of one request, the number that bounds throughput and so latency
 * under load on a small machine. With --profile the API writes a V8 CPU profile (.cpuprofile,
 * open it in Chrome DevTools) to the folder given.
 *
 *   npm run bench:api-cost -- [--session 2026-11-20] [--requests 4000] [--clients 8] [--profile DIR] [--only TEXT] [--cache]
 *
 * Reads the views in the Redis of VIEWS_REDIS_URL (else REDIS_URL) under MDQ_KEY_PREFIX (e.g. the prefix printed by
 * `npm run bench:pipeline`, whose default session is 2026-11-20).
 */
import { ChildProcess, spawn } from 'child_process';
import fs from 'fs';
import { processCpuSeconds } from '../support/cpu';
import path from 'path';
import { Pool } from 'undici';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { loadConfig } from '../../services/config';
import { createRedis } from '../../services/redis/client';
import { pointerKey } from '../../services/views/keys';
import { ORDER_FLOW_PRINTS_VIEW } from '../../services/views/order-flow';
import { orderFlowSessions } from '../../api/views/order-flow-reader';
import { repoRoot } from '../../services/stack/paths';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const REQUESTS = Number(flag('requests', '4000'));
const CLIENTS = Number(flag('clients', '8'));
const PROFILE = flag('profile', '');
/** With the response cache on (as deployed): identical requests are then answered from it. */
const CACHE = args.includes('--cache');
const SESSION = flag('session', '2026-11-20');
/** Only the cases whose name contains this text. */
const ONLY = flag('only', '');
const PORT = Number(process.env.BENCH_API_PORT ?? 18490);
const SECRET = 'api-cost-bench-secret';
/** The API under test, ended with this process however it ends. */
let api: ChildProcess | undefined;
const C = '/v1/options/tool/order-flow/consolidated';
const U = '/v1/options/tool/order-flow/unconsolidated';

/** CPU seconds (user + system) a process has used: this benchmark measures nothing else, so /proc is required. */
function cpuSeconds(pid: number): number {
  const s = processCpuSeconds(pid);
  if (s === null) throw new Error(`no CPU time for process ${pid} (/proc/${pid}/stat unreadable)`);
  return s;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const redis = createRedis(config.viewsRedisUrl);
  const keysRedis = config.viewsRedisUrl === config.redisUrl ? redis : createRedis(config.redisUrl);
  const v = await redis.get(pointerKey(config.keyPrefix, ORDER_FLOW_PRINTS_VIEW));
  if (v === null) throw new Error(`no order-flow view under prefix ${config.keyPrefix}`);
  const held = await orderFlowSessions(redis, config.keyPrefix, ORDER_FLOW_PRINTS_VIEW, Number(v));
  if (!held.includes(SESSION)) throw new Error(`session ${SESSION} is not in the view (it holds ${held.join(', ')})`);
  const { key } = await new ApiKeyStore(keysRedis, config.keyPrefix, SECRET).create({ workspace: 'bench', user: `cost-${Date.now()}`, label: 'api cost bench' });
  const proc = (api = spawn(process.execPath, ['--import', 'tsx', ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE)}`] : []), path.join(repoRoot, 'api/main.ts')], {
    // The response cache off unless asked for: the cost of computing an answer is what is measured.
    env: { ...process.env, PORT: String(PORT), API_KEY_SECRET: SECRET, MDQ_RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn', MDQ_API_CACHE_MB: CACHE ? process.env.MDQ_API_CACHE_MB ?? '' : '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  }));
  const pool = new Pool(`http://127.0.0.1:${PORT}`, { connections: CLIENTS });
  const post = async (p: string, body: unknown) => {
    const res = await pool.request({ path: p, method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text}`);
  };
  // Ready once it answers an order-flow request (/readyz also wants views this prefix may lack).
  for (let i = 0; ; i++) {
    const ready = await post(C, { size: 1 }).then(() => true, () => false);
    if (ready) break;
    if (i > 150) throw new Error('the API did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
  const cases: [string, string, Record<string, unknown>][] = [
    ['consolidated, first page of 50', C, { sessionDate: SESSION, size: 50 }],
    ['consolidated, one row', C, { sessionDate: SESSION, size: 1 }],
    ['consolidated, latest session (no sessionDate), 50', C, { size: 50 }],
    ['unconsolidated, one ticker, 50', U, { sessionDate: SESSION, size: 50, filter: { tickers: 'SPY' } }],
    ['unconsolidated, PUT + ASK + premium >= 10k, 50', U, { sessionDate: SESSION, size: 50, filter: { contractTypes: 'PUT', tradeSideCodes: 'A', premiumRange: { min: 10_000 } } }],
    ['consolidated, premium desc, 50', C, { sessionDate: SESSION, size: 50, sort: { field: 'PREMIUM', direction: 'DESCENDING' } }],
  ];
  const out: Record<string, unknown>[] = [];
  for (const [name, p, body] of cases.filter(([n]) => n.includes(ONLY))) {
    for (let i = 0; i < 200; i++) await post(p, body); // warm-up (JIT, connections)
    const cpu0 = cpuSeconds(proc.pid!);
    const t0 = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next++ < REQUESTS) await post(p, body);
      }),
    );
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = cpuSeconds(proc.pid!) - cpu0;
    const row = { query: name, requests: REQUESTS, clients: CLIENTS, cpuMsPerRequest: Math.round((cpu / REQUESTS) * 1e6) / 1e3, requestsPerSecond: Math.round(REQUESTS / wall) };
    console.log(JSON.stringify(row));
    out.push(row);
  }
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  await pool.close();
  redis.disconnect();
  if (keysRedis !== redis) keysRedis.disconnect();
  const file = path.join(repoRoot, `test/bench/results/api-request-cost${CACHE ? '-cached' : ''}.json`);
  const responseCache = CACHE ? 'on: identical requests answered from it' : 'off';
  fs.writeFileSync(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), session: SESSION, machine: '2 cores shared by the API, Redis and the load generator', responseCache, results: out }, null, 2)}\n`);
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
process.on('exit', () => api?.kill('SIGTERM'));
