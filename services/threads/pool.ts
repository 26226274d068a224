import { Worker, parentPort, workerData, type ResourceLimits } from 'worker_threads';
import { AggregatorRegistry, collectDefaultMetrics, register, Registry } from 'prom-client';
import type { Logger } from '../log';
import type { MetricsSource } from '../metrics/serve';

/**
 * Worker threads of one process, each a consumer-group member of its own (the order-flow
 * processor's processing threads, the projector's projecting threads): one Node process then uses
 * several cores, and its threads share the partitions as separate processes would. The parent only
 * supervises:
 *
 * - a thread that fails or exits on its own ends the process with exit code 1 (a supervisor
 *   restarts it; the state is in Kafka and Redis, exactly once either way);
 * - `stop()` asks every thread to stop gracefully and exits 0 when all have;
 * - `metrics` sums the threads' prom-client registries with the parent's own process metrics (a
 *   partition's series is reported only by the thread that holds it), for serveMetrics.
 */

/** Parent -> thread: stop gracefully, or send the thread's metrics. */
export type ToThread = { kind: 'stop' } | { kind: 'metrics'; id: number };
/** Thread -> parent. */
export type FromThread = { kind: 'stopped' } | { kind: 'metrics'; id: number; metrics: unknown[] } | { kind: 'failed'; message: string };

export interface ThreadPoolOptions<T> {
  /** The thread's TypeScript entry (absolute path); it calls runAsThread. */
  entry: string;
  count: number;
  /** The workerData of thread `thread` (structured-cloneable). */
  task(thread: number): T;
  log: Logger;
  resourceLimits?: ResourceLimits;
}

export interface ThreadPool {
  /** Graceful stop of every thread, then process.exit(0). */
  stop(): void;
  /** The threads' metrics summed, with the parent's process metrics: a source for serveMetrics. */
  readonly metrics: MetricsSource;
}

export function startThreads<T>(o: ThreadPoolOptions<T>): ThreadPool {
  const workers: Worker[] = [];
  const pending = new Map<number, (metrics: unknown[]) => void>();
  let nextId = 0;
  let stopping = false;
  for (let thread = 0; thread < o.count; thread++) {
    // Loader hooks are per thread: the thread registers tsx itself before loading the TypeScript.
    const w = new Worker(`require('tsx/cjs'); require(${JSON.stringify(o.entry)});`, {
      eval: true,
      workerData: o.task(thread),
      resourceLimits: o.resourceLimits,
    });
    w.on('message', (m: FromThread) => {
      if (m.kind === 'metrics') pending.get(m.id)?.(m.metrics);
      else if (m.kind === 'failed') {
        o.log.error({ thread, err: m.message }, 'thread failed');
        process.exit(1);
      }
    });
    w.on('error', (err) => {
      o.log.error({ thread, err: err.message }, 'thread crashed');
      process.exit(1);
    });
    w.on('exit', (code) => {
      if (!stopping || code !== 0) {
        o.log.error({ thread, code }, 'thread exited');
        process.exit(1);
      }
    });
    workers.push(w);
  }

  // The parent's own process metrics, registered on the first scrape (as before the pool, only
  // a process serving /metrics pays for them).
  let own: Registry | null = null;
  const ask = (w: Worker) =>
    new Promise<unknown[]>((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => (pending.delete(id), resolve([])), 2_000);
      pending.set(id, (metrics) => (clearTimeout(timer), pending.delete(id), resolve(metrics)));
      w.postMessage({ kind: 'metrics', id } satisfies ToThread);
    });

  return {
    stop() {
      if (stopping) return;
      stopping = true;
      let left = workers.length;
      for (const w of workers) {
        w.on('message', (m: FromThread) => {
          if (m.kind === 'stopped' && --left === 0) process.exit(0);
        });
        w.postMessage({ kind: 'stop' } satisfies ToThread);
      }
    },
    metrics: {
      contentType: Registry.PROMETHEUS_CONTENT_TYPE,
      async metrics() {
        if (!own) collectDefaultMetrics({ register: (own = new Registry()) });
        const all = await Promise.all([own.getMetricsAsJSON(), ...workers.map(ask)]);
        return AggregatorRegistry.aggregate(all as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
      },
    },
  };
}

/**
 * The thread side: starts the thread's work from its workerData, answers the parent's metrics
 * requests from prom-client's global registry, stops gracefully when asked, and reports a failure
 * to start (which ends the process).
 */
export function runAsThread<T>(start: (task: T) => Promise<{ stop(): Promise<void> }>): void {
  const post = (m: FromThread) => parentPort!.postMessage(m);
  const task = workerData as T;
  let stopping = false;
  // Started before the parent's messages are listened to: a port queues what arrives until then.
  const running = start(task);
  running.catch((err: unknown) => post({ kind: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
  parentPort!.on('message', (m: ToThread) => {
    if (m.kind === 'metrics') {
      void register.getMetricsAsJSON().then((metrics) => post({ kind: 'metrics', id: m.id, metrics }));
    } else if (m.kind === 'stop' && !stopping) {
      stopping = true;
      void running
        .then((r) => r.stop())
        // The thread's own logger is the stopping work's; this is the last resort.
        .catch((err: unknown) => console.error('stop failed', err))
        .then(() => post({ kind: 'stopped' }));
    }
  });
}
