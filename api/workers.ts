import cluster, { Worker } from 'cluster';
import type { Logger } from '../services/log';
import { serveClusterMetrics } from '../services/metrics/cluster-metrics';
import { onStopSignal } from '../services/stop-signal';

/**
 * The API as one primary and `count` worker processes (Node's cluster module), so every core
 * answers requests: the workers share the listening port (the primary hands connections out in
 * turn), each has its own Redis connections, key cache and response cache, and the quota stays
 * exact because it is counted in Redis. The primary serves no request: it starts the workers,
 * replaces one that dies, sums their metrics for /metrics, and stops them on SIGTERM or SIGINT.
 */
export function superviseWorkers(count: number, log: Logger): void {
  serveClusterMetrics();
  let stopping = false;
  /** Recent unexpected exits: a worker that dies at once again and again is restarted ever more slowly. */
  let recentDeaths: number[] = [];

  const fork = () => {
    const w = cluster.fork();
    w.on('online', () => log.debug({ worker: w.id, pid: w.process.pid }, 'API worker online'));
  };

  cluster.on('exit', (w: Worker, code, signal) => {
    if (stopping) return;
    const now = Date.now();
    recentDeaths = [...recentDeaths.filter((t) => now - t < 60_000), now];
    const delayMs = Math.min(10_000, 100 * 2 ** (recentDeaths.length - 1));
    log.error({ worker: w.id, pid: w.process.pid, code, signal, restartInMs: delayMs }, 'API worker died; starting another');
    setTimeout(() => !stopping && fork(), delayMs);
  });

  const stop = () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    let left = workers.length;
    if (left === 0) process.exit(0);
    for (const w of workers) {
      w.once('exit', () => --left === 0 && process.exit(0));
      w.process.kill('SIGTERM');
    }
  };
  onStopSignal(stop, 8_000);

  for (let i = 0; i < count; i++) fork();
  log.info({ workers: count }, 'API primary started its workers');
}
