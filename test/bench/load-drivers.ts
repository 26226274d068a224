/**
 * Load generators for the query benchmark, written in C: wrk for the API (HTTP) and pgbench for
 * PostgreSQL. Both run closed loops (each client sends its next request when the previous answer
 * has arrived), like the Node clients they replace, and both read every byte of every answer.
 *
 * Why not Node: the load generator shares this machine's 2 cores with what it measures. The Node
 * clients (undici, plus JSON.parse of each 44 KB page; node-postgres) cost about a quarter of the
 * API's own CPU per request, and node-postgres made PostgreSQL look twice as slow as pgbench
 * measures it (docs/benchmarks.md); wrk and pgbench cost a tenth of that. Their own
 * CPU is reported with each result (`clientCpuMsPerRequest`), so a reader can see what the
 * measurement itself took.
 *
 * wrk comes from Debian (`apt-get install -y wrk`); pgbench with PostgreSQL's client.
 */
import { spawn, spawnSync } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import * as hdr from 'hdr-histogram-js';

export interface LoadResult {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  requests: number;
  perSecond: number;
  errors: number;
  /** CPU the load generator itself used per request, ms (null where /proc cannot tell). */
  clientCpuMsPerRequest: number | null;
}

/** Called right before and right after the measured part (not the warm-up), e.g. to read CPU counters. */
export interface MeasureHooks {
  start(): Promise<void>;
  end(): Promise<void>;
}

/** Microseconds as milliseconds to two decimals, as every LoadResult latency is given. */
export const usToMs = (us: number) => Math.round(us / 10) / 100;

/** CPU seconds spread over requests, in ms per request to three decimals (null stays null). */
export function msPerRequest(cpuSeconds: number, requests: number): number;
export function msPerRequest(cpuSeconds: number | null, requests: number): number | null;
export function msPerRequest(cpuSeconds: number | null, requests: number): number | null {
  return cpuSeconds === null ? null : Math.round((cpuSeconds * 1e6) / requests) / 1000;
}

export function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Runs a command to its end; its stdout, stderr and the CPU seconds it used (rusage of the child). */
function run(cmd: string, argv: string[]): Promise<{ stdout: string; stderr: string; cpuSeconds: number | null }> {
  return new Promise((resolve, reject) => {
    // /usr/bin/time is not on every machine; the child's CPU comes from bash's `times` instead.
    const script = `"$@"; rc=$?; times >&2; exit $rc`;
    const child = spawn('bash', ['-c', script, 'bash', cmd, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${cmd} exited with ${code}: ${stderr.slice(-2000)}`));
      // `times` prints the shell's own user/sys, then its children's: "0m1.234s 0m0.567s".
      const lines = stderr.trim().split('\n');
      const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s/.exec(lines[lines.length - 1] ?? '');
      const cpuSeconds = m ? Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) : null;
      resolve({ stdout, stderr: lines.slice(0, -2).join('\n'), cpuSeconds });
    });
  });
}

/**
 * The latency at a percentile of several runs together, each run given as its request count and
 * its 1,000 quantiles (at 0.1 %, 0.2 %, ... 100 %): each quantile stands for a thousandth of its
 * run's requests.
 */
export function mergedQuantiles(runs: readonly { requests: number; quantiles: readonly number[] }[]): (percent: number) => number {
  const weighted = runs.flatMap((r) => r.quantiles.map((v) => ({ v, w: r.requests / r.quantiles.length }))).sort((a, b) => a.v - b.v);
  const total = runs.reduce((s, r) => s + r.requests, 0);
  return (percent: number) => {
    let seen = 0;
    for (const x of weighted) if ((seen += x.w) >= (total * percent) / 100 - 1e-9) return x.v;
    return weighted[weighted.length - 1].v;
  };
}

/** The query with its bind values written in as literals (pgbench scripts take none). */
export function inlinePgParams(sql: string, params: unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const v = params[Number(n) - 1];
    // A float8 prints as its shortest exact form, which reads back as the same float8.
    return typeof v === 'number' ? `${v}::float8` : `'${String(v).replace(/'/g, "''")}'`;
  });
}

/** A Lua long-bracket string literal holding `s` exactly (no escapes are read inside one). */
export const luaString = (s: string) => {
  let eq = '';
  while (s.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[${s}]${eq}]`;
};

/**
 * `clients` closed loops in this process calling `fn` back to back for `seconds` after a warm-up
 * (errors counted, not thrown): the Node driver, for machines without wrk and pgbench. Its own
 * CPU per request is this whole process's over the measured part.
 */
export async function nodeLoad(o: {
  fn: () => Promise<void>;
  clients: number;
  seconds: number;
  warmupSeconds: number;
  hooks?: MeasureHooks;
}): Promise<LoadResult> {
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
  let errors = 0;
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const t = process.hrtime.bigint();
      try {
        await o.fn();
      } catch {
        errors++;
      }
      if (measuring) h.recordValue(Number((process.hrtime.bigint() - t) / 1000n));
    }
  };
  const loops = Array.from({ length: o.clients }, loop);
  await new Promise((r) => setTimeout(r, o.warmupSeconds * 1000));
  await o.hooks?.start();
  measuring = true;
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, o.seconds * 1000));
  measuring = false;
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (Date.now() - t0) / 1000;
  await o.hooks?.end();
  stop = true;
  await Promise.all(loops);
  const result: LoadResult = {
    p50: usToMs(h.getValueAtPercentile(50)),
    p90: usToMs(h.getValueAtPercentile(90)),
    p99: usToMs(h.getValueAtPercentile(99)),
    max: usToMs(h.maxValue),
    requests: h.totalCount,
    perSecond: Math.round(h.totalCount / elapsed),
    errors,
    clientCpuMsPerRequest: msPerRequest((cpu.user + cpu.system) / 1e6, h.totalCount),
  };
  h.destroy();
  return result;
}

/**
 * `clients` connections POSTing `body` for `seconds`, after a warm-up of `warmupSeconds` (a
 * separate run, not measured). One wrk process of one thread per URL, the connections shared out
 * between them (several URLs: several API processes, as behind a load balancer). A non-2xx answer
 * counts as an error. Each wrk reports its latency distribution as 1,000 quantiles; several are
 * merged by weighting each quantile with its process's request count (exact to 0.1 % of rank).
 */
export async function wrkLoad(o: {
  urls: string[];
  headers: Record<string, string>;
  body: string;
  clients: number;
  seconds: number;
  warmupSeconds: number;
  hooks?: MeasureHooks;
}): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-wrk-'));
  const script = path.join(dir, 'post.lua');
  const headers = Object.entries(o.headers)
    .map(([k, v]) => `wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`)
    .join('\n');
  fs.writeFileSync(
    script,
    `wrk.method = "POST"
wrk.body = ${luaString(o.body)}
${headers}
done = function(summary, latency, requests)
  local e = summary.errors
  local q = {}
  for i = 1, 1000 do q[i] = latency:percentile(i / 10) end
  io.write(string.format('MDQ {"requests":%d,"durationUs":%d,"errors":%d,"max":%d,"quantiles":[%s]}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout, latency.max, table.concat(q, ",")))
end
`,
  );
  const share = (i: number) => Math.floor(o.clients / o.urls.length) + (i < o.clients % o.urls.length ? 1 : 0);
  const argv = (url: string, clients: number, seconds: number) => ['-t1', `-c${clients}`, `-d${seconds}s`, '--timeout', '30s', '-s', script, url];
  const runAll = (seconds: number) => Promise.all(o.urls.map((url, i) => run('wrk', argv(url, share(i), seconds))));
  try {
    if (o.warmupSeconds > 0) await runAll(o.warmupSeconds);
    await o.hooks?.start();
    const runs = await runAll(o.seconds);
    await o.hooks?.end();
    const parts = runs.map((r) => {
      const line = r.stdout.split('\n').find((l) => l.startsWith('MDQ '));
      if (!line) throw new Error(`wrk printed no summary: ${r.stdout}`);
      return {
        ...(JSON.parse(line.slice(4)) as { requests: number; durationUs: number; errors: number; max: number; quantiles: number[] }),
        cpuSeconds: r.cpuSeconds,
      };
    });
    const at = mergedQuantiles(parts);
    const requests = parts.reduce((s, p) => s + p.requests, 0);
    const cpu = parts.every((p) => p.cpuSeconds !== null) ? parts.reduce((s, p) => s + p.cpuSeconds!, 0) : null;
    return {
      p50: usToMs(at(50)),
      p90: usToMs(at(90)),
      p99: usToMs(at(99)),
      max: usToMs(Math.max(...parts.map((p) => p.max))),
      requests,
      perSecond: Math.round(parts.reduce((s, p) => s + p.requests / (p.durationUs / 1e6), 0)),
      errors: parts.reduce((s, p) => s + p.errors, 0),
      clientCpuMsPerRequest: msPerRequest(cpu, requests),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `clients` pgbench connections (one thread, prepared statements, as an application server would
 * use) running `sql` for `seconds` after a warm-up; latencies from pgbench's per-transaction log.
 */
export async function pgbenchLoad(o: { pgUrl: string; sql: string; clients: number; seconds: number; warmupSeconds: number }): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-pgbench-'));
  const script = path.join(dir, 'query.sql');
  fs.writeFileSync(script, `${o.sql.replace(/\s+/g, ' ').trim()};\n`);
  const argv = (seconds: number, log: boolean) => [
    '-n', // no vacuum of pgbench's own tables (there are none)
    '-M',
    'prepared',
    `-c${o.clients}`,
    '-j1',
    `-T${seconds}`,
    '-f',
    script,
    ...(log ? ['-l', `--log-prefix=${path.join(dir, 'log')}`] : []),
    o.pgUrl,
  ];
  try {
    if (o.warmupSeconds > 0) await run('pgbench', argv(o.warmupSeconds, false));
    const r = await run('pgbench', argv(o.seconds, true));
    // Each log line: client_id transaction_no latency_us script_no epoch_s epoch_us.
    const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
    let first = Infinity;
    let last = 0;
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith('log'))) {
      for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
        const p = line.split(' ');
        if (p.length < 6) continue;
        const latencyUs = Number(p[2]);
        const endUs = Number(p[4]) * 1e6 + Number(p[5]);
        h.recordValue(latencyUs);
        first = Math.min(first, endUs - latencyUs);
        last = Math.max(last, endUs);
      }
    }
    const failed = /number of failed transactions: (\d+)/.exec(r.stdout);
    const result: LoadResult = {
      p50: usToMs(h.getValueAtPercentile(50)),
      p90: usToMs(h.getValueAtPercentile(90)),
      p99: usToMs(h.getValueAtPercentile(99)),
      max: usToMs(h.maxValue),
      requests: h.totalCount,
      perSecond: Math.round(h.totalCount / ((last - first) / 1e6)),
      errors: failed ? Number(failed[1]) : 0,
      clientCpuMsPerRequest: msPerRequest(r.cpuSeconds, h.totalCount),
    };
    h.destroy();
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
