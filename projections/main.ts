import { loadConfig, portVar, positiveIntVar } from '../services/config';
import { createKafka, createRegistry } from '../services/kafka/clients';
import { createLogger } from '../services/log';
import { processRegistry } from '../services/metrics/registry';
import { serveMetrics } from '../services/metrics/serve';
import { createRedis } from '../services/redis/client';
import { PROJECTIONS, projectionByView } from './registry';
import { DEFAULT_CHUNK_ROWS, DEFAULT_PARTITIONS_CONCURRENTLY } from './runtime/runner';
import { ViewProjector } from './runtime/view-projector';

/**
 * `npm run projector`               run every view family (or those named: `-- news`)
 * `npm run projector -- rebuild V`  replay view V into a new version, flip, then keep projecting
 *
 * With METRICS_PORT set, Prometheus metrics (applied offsets and lag per view, version, topic and
 * partition, plus process metrics) are served at GET /metrics on that port.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('projector', config.logLevel);
  const args = process.argv.slice(2);
  const rebuild = args[0] === 'rebuild';
  const names = rebuild ? args.slice(1) : args;
  const projections = names.length ? names.map((n) => projectionByView(n) ?? fail(`unknown view '${n}'`)) : [...PROJECTIONS];
  const kafka = createKafka(config, 'mdq-projector', log);
  const registry = createRegistry(config);
  const redis = createRedis(config.viewsRedisUrl, log);
  if (process.env.METRICS_PORT) await serveMetrics(portVar('METRICS_PORT', 0), processRegistry(), log);
  const partitionsConcurrently = positiveIntVar('MDQ_PROJECTOR_CONCURRENCY', DEFAULT_PARTITIONS_CONCURRENTLY, process.env, 64);
  const chunkSize = positiveIntVar('MDQ_PROJECTOR_CHUNK', DEFAULT_CHUNK_ROWS, process.env, 20_000);
  const projectors = projections.map(
    (projection) => new ViewProjector({ kafka, registry, redis, projection, topicPrefix: config.topicPrefix, keyPrefix: config.keyPrefix, log, partitionsConcurrently, chunkSize }),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing the current batch, committing, leaving the group');
    await Promise.all(projectors.map((p) => p.stop()));
    await redis.quit().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (rebuild) {
    for (const p of projectors) {
      const { from, to } = await p.rebuild();
      log.info({ from, to }, 'rebuild complete');
    }
  } else {
    for (const p of projectors) await p.start();
  }
}

function fail(msg: string): never {
  throw new Error(msg);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
