import path from 'path';
import { loadConfig, numberVar, portVar, positiveIntVar } from '../services/config';
import { createLogger } from '../services/log';
import { processRegistry } from '../services/metrics/registry';
import { serveMetrics } from '../services/metrics/serve';
import { startThreads } from '../services/threads/pool';
import { PROJECTOR_YOUNG_GENERATION_MB } from '../services/node-args';
import { createProjectors, type ProjectorSettings } from './projectors';
import { PROJECTIONS, projectionByView } from './registry';
import { DEFAULT_CHUNK_ROWS, DEFAULT_PARTITIONS_CONCURRENTLY, DEFAULT_SESSION_TIMEOUT_MS } from './runtime/runner';
import type { ProjectorThreadTask } from './thread';
import { onStopSignal } from '../services/stop-signal';

/**
 * `npm run projector`               run every view family (or those named: `-- news`)
 * `npm run projector -- rebuild V [--follow]`
 *                                   replay view V into a new version, flip the pointer, drop the old
 *                                   version and end; a running projector (npm start's) follows the
 *                                   new version by itself. --follow keeps this process projecting.
 *
 *   MDQ_PROJECTOR_THREADS      projecting threads (default 1): each projects the named views as a
 *                              member of their consumer groups (thread.ts), so one process can
 *                              use several cores; a rebuild always runs in one thread
 *   MDQ_PROJECTOR_CHUNK        messages per atomic apply (default DEFAULT_CHUNK_ROWS)
 *   MDQ_PROJECTOR_CONCURRENCY  batches handed to the partition lanes at once
 *   MDQ_PROJECTOR_SESSION_TIMEOUT_MS
 *                              consumer group session timeout (default 30000; at least 6000, the
 *                              broker's minimum): how soon a killed projector's partitions move on
 *   METRICS_PORT               serve Prometheus /metrics on this port (all threads summed):
 *                              applied offsets and lag per view, version, topic and partition,
 *                              plus process metrics
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('projector', config.logLevel);
  const args = process.argv.slice(2);
  const rebuild = args[0] === 'rebuild';
  const follow = rebuild && args.includes('--follow');
  const names = (rebuild ? args.slice(1) : args).filter((a) => a !== '--follow');
  const projections = names.length ? names.map((n) => projectionByView(n) ?? fail(`unknown view '${n}'`)) : [...PROJECTIONS];
  const settings: ProjectorSettings = {
    partitionsConcurrently: positiveIntVar('MDQ_PROJECTOR_CONCURRENCY', DEFAULT_PARTITIONS_CONCURRENTLY, process.env, 64),
    chunkSize: positiveIntVar('MDQ_PROJECTOR_CHUNK', DEFAULT_CHUNK_ROWS, process.env, 20_000),
    sessionTimeoutMs: numberVar(
      'MDQ_PROJECTOR_SESSION_TIMEOUT_MS',
      DEFAULT_SESSION_TIMEOUT_MS,
      'an integer of at least 6000',
      (v) => Number.isInteger(v) && v >= 6_000,
      process.env,
    ),
  };
  const threads = positiveIntVar('MDQ_PROJECTOR_THREADS', 1, process.env, 16);
  const metricsPort = process.env.METRICS_PORT ? portVar('METRICS_PORT', 0) : null;

  if (threads > 1 && !rebuild) {
    const pool = startThreads<ProjectorThreadTask>({
      entry: path.join(__dirname, 'thread.ts'),
      count: threads,
      task: (thread) => ({ ...settings, config, thread, views: projections.map((p) => p.view) }),
      log,
      // The young generation the single-threaded process gets from its node flags (node-args.ts).
      resourceLimits: { maxYoungGenerationSizeMb: PROJECTOR_YOUNG_GENERATION_MB },
    });
    if (metricsPort !== null) await serveMetrics(metricsPort, pool.metrics, log);
    log.info({ threads, views: projections.map((p) => p.view) }, 'projecting threads started');
    const stop = (signal: string) => {
      log.info({ signal }, 'stopping: finishing the current batch, committing, leaving the group');
      pool.stop();
    };
    onStopSignal(stop);
    return;
  }

  if (metricsPort !== null) await serveMetrics(metricsPort, processRegistry(), log);
  const set = createProjectors(config, projections, settings, log);
  const shutdown = async (signal: string) => {
    log.info({ signal }, 'stopping: finishing the current batch, committing, leaving the group');
    await set.stop();
    process.exit(0);
  };
  onStopSignal((signal) => void shutdown(signal));

  if (rebuild) {
    for (const p of set.projectors) {
      const { from, to } = await p.rebuild();
      log.info({ from, to }, 'rebuild complete');
    }
    if (!follow) {
      log.info('rebuild done; ending (a running projector follows the new version; pass --follow to keep this one projecting)');
      await set.stop();
      process.exit(0);
    }
    log.info('rebuild done; following the new version (--follow): stop with Ctrl-C');
  } else {
    for (const p of set.projectors) await p.start();
  }
}

function fail(msg: string): never {
  throw new Error(msg);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
