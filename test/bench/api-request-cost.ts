/**
 * API CPU per request: one `api/main.ts` process answers a fixed number of order-flow requests
 * from a few concurrent clients; the process's CPU time (user + system, from /proc) divided by
 * the requests is the cost of one request, the number that bounds throughput and so latency
 * under load on a small machine. With --profile the API writes a V8 CPU profile (.cpuprofile,
 * open it in Chrome DevTools) to the folder given.
 *
 *   npm run bench:api-cost -- [--session 2026-11-20] [--requests 4000] [--clients 8] [--profile DIR] [--only TEXT] [--cache]
 *
 * A/B: two API processes side by side, B from another checkout (`--b-root DIR`, e.g. a
 * `git worktree` of the previous commit) and/or with other node flags (`--a-node-args`,
 * `--b-node-args`, space-separated). Both get the same requests at the same time, each from its
 * own `--clients` clients, so both see the same machine: this machine's speed drifts by 20 %
 * within a minute, more than most changes worth measuring, so runs one after the other cannot
 * tell them apart. Results to api-request-cost-ab.json.
 *
 *   npm run bench:api-cost -- --ab [--b-root DIR] [--a-node-args '...'] [--b-node-args '...'] [--rounds 3] [--only TEXT] [--label NAME]
 *
 * Reads the views in the Redis of VIEWS_REDIS_URL (else REDIS_URL) under MDQ_KEY_PREFIX (e.g. the prefix printed by
 * `npm run bench:pipeline`, whose default session is 2026-11-20).
 */
import { ChildProcess, spawn } from 'child_process';
import fs from 'fs';
import { processCpuSeconds } from '../support/cpu';
import { configEnv } from '../support/pipeline';
import path from 'path';
import { Pool } from 'undici';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { loadConfig } from '../../services/config';
import { createRedis } from '../../services/redis/client';
import { pointerKey } from '../../services/views/keys';
import { ORDER_FLOW_PRINTS_VIEW } from '../../services/views/order-flow';
import { orderFlowSessions } from '../../api/views/order-flow';
import { nodeArgv } from '../../services/node-args';
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
const AB = args.includes('--ab');
const B_ROOT = path.resolve(flag('b-root', repoRoot));
const NODE_ARGS = { a: flag('a-node-args', ''), b: flag('b-node-args', '') };
/** A/B: measurement rounds per case (each round measures A and B at the same time). */
const ROUNDS = Number(flag('rounds', '3'));
/** Appended to the results file's name, so an A/B of one change does not overwrite another's. */
const LABEL = flag('label', '');
/** The APIs under test, ended with this process however it ends. */
const apis: ChildProcess[] = [];
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
  const { key } = await new ApiKeyStore(keysRedis, config.keyPrefix, SECRET).create({
    workspace: 'bench',
    user: `cost-${Date.now()}`,
    label: 'api cost bench',
  });
  /** An API process from checkout `root` on `port`, and a way to POST to it; ready once it answers. */
  const start = async (root: string, port: number, nodeArgs: string[]) => {
    // The API's own flags (node-args.ts), then the side's (a later V8 flag wins).
    const extra = [...nodeArgs, ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE)}`] : [])];
    const proc = spawn(process.execPath, nodeArgv('api/main.ts', [], extra, root), {
      // The response cache off unless asked for: the cost of computing an answer is what is measured.
      env: {
        // The resolved connection: a B checkout's own data folder has no connection file of this stack.
        ...process.env,
        ...configEnv(config),
        PORT: String(port),
        API_KEY_SECRET: SECRET,
        // The quota is counted on every request but never refuses one (B ignores the burst variable).
        MDQ_RATE_LIMIT_PER_MINUTE: '100000000',
        MDQ_BURST_LIMIT_PER_SECOND: '100000000',
        LOG_LEVEL: 'warn',
        MDQ_API_CACHE_MB: CACHE ? (process.env.MDQ_API_CACHE_MB ?? '') : '0',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    apis.push(proc);
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CLIENTS });
    const post = async (p: string, body: unknown) => {
      const res = await pool.request({
        path: p,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text}`);
    };
    // Ready once it answers an order-flow request (/readyz also wants views this prefix may lack).
    for (let i = 0; ; i++) {
      const ready = await post(C, { size: 1 }).then(
        () => true,
        () => false,
      );
      if (ready) break;
      if (i > 150) throw new Error('the API did not become ready');
      await new Promise((r) => setTimeout(r, 200));
    }
    return { proc, pool, post };
  };
  const split = (a: string) => a.split(' ').filter(Boolean);
  const a = await start(repoRoot, PORT, split(NODE_ARGS.a));
  const b = AB ? await start(B_ROOT, PORT + 1, split(NODE_ARGS.b)) : null;
  /** `REQUESTS` requests from CLIENTS clients to one API; its CPU ms per request. */
  const measure = async (api: typeof a, p: string, body: unknown) => {
    const cpu0 = cpuSeconds(api.proc.pid!);
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next++ < REQUESTS) await api.post(p, body);
      }),
    );
    return Math.round(((cpuSeconds(api.proc.pid!) - cpu0) / REQUESTS) * 1e6) / 1e3;
  };
  const cases: [string, string, Record<string, unknown>][] = [
    ['consolidated, first page of 50', C, { sessionDate: SESSION, size: 50 }],
    ['consolidated, one row', C, { sessionDate: SESSION, size: 1 }],
    ['consolidated, latest session (no sessionDate), 50', C, { size: 50 }],
    ['unconsolidated, one ticker, 50', U, { sessionDate: SESSION, size: 50, filter: { tickers: 'SPY' } }],
    [
      'unconsolidated, PUT + ASK + premium >= 10k, 50',
      U,
      { sessionDate: SESSION, size: 50, filter: { contractTypes: 'PUT', tradeSideCodes: 'A', premiumRange: { min: 10_000 } } },
    ],
    ['consolidated, premium desc, 50', C, { sessionDate: SESSION, size: 50, sort: { field: 'PREMIUM', direction: 'DESCENDING' } }],
  ];
  const out: Record<string, unknown>[] = [];
  for (const [name, p, body] of cases.filter(([n]) => n.includes(ONLY))) {
    for (let i = 0; i < 200; i++) await Promise.all([a.post(p, body), b?.post(p, body)]); // warm-up (JIT, connections)
    if (b) {
      // Both at once, each from its own clients: the machine's drift hits both alike. (The side
      // done first leaves the other the machine for its last requests: a small bias for the slower.)
      const rounds: { a: number; b: number }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const [ca, cb] = await Promise.all([measure(a, p, body), measure(b, p, body)]);
        rounds.push({ a: ca, b: cb });
      }
      const sum = (k: 'a' | 'b') => rounds.reduce((t, x) => t + x[k], 0);
      const row = {
        query: name,
        requests: REQUESTS,
        clientsEach: CLIENTS,
        cpuMsPerRequest: rounds,
        ratioBToA: Math.round((sum('b') / sum('a')) * 1000) / 1000,
      };
      console.log(JSON.stringify(row));
      out.push(row);
      continue;
    }
    const t0 = process.hrtime.bigint();
    const cpuMs = await measure(a, p, body);
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const row = { query: name, requests: REQUESTS, clients: CLIENTS, cpuMsPerRequest: cpuMs, requestsPerSecond: Math.round(REQUESTS / wall) };
    console.log(JSON.stringify(row));
    out.push(row);
  }
  for (const api of [a, b]) {
    if (!api) continue;
    api.proc.kill('SIGTERM');
    await new Promise((r) => api.proc.once('exit', r));
    await api.pool.close();
  }
  redis.disconnect();
  if (keysRedis !== redis) keysRedis.disconnect();
  const file = path.join(repoRoot, `test/bench/results/api-request-cost${AB ? '-ab' : ''}${CACHE ? '-cached' : ''}${LABEL ? `-${LABEL}` : ''}.json`);
  const responseCache = CACHE ? 'on: identical requests answered from it' : 'off';
  const ab = AB ? { a: { root: repoRoot, nodeArgs: NODE_ARGS.a }, b: { root: B_ROOT, nodeArgs: NODE_ARGS.b } } : undefined;
  fs.writeFileSync(
    file,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), session: SESSION, machine: '2 cores shared by the API, Redis and the load generator', responseCache, ab, results: out }, null, 2)}\n`,
  );
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
process.on('exit', () => apis.forEach((p) => p.kill('SIGTERM')));
