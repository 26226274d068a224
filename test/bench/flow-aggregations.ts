/**
 * The flow-aggregation endpoints beside PostgreSQL answering the same questions with GROUP BY over
 * the same prints, in one run: `npx tsx test/bench/flow-aggregations.ts [--seconds 5]
 * [--clients 32] [--date 2024-05-01] [--every 8] [--sessions 30] [--ticker T] [--check-only]`
 * (`--check-only`: the answers compared, nothing timed or written).
 *
 * Data: one whole simulated `full` session of every `--every`-th underlying (all their option
 * prints, enriched by the processor's own fold; test/support/order-flow-sample.ts), projected into
 * the prints view and the cube of a private redis-server with the projections' own logic (no
 * Kafka), plus the `--sessions` - 1 sessions before it of one ticker (cube only: the case reading
 * them is served from the cube), generated with the simulator the same way. The same prints go
 * into a PostgreSQL table (PG_URL, test/bench/postgres.ts) with covering indexes for each
 * question. The one ticker is the busiest with at most 20,000 prints in the session (a liquid
 * single name whose 30 sessions fit in memory), unless `--ticker` names one.
 *
 * Each case is checked first (the API's answer equals the one built from PostgreSQL's rows), then
 * run for `--seconds` at `--clients` closed-loop clients against the API in this process with
 * its response cache off (wrk) and against PostgreSQL (pgbench, prepared statements;
 * test/bench/load-drivers.ts). Goals (issue 27): every cube-served case ≥ 20× PostgreSQL's
 * requests/s with p99 ≤ 50 ms; the scanning case no slower than the order-flow tape's selective
 * query, measured in the same run. A slow answer (one client alone) gets a longer run, up to 20 s. Results to test/bench/results/flow-aggregations.json.
 */
import fs from 'fs';
import path from 'path';
import { parseArgs } from 'util';
import { loadConfig } from '../../services/config';
import { privateRedisServer } from '../support/bench-redis';
import { startApi } from '../support/http';
import { FLOW_INDEXES, firstDifference, flowCases, loadFlowData, type FlowCase } from './cases/flow-aggregations';
import { hasCommand, pgbenchLoad, wrkLoad, type LoadResult } from './load-drivers';
import { PG_URL, openPostgres } from './postgres';
import { aloneMs } from './side-by-side';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    clients: { type: 'string', default: '32' },
    date: { type: 'string', default: '2024-05-01' },
    every: { type: 'string', default: '8' },
    sessions: { type: 'string', default: '30' },
    ticker: { type: 'string' },
    'check-only': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
/** The longest run of one side of a case (a slow answer's run is lengthened up to this). */
const MAX_SECONDS = 20;
/** An answer slower than this alone gets no warm-up run (its leftover requests would outlast it). */
const SLOW_MS = 100;
const T = `bench_flow_${Date.now().toString(36)}`;

async function main(): Promise<void> {
  for (const cmd of ['wrk', 'pgbench'])
    if (!hasCommand(cmd)) throw new Error(`${cmd} is not on the PATH: apt-get install -y ${cmd === 'wrk' ? 'wrk' : 'postgresql-client'}`);
  const { redis, server } = await privateRedisServer();
  const pool = await openPostgres(4);
  const url = `redis://127.0.0.1:${redis.options.port}`;
  try {
    const d = await loadFlowData(redis, pool, {
      table: T,
      date: values.date!,
      every: Number(values.every),
      sessions: Number(values.sessions),
      ticker: values.ticker,
    });
    const api = await startApi(
      {
        ...loadConfig({ ...process.env, KAFKA_BROKERS: 'unused:9092', SCHEMA_REGISTRY_URL: 'http://unused', REDIS_URL: url }),
        redisUrl: url,
        viewsRedisUrl: url,
        keyPrefix: 'mdq',
      },
      { responseCacheBytes: 0 },
    );
    const results: Record<string, unknown>[] = [];
    try {
      const all = flowCases(d);
      // Every answer checked before any timing: a mismatch stops the run.
      const checked = new Map<FlowCase, { rows: number; answerBytes: number }>();
      for (const c of all) {
        const res = await api.post(`/v1/options/tool/${c.path}`, c.body);
        if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${JSON.stringify(res.json)}`);
        const size = JSON.stringify(res.json.data).length;
        if (c.sql) {
          const diff = firstDifference(res.json.data, c.data!((await pool.query(c.sql)).rows));
          if (diff) throw new Error(`${c.name}: the API and PostgreSQL disagree: ${diff}`);
        }
        checked.set(c, { rows: Array.isArray(res.json.data) ? res.json.data.length : Object.keys(res.json.data).length, answerBytes: size });
        console.log(`[check] ${c.name}: ${c.sql ? 'same answer as PostgreSQL' : 'answered'} (${checked.get(c)!.rows} keys)`);
      }
      const tape = { api: null as LoadResult | null };
      // PostgreSQL finishes a query whose client has gone, too.
      const pgDrain = async () => {
        for (let t0 = Date.now(); Date.now() - t0 < 120_000; await new Promise((r) => setTimeout(r, 250))) {
          const busy = await pool.query(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%${T}%'`,
          );
          if (Number(busy.rows[0].n) === 0) return;
        }
      };
      // wrk leaves its last requests in flight, and the API still answers them: wait until a
      // cheap answer is fast again, so that one case's leftovers do not slow the next.
      const cheap = all[0];
      const drain = async () => {
        for (let t0 = Date.now(); Date.now() - t0 < 120_000;) {
          const t = Date.now();
          await api.post(`/v1/options/tool/${cheap.path}`, cheap.body);
          if (Date.now() - t < 20) return;
          await new Promise((r) => setTimeout(r, 250));
        }
      };
      if (values['check-only']) return;
      for (const c of all) {
        // One client alone first (the answer's own cost); a slow answer gets a longer run, so that
        // 32 closed-loop clients complete each request a few times (capped at MAX_SECONDS).
        const apiAlone = await aloneMs(() => api.post(`/v1/options/tool/${c.path}`, c.body));
        const pgAlone = c.sql ? await aloneMs(() => pool.query(c.sql!)) : null;
        const secondsFor = (ms: number) => Math.min(MAX_SECONDS, Math.max(SECONDS, Math.ceil((3 * CLIENTS * ms) / 1000)));
        const apiLoad = await wrkLoad({
          urls: [`${api.url}/v1/options/tool/${c.path}`],
          headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(c.body),
          clients: CLIENTS,
          seconds: secondsFor(apiAlone),
          warmupSeconds: apiAlone > SLOW_MS ? 0 : 1,
        });
        await drain();
        const pgLoad = c.sql
          ? await pgbenchLoad({ pgUrl: PG_URL, sql: c.sql, clients: CLIENTS, seconds: secondsFor(pgAlone!), warmupSeconds: pgAlone! > SLOW_MS ? 0 : 1 })
          : null;
        await pgDrain();
        if (c.kind === 'reference') tape.api = apiLoad;
        const ratio = pgLoad ? Math.round((apiLoad.perSecond / pgLoad.perSecond) * 10) / 10 : null;
        const row: Record<string, unknown> = {
          case: c.name,
          kind: c.kind,
          body: c.body,
          ...checked.get(c),
          aloneMs: { api: apiAlone, postgres: pgAlone },
          seconds: { api: secondsFor(apiAlone), postgres: pgAlone === null ? null : secondsFor(pgAlone) },
          api: apiLoad,
          postgres: pgLoad,
          throughputRatio: ratio,
        };
        if (c.kind === 'cube') row.goalMet = ratio !== null && ratio >= 20 && apiLoad.p99 <= 50;
        results.push(row);
        console.log(
          `${c.name}: alone API ${apiAlone} ms${pgAlone === null ? '' : `, PG ${pgAlone} ms`}; API p50 ${apiLoad.p50} p99 ${apiLoad.p99} ms ${apiLoad.perSecond}/s (${apiLoad.errors} errors)` +
            (pgLoad ? ` | PG p50 ${pgLoad.p50} p99 ${pgLoad.p99} ms ${pgLoad.perSecond}/s | ${ratio}×` : ''),
        );
      }
      for (const r of results.filter((x) => x.kind === 'scan')) {
        const a = r.api as LoadResult;
        r.goalMet = tape.api !== null && a.p99 <= tape.api.p99 && a.perSecond >= tape.api.perSecond;
      }
    } finally {
      await api.close();
    }
    const size = await pool.query(`SELECT pg_table_size('${T}') AS t, pg_indexes_size('${T}') AS i`);
    const out = {
      measuredAt: new Date().toISOString(),
      data: {
        session: d.date,
        underlyings: d.underlyings,
        prints: d.prints,
        ticker: d.ticker,
        tickerPrints: d.tickerPrints,
        osi: d.osi,
        earlierSessionsOfTicker: d.historySessions.length,
        earlierPrints: d.historyPrints,
        preparedSeconds: Math.round(d.seconds),
        postgres: { rows: d.prints + d.historyPrints, tableBytes: Number(size.rows[0].t), indexBytes: Number(size.rows[0].i), indexes: FLOW_INDEXES },
      },
      clients: CLIENTS,
      seconds: SECONDS,
      responseCache: 'off: every answer computed',
      driver: 'wrk (API, in this process) and pgbench (PostgreSQL, prepared statements), 1 thread each',
      machine: '2 cores shared by the API, Redis, PostgreSQL, the load generators and other sessions',
      goals: 'cube cases: throughputRatio ≥ 20 and API p99 ≤ 50 ms; scan case: p99 and requests/s no worse than the tape reference',
      cases: results,
    };
    const file = path.join(__dirname, 'results', 'flow-aggregations.json');
    fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`results written to ${path.relative(process.cwd(), file)}`);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${T}`).catch(() => undefined);
    await pool.query(`DROP TABLE IF EXISTS ${T}_px`).catch(() => undefined);
    await pool.end();
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
