import type { Config } from '../services/config';
import { createKafka, createRegistry } from '../services/kafka/clients';
import type { Logger } from '../services/log';
import { createRedis } from '../services/redis/client';
import type { Projection } from './runtime/projection';
import { ViewProjector } from './runtime/view-projector';

export interface ProjectorSettings {
  /** See RunnerOptions.chunkSize. */
  chunkSize: number;
  /** See RunnerOptions.partitionsConcurrently. */
  partitionsConcurrently: number;
  /** See RunnerOptions.sessionTimeoutMs. */
  sessionTimeoutMs: number;
}

/**
 * The view projectors of one thread (projections/main.ts, or each of its projecting threads:
 * projections/thread.ts), with the clients they share. `stop` finishes the chunks being applied,
 * commits, leaves the groups and closes Redis.
 */
export function createProjectors(config: Config, projections: readonly Projection[], settings: ProjectorSettings, log: Logger, clientId = 'mdq-projector') {
  const kafka = createKafka(config, clientId, log);
  const registry = createRegistry(config);
  const redis = createRedis(config.viewsRedisUrl, log);
  const projectors = projections.map(
    (projection) => new ViewProjector({ kafka, registry, redis, projection, topicPrefix: config.topicPrefix, keyPrefix: config.keyPrefix, log, ...settings }),
  );
  return {
    projectors,
    async stop(): Promise<void> {
      await Promise.all(projectors.map((p) => p.stop()));
      await redis.quit().catch(() => {});
    },
  };
}
