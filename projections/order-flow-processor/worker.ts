import { createKafka, createRegistry } from '../../services/kafka/clients';
import { createLogger } from '../../services/log';
import { createRedis } from '../../services/redis/client';
import { runAsThread } from '../../services/threads/pool';
import type { Config } from '../../services/config';
import { OrderFlowProcessor } from './processor';

/**
 * One processing thread of the order-flow processor process (main.ts): a member of the
 * processor's consumer group with its own Kafka clients, transactional producers and Redis
 * connection. Threads share nothing but the process, so their partitions are as independent as
 * two processes' would be — fencing and the state compare-and-set work across them alike.
 */
export interface ThreadTask {
  config: Config;
  thread: number;
  rate: number;
  chunkSize: number;
  concurrency: number;
  fetchBytesPerPartition: number;
  stateSaveIntervalMs: number;
  sessionTimeoutMs: number;
  crashAfterCommits?: number;
}

runAsThread<ThreadTask>(async (task) => {
  const log = createLogger('order-flow-processor', task.config.logLevel).child({ thread: task.thread });
  const kafka = createKafka(task.config, `mdq-order-flow-processor-${task.thread}`, log);
  const redis = createRedis(task.config.viewsRedisUrl, log);
  const processor = new OrderFlowProcessor({
    kafka,
    registry: createRegistry(task.config),
    redis,
    topicPrefix: task.config.topicPrefix,
    keyPrefix: task.config.keyPrefix,
    log,
    rate: task.rate,
    chunkSize: task.chunkSize,
    concurrency: task.concurrency,
    fetchBytesPerPartition: task.fetchBytesPerPartition,
    stateSaveIntervalMs: task.stateSaveIntervalMs,
    sessionTimeoutMs: task.sessionTimeoutMs,
    crashAfterCommits: task.crashAfterCommits,
  });
  await processor.start();
  return {
    async stop() {
      await processor.stop().catch((err) => log.error({ err: (err as Error).message }, 'stop failed'));
      await redis.quit().catch(() => {});
    },
  };
});
