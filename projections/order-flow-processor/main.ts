import http from 'http';
import path from 'path';
import { Worker } from 'worker_threads';
import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';
import { loadConfig, numberVar, portVar, positiveIntVar } from '../../services/config';
import { RISK_FREE_RATE } from '../../services/domain/rates';
import { createLogger } from '../../services/log';
import type { FromThread, ThreadTask, ToThread } from './worker';

/**
 * `npm run processor`: the order-flow processor (market.option-prints -> derived.order-flow.*).
 * Run any number of instances; they share the partitions through one consumer group. Each
 * process runs MDQ_PROCESSOR_THREADS processing threads (worker.ts), each its own group member,
 * so one process can use several cores; this thread only supervises them.
 *
 *   MDQ_RISK_FREE_RATE                risk-free rate for implied volatility and greeks (default 0.045)
 *   MDQ_PROCESSOR_THREADS             processing threads (default 1)
 *   MDQ_PROCESSOR_CHUNK               input messages per Kafka transaction (default 2000)
 *   MDQ_PROCESSOR_CONCURRENCY         partitions a thread processes at once (default 12)
 *   MDQ_PROCESSOR_FETCH_BYTES         bytes fetched per partition and request (default 1 MiB)
 *   MDQ_PROCESSOR_STATE_SAVE_MS       longest time between two state writes of a partition that is behind (default 5000; 0: after every commit)
 *   MDQ_PROCESSOR_SESSION_TIMEOUT_MS  consumer group session timeout (default 30000)
 *   MDQ_PROCESSOR_CRASH_AFTER_COMMITS test hook: SIGKILL the process after a thread's Nth Kafka commit
 *   METRICS_PORT                      serve Prometheus /metrics on this port (all threads summed)
 *
 * SIGTERM / SIGINT: every thread finishes its current chunks, commits, leaves the group; exit 0.
 * A thread that fails ends the process with exit code 1 (a supervisor restarts it; the state is
 * in Kafka and Redis).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('order-flow-processor', config.logLevel);
  const env = process.env;
  const threads = positiveIntVar('MDQ_PROCESSOR_THREADS', 1, env, 64);
  const base: Omit<ThreadTask, 'thread'> = {
    config,
    rate: numberVar('MDQ_RISK_FREE_RATE', RISK_FREE_RATE, 'a rate between -1 and 1 (exclusive)', (v) => Number.isFinite(v) && v > -1 && v < 1, env),
    chunkSize: positiveIntVar('MDQ_PROCESSOR_CHUNK', 2_000, env),
    concurrency: positiveIntVar('MDQ_PROCESSOR_CONCURRENCY', 12, env),
    fetchBytesPerPartition: numberVar('MDQ_PROCESSOR_FETCH_BYTES', 1024 * 1024, 'an integer of at least 1024', (v) => Number.isInteger(v) && v >= 1024, env),
    stateSaveIntervalMs: numberVar('MDQ_PROCESSOR_STATE_SAVE_MS', 5_000, 'an integer of at least 0', (v) => Number.isInteger(v) && v >= 0, env),
    sessionTimeoutMs: numberVar('MDQ_PROCESSOR_SESSION_TIMEOUT_MS', 30_000, 'an integer of at least 1000', (v) => Number.isInteger(v) && v >= 1_000, env),
    crashAfterCommits: env.MDQ_PROCESSOR_CRASH_AFTER_COMMITS ? positiveIntVar('MDQ_PROCESSOR_CRASH_AFTER_COMMITS', 0, env) : undefined,
  };
  log.info({ threads, rate: base.rate, chunkSize: base.chunkSize }, 'starting');

  const entry = path.join(__dirname, 'worker.ts');
  const workers: Worker[] = [];
  let stopping = false;
  let nextId = 0;
  const pending = new Map<number, (metrics: unknown[]) => void>();
  for (let thread = 0; thread < threads; thread++) {
    const task: ThreadTask = { ...base, thread };
    // Loader hooks are per thread: the thread registers tsx itself before loading the TypeScript.
    // A larger young generation: processing allocates fast and short-lived (decoding, events,
    // encoding), and fewer, larger scavenges cost less (measured; README).
    const w = new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: task, resourceLimits: { maxYoungGenerationSizeMb: 96 } });
    w.on('message', (m: FromThread) => {
      if (m.kind === 'metrics') pending.get(m.id)?.(m.metrics);
      else if (m.kind === 'failed') {
        log.error({ thread, err: m.message }, 'processing thread failed');
        process.exit(1);
      }
    });
    w.on('error', (err) => {
      log.error({ thread, err: err.message }, 'processing thread crashed');
      process.exit(1);
    });
    w.on('exit', (code) => {
      if (!stopping || code !== 0) {
        log.error({ thread, code }, 'processing thread exited');
        process.exit(1);
      }
    });
    workers.push(w);
  }

  if (env.METRICS_PORT) {
    const port = portVar('METRICS_PORT', 0, env);
    const own = new Registry();
    collectDefaultMetrics({ register: own });
    // Each thread has its own registry: ask every thread, sum the series (a partition is
    // reported only by the thread that holds it).
    const ask = (w: Worker) =>
      new Promise<unknown[]>((resolve) => {
        const id = nextId++;
        const timer = setTimeout(() => (pending.delete(id), resolve([])), 2_000);
        pending.set(id, (metrics) => (clearTimeout(timer), pending.delete(id), resolve(metrics)));
        w.postMessage({ kind: 'metrics', id } satisfies ToThread);
      });
    const server = http.createServer((req, res) => {
      if ((req.url ?? '').split('?')[0] !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found; metrics are at GET /metrics\n');
        return;
      }
      Promise.all([own.getMetricsAsJSON(), ...workers.map(ask)])
        .then((all) => AggregatorRegistry.aggregate(all as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics())
        .then(
          (text) => res.writeHead(200, { 'Content-Type': own.contentType }).end(req.method === 'HEAD' ? undefined : text),
          (err) => {
            log.error({ err: (err as Error).message }, 'metrics collection failed');
            res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics collection failed\n');
          },
        );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, () => resolve());
    });
    server.unref();
    log.info({ port }, 'metrics on /metrics');
  }

  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing the current chunks, committing, leaving the group');
    let left = workers.length;
    for (const w of workers) {
      w.on('message', (m: FromThread) => {
        if (m.kind !== 'stopped') return;
        if (--left === 0) process.exit(0);
      });
      w.postMessage({ kind: 'stop' } satisfies ToThread);
    }
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
