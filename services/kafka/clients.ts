import { Kafka, logLevel, LogEntry } from 'kafkajs';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { Config } from '../config';
import type { Logger } from '../log';

/** kafkajs logs go through the process logger (pino) instead of kafkajs's own console lines. */
function kafkaLogCreator(log?: Logger) {
  return () =>
    ({ level, log: entry }: LogEntry) => {
      if (!log) return;
      const { message, ...extra } = entry;
      // A rebalance (a member joining or leaving the group) is routine: kafkajs reports it as an
      // error of the heartbeat or commit it interrupted, and the consumer simply rejoins.
      const routine = /rebalanc/i.test(`${message} ${String((extra as { error?: unknown }).error ?? '')}`);
      const fn = routine ? log.info : level <= logLevel.ERROR ? log.error : level === logLevel.WARN ? log.warn : log.debug;
      fn.call(log, { kafkajs: extra }, message);
    };
}

export function createKafka(config: Config, clientId: string, log?: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers: config.kafkaBrokers,
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(log),
    // A broker restart must not kill a process: keep retrying for about a minute.
    retry: { initialRetryTime: 200, retries: 12, maxRetryTime: 5_000 },
  });
}

export function createRegistry(config: Config): SchemaRegistry {
  return new SchemaRegistry({ host: config.schemaRegistryUrl, retry: { retries: 5 } });
}
