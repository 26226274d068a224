import cluster from 'cluster';
import { ApiKeyStore } from '../services/auth/api-keys';
import { loadKeySecret } from '../services/auth/secret';
import { loadConfig } from '../services/config';
import { createLogger } from '../services/log';
import { workerMetrics } from '../services/metrics/cluster-metrics';
import { processRegistry } from '../services/metrics/registry';
import { createRedis, redisReady } from '../services/redis/client';
import { defaultDataDir } from '../services/stack/paths';
import { configureServer, createApp } from './app';
import { loadApiSettings } from './settings';
import { streamSettingsFromEnv } from './streams/routes';
import { superviseWorkers } from './workers';
import { onStopSignal } from '../services/stop-signal';

/**
 * `npm run api`: the stateless API, one worker process per core by default (MDQ_API_WORKERS,
 * api/workers.ts); run as many as needed behind a load balancer.
 */
function main(): void {
  const config = loadConfig();
  const settings = loadApiSettings();
  const root = createLogger('api', config.logLevel);
  if (settings.workers > 1 && cluster.isPrimary) return superviseWorkers(settings.workers, root);
  // Each worker's lines say which worker wrote them.
  const log = cluster.worker ? root.child({ worker: cluster.worker.id }) : root;
  // Fail fast while Redis is away: requests get a 503 problem instead of waiting, and the client
  // reconnects by itself, so the process never needs a restart because of Redis.
  const redis = createRedis(config.redisUrl, log, { failFast: true, autoPipeline: settings.redisAutoPipeline });
  const viewsRedis =
    config.viewsRedisUrl === config.redisUrl ? redis : createRedis(config.viewsRedisUrl, log, { failFast: true, autoPipeline: settings.redisAutoPipeline });
  const keyStore = new ApiKeyStore(redis, config.keyPrefix, loadKeySecret(defaultDataDir()));
  // Known keys are served from memory; revocations arrive on this connection (api-keys.ts).
  const subscriber = createRedis(config.redisUrl, log);
  const revocations = keyStore.watchRevocations(subscriber);
  const app = createApp({
    redis,
    viewsRedis,
    keyPrefix: config.keyPrefix,
    keyStore,
    log,
    quota: settings.quota,
    trustProxy: settings.trustProxy,
    responseCacheBytes: settings.responseCacheBytes,
    streams: streamSettingsFromEnv(),
    metricsRegistry: processRegistry(),
    // A worker's /metrics shows every worker's, summed by the primary.
    metricsText: cluster.isWorker ? workerMetrics() : undefined,
  });
  let server: ReturnType<typeof configureServer> | undefined;
  const listen = () => {
    server = configureServer(app.listen(config.port, () => log.info({ port: config.port, quota: settings.quota }, 'API listening')));
  };
  // The primary hands connections only to workers that listen, so a worker listens once its Redis
  // connections are up: otherwise a worker started (or replaced) beside ready ones answers 503s
  // for what its siblings would serve. A lone process listens at once, so /healthz answers while
  // Redis is away; a worker too, after 10 s, for the same reason.
  if (cluster.isWorker) {
    const ready = Promise.all([redisReady(redis), redisReady(viewsRedis)]);
    ready.then(listen, (err: Error) => {
      log.warn({ err: err.message }, 'listening before Redis is ready');
      listen();
    });
  } else listen();
  const stop = () => {
    if (!server) process.exit(0);
    server.close(() => {
      revocations.stop();
      subscriber.disconnect();
      redis.disconnect();
      viewsRedis.disconnect();
      process.exit(0);
    });
  };
  // Open keep-alive connections may hold server.close() open: 5 s at most.
  onStopSignal(stop, 5_000);
}

main();
