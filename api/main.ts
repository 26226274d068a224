import { ApiKeyStore } from '../services/auth/api-keys';
import { loadKeySecret } from '../services/auth/secret';
import { loadConfig } from '../services/config';
import { createLogger } from '../services/log';
import { processRegistry } from '../services/metrics/registry';
import { createRedis } from '../services/redis/client';
import { defaultDataDir } from '../services/stack/paths';
import { configureServer, createApp } from './app';
import { loadApiSettings } from './settings';

/** `npm run api`: one stateless API process; run as many as needed behind a load balancer. */
function main(): void {
  const config = loadConfig();
  const settings = loadApiSettings();
  const log = createLogger('api', config.logLevel);
  // Fail fast while Redis is away: requests get a 503 problem instead of waiting, and the client
  // reconnects by itself, so the process never needs a restart because of Redis.
  const redis = createRedis(config.redisUrl, log, { failFast: true, autoPipeline: settings.redisAutoPipeline });
  const viewsRedis =
    config.viewsRedisUrl === config.redisUrl ? redis : createRedis(config.viewsRedisUrl, log, { failFast: true, autoPipeline: settings.redisAutoPipeline });
  const keyStore = new ApiKeyStore(redis, config.keyPrefix, loadKeySecret(defaultDataDir()));
  const app = createApp({
    redis,
    viewsRedis,
    keyPrefix: config.keyPrefix,
    keyStore,
    log,
    quota: settings.quota,
    trustProxy: settings.trustProxy,
    responseCacheBytes: settings.responseCacheBytes,
    metricsRegistry: processRegistry(),
  });
  const server = configureServer(app.listen(config.port, () => log.info({ port: config.port, quota: settings.quota }, 'API listening')));
  const stop = () => {
    server.close(() => {
      redis.disconnect();
      viewsRedis.disconnect();
      process.exit(0);
    });
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
