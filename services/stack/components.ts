import { execFileSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { Kafka, logLevel } from 'kafkajs';
import Redis from 'ioredis';
import { ensureApicurio, ensureKafkaJars } from './artifacts';
import { DaemonSpec, runningPid, startDaemon, stopDaemon, waitUntil, portOpen } from './process';
import { maxmemoryArgs } from './redis-memory';

/** One provisioned piece of the local stack. */
export interface Component {
  name: 'kafka' | 'registry' | 'redis' | 'views-redis';
  /** Downloads/installs what is needed; runs before `start`, may be slow the first time. */
  prepare(log: (m: string) => void): void;
  start(): Promise<void>;
  ready(): Promise<boolean>;
  stop(): Promise<boolean>;
  pid(): number | null;
  logFile: string;
  /** The connection string clients use (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL or VIEWS_REDIS_URL). */
  url: string;
}

export interface Ports {
  kafka: number;
  kafkaController: number;
  registry: number;
  redis: number;
  viewsRedis: number;
}

function daemon(dir: string, name: string, command: string, args: string[], env?: NodeJS.ProcessEnv, marker = dir): DaemonSpec {
  return {
    name,
    command,
    args,
    env,
    cwd: dir,
    pidFile: path.join(dir, `${name}.pid`),
    logFile: path.join(dir, `${name}.log`),
    marker,
  };
}

function javaBin(): string {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

export function kafkaComponent(dataDir: string, ports: Ports): Component {
  const dir = path.join(dataDir, 'kafka');
  const logsDir = path.join(dir, 'logs');
  const props = path.join(dir, 'server.properties');
  let libs = '';
  const spec = () =>
    daemon(dir, 'kafka', javaBin(), [
      // Sized for a 2-core, shared machine: the broker is one of several JVMs and node processes.
      '-Xms256m',
      '-Xmx768m',
      '-XX:+UseG1GC',
      '-XX:MaxGCPauseMillis=20',
      `-Dlog4j.configuration=file:${path.join(dir, 'log4j.properties')}`,
      '-cp',
      `${libs}/*`,
      'kafka.Kafka',
      props,
    ]);
  const url = `127.0.0.1:${ports.kafka}`;
  return {
    name: 'kafka',
    url,
    logFile: path.join(dir, 'kafka.log'),
    prepare(log) {
      libs = ensureKafkaJars(log);
    },
    async start() {
      fs.mkdirSync(logsDir, { recursive: true });
      fs.writeFileSync(
        props,
        [
          'process.roles=broker,controller',
          'node.id=1',
          `controller.quorum.voters=1@127.0.0.1:${ports.kafkaController}`,
          `listeners=PLAINTEXT://127.0.0.1:${ports.kafka},CONTROLLER://127.0.0.1:${ports.kafkaController}`,
          `advertised.listeners=PLAINTEXT://127.0.0.1:${ports.kafka}`,
          'controller.listener.names=CONTROLLER',
          'inter.broker.listener.name=PLAINTEXT',
          'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
          `log.dirs=${logsDir}`,
          // Topics are created explicitly from the catalog; a typo must not create a new topic.
          'auto.create.topics.enable=false',
          'num.partitions=1',
          'offsets.topic.replication.factor=1',
          'offsets.topic.num.partitions=12',
          'transaction.state.log.replication.factor=1',
          'transaction.state.log.min.isr=1',
          'transaction.state.log.num.partitions=4',
          'group.initial.rebalance.delay.ms=0',
          'num.network.threads=2',
          'num.io.threads=4',
          'log.retention.hours=-1',
          '',
        ].join('\n'),
      );
      fs.writeFileSync(
        path.join(dir, 'log4j.properties'),
        [
          'log4j.rootLogger=WARN, stdout',
          'log4j.logger.kafka.server.KafkaRaftServer=INFO',
          'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
          'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
          'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
          '',
        ].join('\n'),
      );
      // KRaft storage is formatted once; meta.properties marks a formatted log dir.
      if (!fs.existsSync(path.join(logsDir, 'meta.properties'))) {
        const cp = `${libs}/*`;
        const uuid = execFileSync(javaBin(), ['-cp', cp, 'kafka.tools.StorageTool', 'random-uuid'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
          .trim()
          .split('\n')
          .pop()!
          .trim();
        execFileSync(
          javaBin(),
          [`-Dlog4j.configuration=file:${path.join(dir, 'log4j.properties')}`, '-cp', cp, 'kafka.tools.StorageTool', 'format', '-t', uuid, '-c', props],
          { stdio: 'pipe' },
        );
      }
      startDaemon(spec());
    },
    async ready() {
      if (!(await portOpen(ports.kafka))) return false;
      const admin = new Kafka({ brokers: [url], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        return cluster.brokers.length > 0 && cluster.controller !== null;
      } finally {
        await admin.disconnect().catch(() => {});
      }
    },
    stop: () => stopDaemon(spec()),
    pid: () => runningPid(spec()),
  };
}

export function registryComponent(dataDir: string, ports: Ports, kafkaBrokers: string): Component {
  const dir = path.join(dataDir, 'registry');
  let jar = '';
  const spec = () =>
    daemon(dir, 'registry', javaBin(), ['-Xms128m', '-Xmx512m', '-XX:+UseSerialGC', `-Dmdq.stack=${dir}`, '-jar', jar], {
      // KafkaSQL storage: every schema is an event on a Kafka topic, so the registry is as
      // durable as the broker and holds no state of its own.
      APICURIO_STORAGE_KIND: 'kafkasql',
      APICURIO_KAFKASQL_BOOTSTRAP_SERVERS: kafkaBrokers,
      QUARKUS_HTTP_HOST: '127.0.0.1',
      QUARKUS_HTTP_PORT: String(ports.registry),
      QUARKUS_LOG_LEVEL: 'WARN',
      QUARKUS_LOG_CONSOLE_JSON: 'false',
    });
  const base = `http://127.0.0.1:${ports.registry}`;
  return {
    name: 'registry',
    url: `${base}/apis/ccompat/v7`,
    logFile: path.join(dir, 'registry.log'),
    prepare(log) {
      jar = ensureApicurio(log);
    },
    async start() {
      fs.mkdirSync(dir, { recursive: true });
      startDaemon(spec());
    },
    async ready() {
      const res = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(2000) });
      if (!res.ok) return false;
      const subjects = await fetch(`${base}/apis/ccompat/v7/subjects`, { signal: AbortSignal.timeout(2000) });
      return subjects.ok;
    },
    stop: () => stopDaemon(spec()),
    pid: () => runningPid(spec()),
  };
}

/**
 * How each Redis of the stack keeps its data across a restart.
 *
 * - `redis` (REDIS_URL) holds what exists nowhere else: API keys, quota counters, the BullMQ
 *   ingest jobs, the news feed's marker. An append-only file, fsynced every second, loses at most
 *   a second of it.
 * - `views-redis` (VIEWS_REDIS_URL) holds what Kafka can rebuild: the views with each partition's
 *   applied offset, and the order-flow processor's state with the input offset it corresponds to.
 *   Because offsets and data change in one atomic step, any point-in-time snapshot is a state the
 *   projectors and the processor resume from exactly: after a restart Redis loads its last
 *   snapshot and they replay from Kafka what came after it, losing and double-counting nothing.
 *   So this Redis needs no append-only file, whose per-write cost and rewrites (each a copy of the
 *   whole dataset) were the largest single cost of projecting (docs/architecture.md).
 *   A snapshot every 15 minutes (if anything changed) bounds the replay after a crash.
 */
const PERSISTENCE: Record<'redis' | 'views-redis', string[]> = {
  redis: ['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''],
  'views-redis': ['--appendonly', 'no', '--save', '900 1'],
};

/** `maxmemory`: the views' Redis's ceiling (redis-memory.ts); the keys' Redis has none (it is small). */
export function redisComponent(dataDir: string, ports: Ports, name: 'redis' | 'views-redis' = 'redis', maxmemory: string | null = null): Component {
  const dir = path.join(dataDir, name);
  const port = name === 'redis' ? ports.redis : ports.viewsRedis;
  const spec = () =>
    daemon(
      dir,
      'redis',
      'redis-server',
      [
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--dir',
        dir,
        ...PERSISTENCE[name],
        ...maxmemoryArgs(maxmemory),
        '--daemonize',
        'no',
        '--protected-mode',
        'yes',
        // redis-server rewrites its command line to "redis-server <bind>:<port>"; the port is in both forms.
      ],
      undefined,
      String(port),
    );
  return {
    name,
    url: `redis://127.0.0.1:${port}`,
    logFile: path.join(dir, 'redis.log'),
    prepare() {
      try {
        execFileSync('redis-server', ['--version'], { stdio: 'pipe' });
      } catch {
        throw new Error('redis-server was not found on PATH. Install it with: apt-get update && apt-get install -y redis-server (or set REDIS_URL).');
      }
    },
    async start() {
      fs.mkdirSync(dir, { recursive: true });
      startDaemon(spec());
    },
    async ready() {
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => {});
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } finally {
        client.disconnect();
      }
    },
    stop: () => stopDaemon(spec()),
    pid: () => runningPid(spec()),
  };
}

export { waitUntil };
