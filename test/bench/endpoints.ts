/**
 * Every endpoint, side by side with the ceiling of its stack and with PostgreSQL, in one run:
 *
 *   npm run bench:endpoints -- [--workers N] [--api-root DIR] [--only TEXT] [--families F,G] [--seconds 5]
 *                              [--clients 1,32] [--label NAME] [--check] [--table RESULTS.json]
 *
 * For each of the twenty endpoints a typical request and, where it has one, a heavy one (the
 * cases tagged in test/bench/cases/*.ts), each measured at every client count on three sides:
 *  (a) the API as deployed: api/main.ts of this checkout or of `--api-root DIR` (another checkout,
 *      for "before" figures), with MDQ_API_WORKERS=N (default one per core), response cache off;
 *  (b) a bare Express handler serving the exact bytes the API answered, in as many cluster
 *      workers (test/bench/bare-server.ts): the ceiling of Node + Express on this machine;
 *  (c) PostgreSQL answering the same question over the same rows with indexes (PG_URL), its
 *      answer checked equal to the API's first. A mismatch is reported as such and the case is
 *      still timed; it never counts as equal.
 * Then one cache hit: the API with its response cache on, against the bare handler.
 *
 * Data, in a private redis-server and PostgreSQL tables dropped at the end: the `full` profile's
 * session of every 8th underlying plus 29 earlier sessions of one ticker, with both order-flow
 * tapes (cases/flow-aggregations.ts, as flow-aggregations.ts); the `dev` history's volatility
 * (400 sessions, 2 with ticks), open interest (400 sessions) and equities (a tick session and 30
 * before it); a week of news. `--only TEXT[,TEXT…]` keeps the cases whose endpoint or name contains one of them
 * (and loads only their families when TEXT names an endpoint; `--families flow,news` loads only
 * those, for a TEXT that names no endpoint); `--check` compares the answers and
 * times nothing; `--table FILE` prints an earlier results file's table. Load comes from wrk and
 * pgbench (`apt-get install -y wrk postgresql-client`).
 * Results: test/bench/results/endpoints[-NAME].json (`--label NAME`; `--only` without a label
 * writes endpoints-only.json).
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { parseArgs } from 'util';
import type { Pool } from 'pg';
import { freePort } from '../../services/stack/process';
import { formatKey, pointerKey } from '../../services/views/keys';
import { OPEN_INTEREST_FORMAT, OPEN_INTEREST_VIEW } from '../../services/views/open-interest';
import { nodeArgv } from '../../services/node-args';
import { privateRedisServer } from '../support/bench-redis';
import { devHistory, projectHistory } from '../support/open-interest-history';
import { equitiesQueries, loadEquities } from './cases/equities';
import { flowCases, flowQuery, loadFlowData } from './cases/flow-aggregations';
import { newsQueries, loadNews } from './cases/news';
import { loadOpenInterestPostgres, openInterestQueries } from './cases/open-interest';
import { TAPES, loadOrderFlowTape, orderFlowQueries } from './cases/order-flow';
import { loadVolatilityPostgres, volatilityQueries } from './cases/volatility';
import { hasCommand, inlinePgParams, pgbenchLoad, wrkLoad, type LoadResult } from './load-drivers';
import { PG_URL, openPostgres } from './postgres';
import { aloneMs, startBenchApi, type BenchApi, type SideBySideQuery } from './side-by-side';
import { projectDevHistory } from './volatility-history';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: String(os.cpus().length) },
    'api-root': { type: 'string' },
    only: { type: 'string', default: '' },
    families: { type: 'string', default: '' },
    seconds: { type: 'string', default: '5' },
    clients: { type: 'string', default: '1,32' },
    label: { type: 'string' },
    check: { type: 'boolean', default: false },
    table: { type: 'string' },
  },
});
const WORKERS = Number(values.workers);
const API_ROOT = values['api-root'] ? path.resolve(values['api-root']) : undefined;
const ONLY = values.only!;
const SECONDS = Number(values.seconds);
const CLIENT_COUNTS = values.clients!.split(',').map(Number);
/** The longest run of one side of a case: a slow answer's run is lengthened up to this. */
const MAX_SECONDS = 20;
/** An answer slower than this alone gets no warm-up run (its leftover requests would outlast it). */
const SLOW_MS = 100;
const SECRET = 'endpoints-bench-secret-0123456789';
const PREFIX = 'mdq';
const STAMP = Date.now().toString(36);
/** The data's dates: those of the family benchmarks, so that the figures compare with theirs. */
const FLOW_DATE = '2024-05-01';
const VOLATILITY_THROUGH = '2026-11-20';
/** The warm session of the order-flow cases: this many sessions before FLOW_DATE (issue 35's "25 sessions back"). */
const WARM_BACK = 25;
const EQUITIES_DATE = '2026-11-19';
const NEWS_END = Date.parse('2026-11-21T00:00:00Z');
const CACHE_HIT_CASE = 'order-flow/consolidated: first page, unfiltered';

/** One measured question: a family's tagged case, named by its endpoint. */
interface EndpointCase extends SideBySideQuery {
  endpoint: string;
  role: 'typical' | 'heavy';
}

const endpointOf = (p: string) => p.slice(p.indexOf('/tool/') + '/tool/'.length);

/** The families and the endpoints each serves, so that `--only ENDPOINT` loads only what it needs. */
const FAMILIES = {
  flow: [
    'contract-trade-side-statistics',
    'contract-statistics',
    'market-share',
    'gainers-losers',
    'option-price-over-time',
    'net-flow',
    'net-drift',
    'volatility-drift',
  ],
  orderFlow: ['order-flow/consolidated', 'order-flow/unconsolidated'],
  volatility: ['iv-rank', 'term-structure', 'exposure-by-strike', 'interval-map', 'exposure-by-expiration', 'volatility-skew', 'heat-map'],
  openInterest: ['open-interest-change', 'open-interest-over-time', 'max-pain', 'open-interest-by-expiration', 'open-interest-by-strike', 'max-pain-over-time'],
  equities: ['equity-prints', 'dark-pool-levels', 'exchange-notifications', 'market-map', 'dark-flow', 'stock-price-over-time'],
  news: ['news-articles'],
};
/** `--only` takes one text or several, comma-separated: a case is kept when it contains any. */
const ONLYS = ONLY ? ONLY.split(',') : [];
const namesEndpoint = ONLYS.length > 0 && ONLYS.every((o) => Object.values(FAMILIES).some((eps) => eps.some((e) => e.includes(o))));
const FAMILY_LIST = values.families ? values.families.split(',') : [];
for (const f of FAMILY_LIST) if (!(f in FAMILIES)) throw new Error(`--families: no family ${f} (${Object.keys(FAMILIES).join(', ')})`);
const wanted = (family: keyof typeof FAMILIES) =>
  FAMILY_LIST.length ? FAMILY_LIST.includes(family) : !ONLY || !namesEndpoint || FAMILIES[family].some((e) => ONLYS.some((o) => e.includes(o)));

const log = (line: string) => console.log(line);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every family's data into the private Redis and PostgreSQL; the tables to drop at the end are collected in `tables`. */
async function loadData(
  redis: BenchRedis,
  pool: Pool,
  tables: string[],
): Promise<{ info: Record<string, unknown>; cases: (api: BenchApi) => Promise<EndpointCase[]> }> {
  const info: Record<string, unknown> = {};
  const builders: ((api: BenchApi) => Promise<SideBySideQuery[]>)[] = [];
  const t0 = Date.now();
  const took = () => `${Math.round((Date.now() - t0) / 1000)} s`;
  // News is always loaded: its page is the probe that says the API is up.
  const newsTable = `bench_news_${STAMP}`;
  tables.push(newsTable);
  const news = await loadNews(redis, PREFIX, pool, newsTable, NEWS_END);
  info.news = news;
  builders.push(async () => newsQueries(news));
  log(`[data] news: ${news.articles} articles (${took()})`);
  if (wanted('flow') || wanted('orderFlow')) {
    const table = `bench_flow_${STAMP}`;
    tables.push(table, `${table}_px`);
    const flow = await loadFlowData(redis, pool, { table, date: FLOW_DATE, every: 8, sessions: 30, consolidated: true, tapeHistory: wanted('orderFlow'), log });
    info.flow = flow;
    builders.push(async () =>
      flowCases(flow)
        .filter((c) => c.role)
        .map(flowQuery),
    );
    if (wanted('orderFlow')) {
      const tapes = TAPES.map((t) => ({ ...t, table: `bench_of_${t.name}_${STAMP}` }));
      const loaded: Record<string, unknown> = {};
      // The prints tape also holds the ticker's earlier sessions, all but the newest few warm: one
      // of them, WARM_BACK sessions before the date, is read back too, for its warm cases.
      const warm = { session: flow.historySessions[flow.historySessions.length - WARM_BACK], ticker: flow.ticker, back: WARM_BACK };
      for (const tape of tapes) {
        tables.push(tape.table);
        const sessions = tape.name === 'unconsolidated' ? [FLOW_DATE, warm.session] : [FLOW_DATE];
        loaded[tape.name] = await loadOrderFlowTape(pool, redis, PREFIX, sessions, tape);
      }
      info.orderFlow = loaded;
      log(`[data] order-flow tapes in PostgreSQL (${took()})`);
      builders.push(async (api) => {
        const out: SideBySideQuery[] = [];
        for (const tape of tapes)
          out.push(
            ...(await orderFlowQueries({
              redis,
              prefix: PREFIX,
              session: FLOW_DATE,
              tape,
              pool,
              post: (p, body) => api.post(p, body),
              warm: tape.name === 'unconsolidated' ? warm : undefined,
            })),
          );
        return out;
      });
    }
  }
  if (wanted('volatility')) {
    const projected = await projectDevHistory(redis, PREFIX, { sessions: 400, tickSessions: 2, through: VOLATILITY_THROUGH });
    tables.push('bench_vol_snap', 'bench_vol_quote', 'bench_vol_oi');
    info.volatility = { sessions: projected.days.length, quotes: projected.quotes, postgres: await loadVolatilityPostgres(pool, redis, PREFIX) };
    builders.push(async () => volatilityQueries(VOLATILITY_THROUGH));
    log(`[data] volatility: ${projected.quotes} quotes (${took()})`);
  }
  if (wanted('openInterest')) {
    // The newest completed session as the API sees it, so that its default session is the history's newest.
    const history = devHistory(400);
    await projectHistory(redis, PREFIX, history);
    await redis.set(formatKey(PREFIX, OPEN_INTEREST_VIEW, 1), String(OPEN_INTEREST_FORMAT));
    await redis.set(pointerKey(PREFIX, OPEN_INTEREST_VIEW), '1');
    tables.push('bench_oi', 'bench_px');
    info.openInterest = { sessions: history.sessions.length, rows: history.openInterest.length, postgres: await loadOpenInterestPostgres(pool, history) };
    builders.push(async () => openInterestQueries(history));
    log(`[data] open interest: ${history.openInterest.length} rows (${took()})`);
  }
  if (wanted('equities')) {
    const table = `bench_eq_${STAMP}`;
    tables.push(...['prints', 'prices', 'notices', 'instruments'].map((t) => `${table}_${t}`));
    const eq = await loadEquities(redis, PREFIX, pool, table, EQUITIES_DATE, log);
    info.equities = eq;
    builders.push((api) => equitiesQueries(eq, (endpoint, body) => api.post(`/v1/equities/tool/${endpoint}`, body)));
    log(`[data] equities (${took()})`);
  }
  info.preparedSeconds = Math.round((Date.now() - t0) / 1000);
  const cases = async (api: BenchApi) => {
    const all: EndpointCase[] = [];
    for (const build of builders)
      for (const q of await build(api))
        if (q.role)
          all.push({
            ...q,
            role: q.role,
            endpoint: endpointOf(q.path),
            name: q.name.includes(endpointOf(q.path)) ? q.name : `${endpointOf(q.path)}: ${q.name}`,
          });
    return all.filter((c) => !ONLYS.length || ONLYS.some((o) => c.name.includes(o)));
  };
  return { info, cases };
}

type BenchRedis = Awaited<ReturnType<typeof privateRedisServer>>['redis'];

/** The API's processes: the one started and its node children (cluster workers). */
function apiProcesses(pid: number | undefined): number {
  const ps = spawnSync('ps', ['--ppid', String(pid), '-o', 'comm='], { encoding: 'utf8' });
  return 1 + ps.stdout.split('\n').filter((c) => c.trim() === 'node').length;
}

/** The bare handler's cluster on `port`, answering entry i of `answers` at /bare/<i>; resolves once it answers. */
async function startBare(port: number, answers: { contentType: string; bytes: Buffer }[]): Promise<{ process: ChildProcess; stop: () => Promise<void> }> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-bare-')), 'answers.json');
  fs.writeFileSync(file, JSON.stringify(answers.map((a) => ({ contentType: a.contentType, base64: a.bytes.toString('base64') }))));
  const child = spawn(process.execPath, nodeArgv('test/bench/bare-server.ts'), {
    env: { ...process.env, BARE_RESPONSES: file, BARE_WORKERS: String(WORKERS), PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  };
  // Every worker answering: a few requests in a row succeed.
  for (let i = 0, ok = 0; ok < 4 * WORKERS; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/bare/0`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(
      () => null,
    );
    ok = res?.ok ? ok + 1 : 0;
    await res?.arrayBuffer();
    if (i > 300 || child.exitCode !== null) {
      await stop();
      throw new Error('the bare handler did not start');
    }
    if (!ok) await sleep(200);
  }
  return { process: child, stop };
}

/**
 * wrk leaves its last requests in flight and the API still answers them: wait until /healthz
 * answers fast a few times in a row (a request queues behind whatever a worker still computes),
 * so that one run's leftovers do not slow the next.
 */
async function settleApi(api: BenchApi): Promise<void> {
  for (let t0 = Date.now(), fast = 0; fast < 2 * WORKERS && Date.now() - t0 < 180_000;) {
    const t = Date.now();
    await fetch(`http://127.0.0.1:${api.port}/healthz`).then(
      (r) => r.arrayBuffer(),
      () => null,
    );
    fast = Date.now() - t < 20 ? fast + 1 : 0;
    if (!fast) await sleep(250);
  }
}

/** PostgreSQL finishes a query whose client has gone, too: wait until no pgbench query runs. */
async function settlePostgres(pool: Pool): Promise<void> {
  for (let t0 = Date.now(); Date.now() - t0 < 180_000; await sleep(250)) {
    const busy = await pool.query(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'pgbench' AND state = 'active' AND datname = current_database()`,
    );
    if (Number(busy.rows[0].n) === 0) return;
  }
}

interface Side {
  api: LoadResult;
  bare: LoadResult;
  postgres: LoadResult;
  seconds: { api: number; bare: number; postgres: number };
  apiOverBare: number | null;
  apiOverPostgres: number | null;
}

/** `clients` closed loops for long enough that each completes an answer of `ms` a few times, capped. */
const secondsFor = (ms: number, clients: number) => Math.min(MAX_SECONDS, Math.max(SECONDS, Math.ceil((3 * clients * ms) / 1000)));

async function measure(o: {
  api: BenchApi;
  barePort: number;
  bareIndex: number;
  pool: Pool;
  q: SideBySideQuery;
  clients: number;
  alone: { api: number; postgres: number };
}): Promise<Side> {
  const body = JSON.stringify(o.q.body);
  const headers = { Authorization: `Bearer ${o.api.key}`, 'Content-Type': 'application/json' };
  const seconds = { api: secondsFor(o.alone.api, o.clients), bare: SECONDS, postgres: secondsFor(o.alone.postgres, o.clients) };
  const warm = (ms: number) => (ms > SLOW_MS ? 0 : 1);
  const api = await wrkLoad({
    urls: [`http://127.0.0.1:${o.api.port}${o.q.path}`],
    headers,
    body,
    clients: o.clients,
    seconds: seconds.api,
    warmupSeconds: warm(o.alone.api),
  });
  await settleApi(o.api);
  const bare = await wrkLoad({
    urls: [`http://127.0.0.1:${o.barePort}/bare/${o.bareIndex}`],
    headers,
    body,
    clients: o.clients,
    seconds: seconds.bare,
    warmupSeconds: 1,
  });
  const postgres = await pgbenchLoad({
    pgUrl: PG_URL,
    sql: inlinePgParams(o.q.sql, o.q.params),
    clients: o.clients,
    seconds: seconds.postgres,
    warmupSeconds: warm(o.alone.postgres),
  });
  await settlePostgres(o.pool);
  return {
    api,
    bare,
    postgres,
    seconds,
    ...ratios({ api, bare, postgres, seconds }),
  };
}

/**
 * Requests/s before rounding: LoadResult's is a whole number, 0 for an answer slower than two
 * seconds, which would make every ratio of a slow case 0 or infinite.
 */
const rate = (r: LoadResult, seconds: number) => (r.perSecond >= 100 ? r.perSecond : r.requests / seconds);
const ratio = (a: number, b: number) => (b === 0 ? null : Number((a / b).toPrecision(2)));

function ratios(s: Pick<Side, 'api' | 'bare' | 'postgres' | 'seconds'>): Pick<Side, 'apiOverBare' | 'apiOverPostgres'> {
  const api = rate(s.api, s.seconds.api);
  return { apiOverBare: ratio(api, rate(s.bare, s.seconds.bare)), apiOverPostgres: ratio(api, rate(s.postgres, s.seconds.postgres)) };
}

/** The issue's goals, at the highest client count (single-client latency: p50 at one client). */
function goalOf(role: 'typical' | 'heavy' | 'cache hit', runs: Record<string, Side>): { goal: string; met: boolean } | null {
  const top = runs[String(Math.max(...CLIENT_COUNTS))];
  const one = runs['1'];
  if (!top) return null;
  const bare = top.apiOverBare ?? 0;
  const pg = top.apiOverPostgres ?? 0;
  if (role === 'typical') return { goal: 'API ≥ 0.5× bare and ≥ 1× PostgreSQL', met: bare >= 0.5 && pg >= 1 };
  if (role === 'heavy')
    return {
      goal: 'API ≥ 0.25× bare, ≥ 10× PostgreSQL, single-client p50 ≤ 20 ms',
      met: bare >= 0.25 && pg >= 10 && one !== undefined && one.api.p50 <= 20,
    };
  return { goal: 'API ≥ 0.7× bare', met: bare >= 0.7 };
}

const ms = (x: number) => (x < 100 ? String(Math.round(x * 10) / 10) : Math.round(x).toLocaleString('en-US'));
const perSecond = (r: LoadResult, seconds: number) =>
  r.perSecond >= 10 ? r.perSecond.toLocaleString('en-US') : String(Math.round((r.requests / seconds) * 10) / 10);
// A run in which no answer came back has no latency to show: it says how long it waited.
const fmt = (r: LoadResult, seconds: number) => (r.requests === 0 ? `none in ${seconds} s` : `${perSecond(r, seconds)} (${ms(r.p50)} / ${ms(r.p99)})`);

interface TableRow {
  case: string;
  role: string;
  same: boolean | null;
  runs: Record<string, Side>;
  goal: { met: boolean } | null;
}

/** The results as the table of docs/benchmarks.md: requests/s (p50 / p99 ms) per side and client count, then the ratios. */
function markdown(rows: readonly TableRow[], counts: readonly number[]): string {
  const head = [
    ...counts.flatMap((c) => [`API, ${c} cl.`, `bare, ${c} cl.`, `PostgreSQL, ${c} cl.`]),
    `API ÷ bare (${counts.join(' / ')} cl.)`,
    `API ÷ PostgreSQL (${counts.join(' / ')} cl.)`,
  ];
  const lines = [`| case | role | same answer as PostgreSQL | ${head.join(' | ')} | goal met? |`, `|${'---|'.repeat(head.length + 4)}`];
  for (const r of rows) {
    const side = (c: number) => r.runs[String(c)];
    const cells = [
      ...counts.flatMap((c) => {
        const x = side(c);
        return x ? [fmt(x.api, x.seconds.api), fmt(x.bare, x.seconds.bare), r.same === null ? '—' : fmt(x.postgres, x.seconds.postgres)] : ['', '', ''];
      }),
      counts.map((c) => `${side(c)?.apiOverBare ?? ''}×`).join(' / '),
      r.same === null ? '—' : counts.map((c) => `${side(c)?.apiOverPostgres ?? ''}×`).join(' / '),
    ];
    lines.push(
      `| ${r.case} | ${r.role} | ${r.same === null ? '—' : r.same ? 'yes' : '**no**'} | ${cells.join(' | ')} | ${r.goal ? (r.goal.met ? 'yes' : '**no**') : ''} |`,
    );
  }
  return lines.join('\n');
}

/**
 * `--table FILE`: the table of an earlier results file, for the docs, its ratios and goals derived
 * again from the stored requests and durations (and written back) as this version derives them.
 */
function printTable(file: string): void {
  const res = JSON.parse(fs.readFileSync(file, 'utf8'));
  const rescore = (runs: Record<string, Side>) => {
    for (const s of Object.values(runs)) Object.assign(s, ratios(s));
  };
  for (const c of res.cases) {
    rescore(c.runs);
    c.goal = goalOf(c.role, c.runs);
  }
  if (res.cacheHit) {
    rescore(res.cacheHit.runs);
    res.cacheHit.goal = goalOf('cache hit', res.cacheHit.runs);
  }
  const rows: TableRow[] = res.cases.map((c: any) => ({ case: c.case, role: c.role, same: c.sameAnswerAsPostgres, runs: c.runs, goal: c.goal }));
  if (res.cacheHit) rows.push({ case: `cache hit: ${res.cacheHit.case}`, role: 'cache hit', same: null, runs: res.cacheHit.runs, goal: res.cacheHit.goal });
  res.table = markdown(rows, res.clients);
  fs.writeFileSync(file, `${JSON.stringify(res, null, 2)}\n`);
  console.log(res.table);
}

async function main(): Promise<void> {
  if (values.table) return printTable(values.table);
  for (const cmd of ['wrk', 'pgbench'])
    if (!hasCommand(cmd)) throw new Error(`${cmd} is not on the PATH: apt-get install -y ${cmd === 'wrk' ? 'wrk' : 'postgresql-client'}`);
  if (API_ROOT && !fs.existsSync(path.join(API_ROOT, 'api/main.ts'))) throw new Error(`--api-root ${API_ROOT} has no api/main.ts`);
  if (API_ROOT && !fs.existsSync(path.join(API_ROOT, 'node_modules'))) throw new Error(`--api-root ${API_ROOT} has no node_modules (cp -al this checkout's)`);
  const { redis, server } = await privateRedisServer();
  const pool = await openPostgres(4);
  const url = `redis://127.0.0.1:${redis.options.port}`;
  const tables: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  try {
    const { info, cases: casesFor } = await loadData(redis, pool, tables);
    // The API as deployed (MDQ_API_WORKERS workers), response cache off unless `cacheMb`.
    const startApi = async (cacheMb: number) =>
      startBenchApi({
        port: await freePort(),
        prefix: PREFIX,
        secret: SECRET,
        keysRedis: redis,
        clients: 4,
        probe: { path: '/v1/news/tool/news-articles', body: { size: 1 } },
        env: {
          // The API reads only Redis; its configuration still names the event store.
          KAFKA_BROKERS: '127.0.0.1:9092',
          SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
          REDIS_URL: url,
          VIEWS_REDIS_URL: url,
          MDQ_API_WORKERS: String(WORKERS),
        },
        root: API_ROOT,
        cacheMb,
      });
    let api = await startApi(0);
    stops.push(() => api.stop());
    // A probe answered by one worker says little of the others: a few more before any measurement.
    for (let i = 0; i < 4 * WORKERS; i++) await api.post('/v1/news/tool/news-articles', { size: 1 });
    const processes = apiProcesses(api.process.pid);
    log(`[api] ${API_ROOT ?? 'this checkout'}: ${processes} process(es) with MDQ_API_WORKERS=${WORKERS}`);

    // Every answer captured and checked before any timing.
    const cases = await casesFor(api);
    const answers: { contentType: string; bytes: Buffer }[] = [];
    const checked: { same: boolean; rows: number; bytes: number }[] = [];
    for (const c of cases) {
      const res = await api.postRaw(c.path, c.body);
      if (res.status !== 200) throw new Error(`${c.name}: the API answered ${res.status}: ${res.bytes.toString('utf8').slice(0, 300)}`);
      const rows = (await pool.query(c.sql, c.params)).rows;
      const same = c.same(JSON.parse(res.bytes.toString('utf8')), rows);
      answers.push({ contentType: res.contentType, bytes: res.bytes });
      checked.push({ same, rows: rows.length, bytes: res.bytes.length });
      log(`[check] ${c.name}: ${same ? 'same answer as PostgreSQL' : 'ANSWERS DIFFER from PostgreSQL'} (${rows.length} rows, ${res.bytes.length} bytes)`);
    }
    if (values.check) {
      if (checked.some((c) => !c.same)) process.exitCode = 1;
      return;
    }
    const barePort = await freePort();
    const bare = await startBare(barePort, answers);
    stops.push(bare.stop);

    const results: Record<string, unknown>[] = [];
    const table: TableRow[] = [];
    let cacheHit: Record<string, unknown> | null = null;
    const name = values.label ? `endpoints-${values.label}` : ONLY ? 'endpoints-only' : 'endpoints';
    const file = path.join(__dirname, 'results', `${name}.json`);
    // Written after every case, so that a run cut short keeps what it measured (complete: false).
    const save = (complete: boolean) => {
      const out = {
        measuredAt: new Date().toISOString(),
        complete,
        api: {
          root: API_ROOT ?? 'this checkout',
          workers: WORKERS,
          processesSeen: processes,
          responseCache: 'off (MDQ_API_CACHE_MB=0), but for the cache-hit case',
        },
        bare: { workers: WORKERS, what: 'express.json() then the captured bytes (test/bench/bare-server.ts)' },
        postgres: 'PostgreSQL 15 at PG_URL, pgbench with prepared statements, one thread',
        clients: CLIENT_COUNTS,
        seconds: SECONDS,
        maxSeconds: MAX_SECONDS,
        machine: `${os.cpus().length} cores shared by the API, Redis, PostgreSQL, the load generators and other sessions`,
        goals: {
          typical: 'at the highest client count: API ≥ 0.5× bare and ≥ 1× PostgreSQL requests/s',
          heavy: 'at the highest client count: API ≥ 0.25× bare and ≥ 10× PostgreSQL requests/s; one client: p50 ≤ 20 ms',
          cacheHit: 'API ≥ 0.7× bare requests/s',
        },
        data: info,
        cases: results,
        cacheHit,
        table: markdown(table, CLIENT_COUNTS),
      };
      fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    };
    for (const [i, c] of cases.entries()) {
      const alone = { api: await aloneMs(() => api.post(c.path, c.body)), postgres: await aloneMs(() => pool.query(c.sql, c.params)) };
      const runs: Record<string, Side> = {};
      for (const clients of CLIENT_COUNTS) {
        runs[clients] = await measure({ api, barePort, bareIndex: i, pool, q: c, clients, alone });
        const s = runs[clients];
        log(
          `${c.name} @${clients}: API ${fmt(s.api, s.seconds.api)} (${s.api.errors} errors) | bare ${fmt(s.bare, s.seconds.bare)} | PG ${fmt(s.postgres, s.seconds.postgres)} | ÷bare ${s.apiOverBare}× ÷PG ${s.apiOverPostgres}×`,
        );
      }
      const goal = goalOf(c.role, runs);
      results.push({
        endpoint: c.endpoint,
        case: c.name,
        role: c.role,
        body: c.body,
        sameAnswerAsPostgres: checked[i].same,
        ...checked[i],
        aloneMs: alone,
        runs,
        goal,
      });
      table.push({ case: c.name, role: c.role, same: checked[i].same, runs, goal });
      save(false);
    }

    // The cache hit: the same question again through an API with its response cache on.
    const hitIndex = cases.findIndex((c) => c.name === CACHE_HIT_CASE);
    if (hitIndex >= 0) {
      await api.stop();
      api = await startApi(64);
      stops.push(() => api.stop());
      const c = cases[hitIndex];
      const runs: Record<string, Side> = {};
      for (const clients of CLIENT_COUNTS) {
        runs[clients] = await measure({ api, barePort, bareIndex: hitIndex, pool, q: c, clients, alone: { api: 1, postgres: 1 } });
        const s = runs[clients];
        log(`cache hit, ${c.name} @${clients}: API ${fmt(s.api, s.seconds.api)} | bare ${fmt(s.bare, s.seconds.bare)} | ÷bare ${s.apiOverBare}×`);
      }
      const goal = goalOf('cache hit', runs);
      cacheHit = { case: c.name, responseCacheMb: 64, runs, goal };
      table.push({ case: `cache hit: ${c.name}`, role: 'cache hit', same: null, runs, goal });
    }

    save(true);
    console.log(`\n${markdown(table, CLIENT_COUNTS)}\n`);
    log(`results written to ${path.relative(process.cwd(), file)}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    for (const t of tables) await pool.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    await pool.end();
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
