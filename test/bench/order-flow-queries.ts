/**
 * Order-flow query benchmark: the same queries against the Redis views through the API, and
 * against PostgreSQL tables holding the same rows with the indexes a user would build, each at
 * 32 concurrent clients; p50/p99 latency and throughput; results to
 * test/bench/results/order-flow-queries.json.
 *
 *   npm run bench:queries -- <sessionDate> [--seconds 10] [--clients 32] [--api-processes 1] [--skip-pg-load | --load-only] [--api-only]
 *                          [--api-node-args '--max-semi-space-size=32 --trace-gc'] [--driver c | node]
 *
 * `--driver c` (the default): the load comes from wrk (the API) and pgbench (PostgreSQL), C
 * programs that cost 0.03-0.05 ms of CPU per request (load-drivers.ts). `--driver node`: Node
 * clients (undici parsing every answer, node-postgres), 0.26-0.31 ms per request, kept to
 * compare with. Each result records the CPU its client used per
 * request, and the API's and the views' Redis's CPU per request meanwhile.
 *
 * Expects the views already projected in the Redis of VIEWS_REDIS_URL (else REDIS_URL) under MDQ_KEY_PREFIX (by
 * `npm run bench:pipeline`, which prints the prefix), and PostgreSQL at PG_URL (default postgres://postgres@127.0.0.1/test).
 * The API runs with its response cache as deployed, so every client after the first hits it (each
 * client repeats the same request); MDQ_API_CACHE_MB=0 measures every answer computed.
 */
import { ChildProcess, spawn } from 'child_process';
import fs from 'fs';
import path from 'path';
import * as hdr from 'hdr-histogram-js';
import { Pool } from 'pg';
import { Pool as HttpPool } from 'undici';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { loadConfig } from '../../services/config';
import { configEnv } from '../support/pipeline';
import { createSingleRedis } from '../../services/redis/client';
import { nodeArgv } from '../../services/node-args';
import { repoRoot } from '../../services/stack/paths';
import { processCpuSeconds, redisCpu } from '../support/cpu';
import { LoadResult, MeasureHooks, hasCommand, inlinePgParams, msPerRequest, pgbenchLoad, usToMs, wrkLoad } from './load-drivers';
import { PG_URL } from './postgres';
import { TAPES, loadOrderFlowTape, orderFlowQueries, type Tape } from './cases/order-flow';
import type { SideBySideQuery } from './side-by-side';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const SESSION = args.find((a) => /^\d{4}-\d{2}-\d{2}$/.test(a)) ?? '';
const SECONDS = Number(flag('seconds', '10'));
const CLIENTS = Number(flag('clients', '32'));
const API_ONLY = args.includes('--api-only');
const SKIP_PG_LOAD = API_ONLY || args.includes('--skip-pg-load');
const LOAD_ONLY = args.includes('--load-only');
const API_PORT = Number(process.env.BENCH_API_PORT ?? 18480);
/** API processes (stateless, any number behind a load balancer): the load generator round-robins over them. */
const API_PROCESSES = Number(flag('api-processes', '1'));
/** Extra node flags of the API processes (space-separated), for trials of V8 settings. */
const API_NODE_ARGS = flag('api-node-args', '').split(' ').filter(Boolean);
/** MDQ_API_CACHE_MB=0 (passed on to the API): every answer computed; results in a -no-cache file. */
const CACHE_OFF = process.env.MDQ_API_CACHE_MB === '0';
const DRIVER = flag('driver', 'c');
if (DRIVER !== 'c' && DRIVER !== 'node') throw new Error('--driver is c or node');
if (DRIVER === 'c') {
  for (const cmd of ['wrk', ...(API_ONLY ? [] : ['pgbench'])]) {
    if (!hasCommand(cmd))
      throw new Error(`--driver c needs ${cmd} on the PATH (apt-get install -y ${cmd === 'wrk' ? 'wrk' : 'postgresql-client'}), or run with --driver node`);
  }
}
const PORTS = Array.from({ length: API_PROCESSES }, (_, i) => API_PORT + i);
let turn = 0;
const SECRET = 'order-flow-bench-secret';

const config = loadConfig();
// The views' Redis (VIEWS_REDIS_URL, else REDIS_URL); the benchmark's API key goes to REDIS_URL.
const redis = createSingleRedis(config.viewsRedisUrl);
const keysRedis = config.viewsRedisUrl === config.redisUrl ? redis : createSingleRedis(config.redisUrl);

// --- load generation -------------------------------------------------------------------------

/** `clients` loops calling fn back to back for `seconds` (after a 2 s warm-up); latencies in ms. */
async function load(fn: () => Promise<void>, hooks?: MeasureHooks): Promise<LoadResult> {
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
  let errors = 0;
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const t = process.hrtime.bigint();
      try {
        await fn();
      } catch {
        errors++;
      }
      if (measuring) h.recordValue(Number((process.hrtime.bigint() - t) / 1000n)); // µs
    }
  };
  const loops = Array.from({ length: CLIENTS }, loop);
  await new Promise((r) => setTimeout(r, 2_000));
  await hooks?.start();
  measuring = true;
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  measuring = false;
  const cpu = process.cpuUsage(cpu0);
  await hooks?.end();
  const elapsed = (Date.now() - t0) / 1000;
  stop = true;
  await Promise.all(loops);
  const ms = (q: number) => usToMs(h.getValueAtPercentile(q));
  const clientCpuMsPerRequest = msPerRequest((cpu.user + cpu.system) / 1e6, h.totalCount);
  return {
    p50: ms(50),
    p90: ms(90),
    p99: ms(99),
    max: usToMs(h.maxValue),
    requests: h.totalCount,
    perSecond: Math.round(h.totalCount / elapsed),
    errors,
    clientCpuMsPerRequest,
  };
}

/**
 * The query's load through the API, with the CPU per request the API processes and the views'
 * Redis spent during the measured part.
 */
async function apiLoad(
  key: string,
  tape: Tape,
  body: unknown,
  procs: ChildProcess[],
): Promise<LoadResult & { apiCpuMsPerRequest: number | null; redisCpuMsPerRequest: number }> {
  const cpu = () => procs.reduce((s, p) => s + (processCpuSeconds(p.pid) ?? NaN), 0);
  let api0 = 0;
  let redis0 = 0;
  let apiCpu = 0;
  let redisUsed = 0;
  const hooks: MeasureHooks = {
    start: async () => {
      api0 = cpu();
      redis0 = (await redisCpu(redis)).main;
    },
    end: async () => {
      apiCpu = cpu() - api0;
      redisUsed = (await redisCpu(redis)).main - redis0;
    },
  };
  const res =
    DRIVER === 'c'
      ? await wrkLoad({
          urls: PORTS.map((port) => `http://127.0.0.1:${port}${tape.path}`),
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          clients: CLIENTS,
          seconds: SECONDS,
          warmupSeconds: 2,
          hooks,
        })
      : await load(async () => void (await post(key, tape.path, body)), hooks);
  return {
    ...res,
    apiCpuMsPerRequest: msPerRequest(Number.isNaN(apiCpu) ? null : apiCpu, res.requests),
    redisCpuMsPerRequest: msPerRequest(redisUsed, res.requests),
  };
}

/** The query's load on PostgreSQL. */
function pgLoad(pool: Pool, q: SideBySideQuery): Promise<LoadResult> {
  if (DRIVER === 'node') return load(async () => void (await pool.query(q.sql, q.params)));
  return pgbenchLoad({ pgUrl: PG_URL, sql: inlinePgParams(q.sql, q.params), clients: CLIENTS, seconds: SECONDS, warmupSeconds: 2 });
}

// --- API -------------------------------------------------------------------------------------

async function startApi(): Promise<{ procs: ChildProcess[]; key: string }> {
  const store = new ApiKeyStore(keysRedis, config.keyPrefix, SECRET);
  const { key } = await store.create({ workspace: 'bench', user: `bench-${Date.now()}`, label: 'order-flow benchmark' });
  const procs = PORTS.map((port) =>
    spawn(process.execPath, nodeArgv('api/main.ts', [], API_NODE_ARGS), {
      env: {
        ...process.env,
        ...configEnv(config),
        PORT: String(port),
        API_KEY_SECRET: SECRET,
        MDQ_RATE_LIMIT_PER_MINUTE: '100000000',
        MDQ_BURST_LIMIT_PER_SECOND: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    }),
  );
  // Each process is used once it answers a request (healthy is not enough: Redis may not be up yet).
  for (const port of PORTS) {
    for (let i = 0; ; i++) {
      const ok = await post(key, TAPES[0].path, { sessionDate: SESSION, size: 1 }, port).then(
        () => true,
        () => false,
      );
      if (ok) break;
      if (i > 200) throw new Error('the API did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { procs, key };
}

// undici's Pool rather than fetch: fetch costs the load generator several times more CPU per
// request, and the load generator shares the 2 cores with the API, Redis and PostgreSQL.
const pools = new Map<number, HttpPool>();
/** POST to one API process: `port`, or the next one in turn. */
async function post(key: string, p: string, body: unknown, port = PORTS[turn++ % PORTS.length]): Promise<any> {
  let pool = pools.get(port);
  if (!pool) pools.set(port, (pool = new HttpPool(`http://127.0.0.1:${port}`, { connections: CLIENTS })));
  const res = await pool.request({
    path: p,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.body.json()) as any;
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

// --- the queries -----------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!SESSION) throw new Error('usage: bench:queries -- <sessionDate> [--seconds N] [--clients N] [--skip-pg-load]');
  const pool = new Pool({ connectionString: PG_URL, max: CLIENTS });
  const out: Record<string, unknown> = {
    session: SESSION,
    clients: CLIENTS,
    apiProcesses: API_PROCESSES,
    responseCache: CACHE_OFF ? 'off (MDQ_API_CACHE_MB=0)' : 'on (default): every client repeats the same request',
    seconds: SECONDS,
    machine: '2 cores shared by the API, Redis, PostgreSQL and the load generator',
    driver: DRIVER === 'c' ? 'wrk (API) and pgbench (PostgreSQL), 1 thread each' : 'Node: undici (parsing each answer) and node-postgres',
    at: new Date().toISOString(),
  };
  if (!SKIP_PG_LOAD) {
    for (const tape of TAPES) {
      const r = await loadOrderFlowTape(pool, redis, config.keyPrefix, [SESSION], tape);
      console.log(
        `[pg] ${tape.table}: ${r.rows} rows loaded and indexed in ${r.seconds.toFixed(0)} s; table ${(r.tableBytes / 2 ** 20).toFixed(0)} MiB, indexes ${(r.indexBytes / 2 ** 20).toFixed(0)} MiB`,
      );
      out[`pg_${tape.name}`] = { ...r, bytesPerRow: Math.round((r.tableBytes + r.indexBytes) / r.rows) };
    }
  }
  const loadFile = path.join(repoRoot, 'test/bench/results/order-flow-pg-load.json');
  if (!SKIP_PG_LOAD) fs.writeFileSync(loadFile, `${JSON.stringify(out, null, 2)}\n`);
  else if (fs.existsSync(loadFile))
    Object.assign(out, Object.fromEntries(Object.entries(JSON.parse(fs.readFileSync(loadFile, 'utf8'))).filter(([k]) => k.startsWith('pg_'))));
  if (LOAD_ONLY) {
    await pool.end();
    redis.disconnect();
    keysRedis.disconnect();
    return;
  }
  const { procs, key } = await startApi();
  try {
    for (const tape of TAPES) {
      const results: Record<string, unknown>[] = [];
      for (const q of await orderFlowQueries({ redis, prefix: config.keyPrefix, session: SESSION, tape, pool, post: (p, body) => post(key, p, body) })) {
        // Same answer from both (ids of the page), so the comparison is like for like.
        const api = await post(key, tape.path, q.body);
        const pg = await pool.query(q.sql, q.params);
        const same = q.same(api, pg.rows);
        const redisRes = await apiLoad(key, tape, q.body, procs);
        const pgRes = API_ONLY ? null : await pgLoad(pool, q);
        const p99Ratio = pgRes ? Math.round((pgRes.p99 / redisRes.p99) * 100) / 100 : null;
        const row = { query: q.name, rows: api.data.length, sameRowsAsPostgres: same, redis: redisRes, postgres: pgRes, p99Ratio };
        console.log(JSON.stringify(row));
        results.push(row);
      }
      out[tape.name] = results;
    }
  } finally {
    for (const proc of procs) proc.kill('SIGTERM');
    for (const hp of pools.values()) await hp.close();
    await pool.end();
    redis.disconnect();
    keysRedis.disconnect();
  }
  const file = path.join(
    repoRoot,
    `test/bench/results/order-flow-queries${CLIENTS === 32 ? '' : `-${CLIENTS}-clients`}${API_PROCESSES === 1 ? '' : `-${API_PROCESSES}-api`}${CACHE_OFF ? '-no-cache' : ''}${API_ONLY ? '-api-only' : ''}${DRIVER === 'node' ? '-node-driver' : ''}.json`,
  );
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
