/**
 * The API beside PostgreSQL, the machinery of the query benchmarks that put the same questions to
 * both (open-interest-queries.ts, volatility-queries.ts): one API process with its response cache
 * off (every answer computed), PostgreSQL rows loaded in batches, a check that both give the same
 * answer, then each question measured on one side and then the other at the same client count.
 *
 * The load comes from wrk and pgbench (driver 'c', load-drivers.ts) or from Node clients in this
 * process (driver 'node': undici and node-postgres, which cost the machine more per request).
 */
import { ChildProcess, spawn } from 'child_process';
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { Pool as HttpPool } from 'undici';
import { ApiKeyStore } from '../../services/auth/api-keys';
import { nodeArgv } from '../../services/node-args';
import { processCpuSeconds } from '../support/cpu';
import { hasCommand, inlinePgParams, nodeLoad, msPerRequest, pgbenchLoad, wrkLoad, type LoadResult, type MeasureHooks } from './load-drivers';

export type Driver = 'c' | 'node';

/** wrk and pgbench where both are installed, else the Node clients. */
export function defaultDriver(): Driver {
  return hasCommand('wrk') && hasCommand('pgbench') ? 'c' : 'node';
}

/** One question, as an API request and as SQL, with what makes their answers the same. */
export interface SideBySideQuery {
  name: string;
  path: string;
  body: Record<string, unknown>;
  sql: string;
  params: unknown[];
  /** True when the API's JSON answer and PostgreSQL's rows say the same thing. */
  same: (api: any, rows: any[]) => boolean;
  /** Whether bench:endpoints measures it as the endpoint's typical or heavy request (untagged: only its family's script). */
  role?: 'typical' | 'heavy';
}

export interface BenchApi {
  port: number;
  key: string;
  process: ChildProcess;
  post(path: string, body: unknown): Promise<any>;
  /** The answer's status, Content-Type and exact bytes. */
  postRaw(path: string, body: unknown): Promise<{ status: number; contentType: string; bytes: Buffer }>;
  stop(): Promise<void>;
}

/**
 * One API process on `port` serving `prefix` with the response cache (unless `cacheMb`) and every
 * limit off, and an API key for it; returns once `probe` is answered (a healthy process may not
 * reach Redis yet). `env` is laid over this process's environment (Redis URLs, MDQ_API_WORKERS and
 * the like); `root` is the checkout whose api/main.ts runs (default this one), started in that
 * folder so that its own dependencies load.
 */
export async function startBenchApi(o: {
  port: number;
  prefix: string;
  secret: string;
  keysRedis: Redis;
  clients: number;
  probe: { path: string; body: unknown };
  env?: Record<string, string>;
  nodeFlags?: string[];
  root?: string;
  cacheMb?: number;
}): Promise<BenchApi> {
  const { key } = await new ApiKeyStore(o.keysRedis, o.prefix, o.secret).create({ workspace: 'bench', user: `bench-${Date.now()}`, label: 'query benchmark' });
  const child = spawn(process.execPath, nodeArgv('api/main.ts', [], o.nodeFlags ?? [], o.root), {
    cwd: o.root,
    env: {
      ...process.env,
      ...o.env,
      PORT: String(o.port),
      API_KEY_SECRET: o.secret,
      MDQ_KEY_PREFIX: o.prefix,
      MDQ_API_CACHE_MB: String(o.cacheMb ?? 0),
      MDQ_RATE_LIMIT_PER_MINUTE: '100000000',
      MDQ_BURST_LIMIT_PER_SECOND: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const http = new HttpPool(`http://127.0.0.1:${o.port}`, { connections: o.clients });
  const postRaw = async (p: string, body: unknown) => {
    const res = await http.request({
      path: p,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), bytes: Buffer.from(await res.body.arrayBuffer()) };
  };
  const post = async (p: string, body: unknown) => {
    const res = await postRaw(p, body);
    const text = res.bytes.toString('utf8');
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const stop = async () => {
    await http.close();
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; ; i++) {
    if (
      await post(o.probe.path, o.probe.body).then(
        () => true,
        () => false,
      )
    )
      break;
    if (i > 300 || child.exitCode !== null) {
      await stop();
      throw new Error('the API did not start');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { port: o.port, key, process: child, post, postRaw, stop };
}

/** Rows into `table` in batches of 5,000, one unnest per batch; `columns` maps each column to its array type. */
export async function insertRows(pool: Pool, table: string, columns: [name: string, arrayType: string][], rows: readonly unknown[][]): Promise<void> {
  const sql = `INSERT INTO ${table} (${columns.map(([c]) => c).join(', ')}) SELECT * FROM unnest(${columns.map(([, t], i) => `$${i + 1}::${t}`).join(', ')})`;
  for (let i = 0; i < rows.length; i += 5_000) {
    const part = rows.slice(i, i + 5_000);
    await pool.query(
      sql,
      columns.map((_, c) => part.map((r) => r[c])),
    );
  }
}

/** Whether the API and PostgreSQL answer `q` the same, logged with the size of PostgreSQL's answer. */
export async function sameAnswer(api: BenchApi, pool: Pool, q: SideBySideQuery, log?: (line: string) => void): Promise<boolean> {
  const answer = await api.post(q.path, q.body);
  const rows = (await pool.query(q.sql, q.params)).rows;
  const same = q.same(answer, rows);
  log?.(`${q.name}: ${same ? 'same answer' : 'ANSWERS DIFFER'} (${rows.length} PostgreSQL rows)`);
  return same;
}

export interface SideBySideRow {
  query: string;
  sameAnswerAsPostgres: boolean;
  api: LoadResult & { apiCpuMsPerRequest: number | null };
  postgres: LoadResult;
  /** API requests/s over PostgreSQL's. */
  throughputRatio: number;
}

/**
 * Each query answered once by both sides and compared, then loaded on the API and on PostgreSQL
 * in turn (`clients` closed loops for `seconds` after a warm-up). A query whose answers differ is
 * still measured and reported with sameAnswerAsPostgres false.
 */
export async function measureSideBySide(o: {
  api: BenchApi;
  pool: Pool;
  pgUrl: string;
  queries: readonly SideBySideQuery[];
  clients: number;
  seconds: number;
  warmupSeconds: number;
  driver: Driver;
  log?: (line: string) => void;
}): Promise<SideBySideRow[]> {
  const results: SideBySideRow[] = [];
  for (const q of o.queries) {
    const same = await sameAnswer(o.api, o.pool, q, o.log);
    let cpu0 = 0;
    let cpu = NaN;
    const hooks: MeasureHooks = {
      start: async () => void (cpu0 = processCpuSeconds(o.api.process.pid) ?? NaN),
      end: async () => void (cpu = (processCpuSeconds(o.api.process.pid) ?? NaN) - cpu0),
    };
    const api =
      o.driver === 'c'
        ? await wrkLoad({
            urls: [`http://127.0.0.1:${o.api.port}${q.path}`],
            headers: { Authorization: `Bearer ${o.api.key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(q.body),
            clients: o.clients,
            seconds: o.seconds,
            warmupSeconds: o.warmupSeconds,
            hooks,
          })
        : await nodeLoad({
            fn: async () => void (await o.api.post(q.path, q.body)),
            clients: o.clients,
            seconds: o.seconds,
            warmupSeconds: o.warmupSeconds,
            hooks,
          });
    const postgres =
      o.driver === 'c'
        ? await pgbenchLoad({ pgUrl: o.pgUrl, sql: inlinePgParams(q.sql, q.params), clients: o.clients, seconds: o.seconds, warmupSeconds: o.warmupSeconds })
        : await nodeLoad({
            fn: async () => void (await o.pool.query(q.sql, q.params)),
            clients: o.clients,
            seconds: o.seconds,
            warmupSeconds: o.warmupSeconds,
          });
    const row: SideBySideRow = {
      query: q.name,
      sameAnswerAsPostgres: same,
      api: { ...api, apiCpuMsPerRequest: msPerRequest(Number.isNaN(cpu) ? null : cpu, api.requests) },
      postgres,
      throughputRatio: Math.round((api.perSecond / postgres.perSecond) * 10) / 10,
    };
    o.log?.(JSON.stringify(row));
    results.push(row);
  }
  return results;
}

/** The median latency of 3 requests one after the other, ms: an answer's own cost, without queueing. */
export async function aloneMs(fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return Math.round(ms.sort((a, b) => a - b)[1] * 100) / 100;
}

/**
 * Whether a table endpoint's page equals PostgreSQL's rows fetched with one row more than the
 * page (LIMIT size + 1): the same ids in the same order, and a next cursor exactly when there is
 * a further row.
 */
export function samePage(
  api: { data: { id: unknown }[]; nextSearchAfter?: unknown },
  rows: Record<string, unknown>[],
  id: (row: any) => unknown = (r) => r.id,
): boolean {
  const page = api.data;
  return (
    page.length > 0 &&
    rows.length >= page.length &&
    page.every((r, i) => String(r.id) === String(id(rows[i]))) &&
    (api.nextSearchAfter !== undefined && api.nextSearchAfter !== null) === rows.length > page.length
  );
}

/** Numbers equal to a relative 1e-9 (both sides compute in float8, sometimes in another order). */
export const near = (a: unknown, b: unknown) =>
  typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
