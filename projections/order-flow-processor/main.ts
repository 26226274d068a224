import path from 'path';
import { loadConfig, numberVar, portVar, positiveIntVar } from '../../services/config';
import { configuredRiskFreeRate } from '../../services/domain/rates';
import { createLogger } from '../../services/log';
import { serveMetrics } from '../../services/metrics/serve';
import { startThreads } from '../../services/threads/pool';
import type { ThreadTask } from './worker';
import { onStopSignal } from '../../services/stop-signal';

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
    rate: configuredRiskFreeRate(env),
    chunkSize: positiveIntVar('MDQ_PROCESSOR_CHUNK', 2_000, env),
    concurrency: positiveIntVar('MDQ_PROCESSOR_CONCURRENCY', 12, env),
    fetchBytesPerPartition: numberVar('MDQ_PROCESSOR_FETCH_BYTES', 1024 * 1024, 'an integer of at least 1024', (v) => Number.isInteger(v) && v >= 1024, env),
    stateSaveIntervalMs: numberVar('MDQ_PROCESSOR_STATE_SAVE_MS', 5_000, 'an integer of at least 0', (v) => Number.isInteger(v) && v >= 0, env),
    sessionTimeoutMs: numberVar('MDQ_PROCESSOR_SESSION_TIMEOUT_MS', 30_000, 'an integer of at least 1000', (v) => Number.isInteger(v) && v >= 1_000, env),
    crashAfterCommits: env.MDQ_PROCESSOR_CRASH_AFTER_COMMITS ? positiveIntVar('MDQ_PROCESSOR_CRASH_AFTER_COMMITS', 0, env) : undefined,
  };
  log.info({ threads, rate: base.rate, chunkSize: base.chunkSize }, 'starting');

  const pool = startThreads<ThreadTask>({
    entry: path.join(__dirname, 'worker.ts'),
    count: threads,
    task: (thread) => ({ ...base, thread }),
    log,
    // A larger young generation: processing allocates fast and short-lived (decoding, events,
    // encoding), and fewer, larger scavenges cost less (measured with bench:processor).
    resourceLimits: { maxYoungGenerationSizeMb: 96 },
  });
  // Each thread has its own registry: the pool sums them.
  if (env.METRICS_PORT) (await serveMetrics(portVar('METRICS_PORT', 0, env), pool.metrics, log)).unref();

  const shutdown = (signal: string) => {
    log.info({ signal }, 'stopping: finishing the current chunks, committing, leaving the group');
    pool.stop();
  };
  onStopSignal(shutdown);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
