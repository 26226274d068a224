import { parentPort, workerData } from 'worker_threads';
import { register } from 'prom-client';
import type { Config } from '../../services/config';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { createLogger } from '../../services/log';
import { createRedis } from '../../services/redis/client';
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

/** Parent -> thread: stop gracefully, or send the thread's metrics. */
export type ToThread = { kind: 'stop' } | { kind: 'metrics'; id: number };
/** Thread -> parent. */
export type FromThread = { kind: 'stopped' } | { kind: 'metrics'; id: number; metrics: unknown[] } | { kind: 'failed'; message: string };

async function run(task: ThreadTask): Promise<void> {
  const post = (m: FromThread) => parentPort!.postMessage(m);
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
  let stopping = false;
  parentPort!.on('message', (m: ToThread) => {
    if (m.kind === 'metrics') {
      void register.getMetricsAsJSON().then((metrics) => post({ kind: 'metrics', id: m.id, metrics }));
    } else if (m.kind === 'stop' && !stopping) {
      stopping = true;
      void processor
        .stop()
        .catch((err) => log.error({ err: (err as Error).message }, 'stop failed'))
        .then(() => redis.quit().catch(() => {}))
        .then(() => post({ kind: 'stopped' }));
    }
  });
  await processor.start();
}

run(workerData as ThreadTask).catch((err: unknown) => parentPort!.postMessage({ kind: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies FromThread));
