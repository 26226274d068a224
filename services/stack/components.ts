import { execFile, execFileSync } from 'child_process';
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import { promisify } from 'util';
import { Kafka, logLevel } from 'kafkajs';
import Redis from 'ioredis';
import { ensureApicurio, ensureKafkaJars } from './artifacts';
import { DaemonSpec, runningPid, startDaemon, stopDaemon, waitUntil, portOpen } from './process';
import { maxmemoryArgs } from './redis-memory';
import { tiedToParent } from './parent-death';
import { topicReplication } from '../kafka/replication';
import { formatRedisClusterUrl } from '../redis/cluster-url';

const execFileAsync = promisify(execFile);

/** One provisioned piece of the local stack: one daemon, or (the cluster profile) several. */
export interface Component {
  /** kafka, registry, redis, views-redis or redis-cluster. */
  name: string;
  /** Downloads/installs what is needed; runs before `start`, may be slow the first time. */
  prepare(log: (m: string) => void): void;
  /** Starts whichever of its processes is not running. */
  start(): Promise<void>;
  ready(): Promise<boolean>;
  readyTimeoutMs: number;
  stop(): Promise<boolean>;
  /** A pid when every process of the component runs, else null. */
  pid(): number | null;
  logFile: string;
  /** The connection string clients use (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL or VIEWS_REDIS_URL). */
  url: string;
  /** Each process of a component of several, with its role (`stack status`). */
  nodes?(): Promise<NodeStatus[]>;
}

export interface NodeStatus {
  name: string;
  pid: number | null;
  url: string;
  /** What the node is: `broker 2, controller (quorum leader)`, `master slots 0-5460`, `replica of ...`. */
  role: string;
}

export interface Ports {
  kafka: number;
  kafkaController: number;
  registry: number;
  redis: number;
  viewsRedis: number;
}

function daemon(dir: string, name: string, command: string, args: string[], dieWithParent: boolean, env?: NodeJS.ProcessEnv, marker = dir): DaemonSpec {
  return {
    name,
    command,
    args,
    env,
    cwd: dir,
    pidFile: path.join(dir, `${name}.pid`),
    logFile: path.join(dir, `${name}.log`),
    marker,
    dieWithParent,
  };
}

/** Runs a one-shot tool of the stack (storage format, cluster create) to its end; tied like the daemons. */
async function runTool(command: string, args: string[], dieWithParent: boolean): Promise<string> {
  const [cmd, argv] = dieWithParent ? tiedToParent(command, args, 'KILL') : [command, args];
  try {
    return (await execFileAsync(cmd, argv, { encoding: 'utf8' })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${path.basename(command)} ${args.slice(-4).join(' ')} failed:\n${`${e.stdout ?? ''}${e.stderr ?? ''}`.trim() || e.message}`, {
      cause: err,
    });
  }
}

function javaBin(): string {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

/** A pid when every daemon runs (the component is whole), else null. */
function wholePid(specs: DaemonSpec[]): number | null {
  const pids = specs.map((s) => runningPid(s));
  return pids.every((p) => p !== null) ? pids[0] : null;
}

/** The log of the first daemon that is not running (the one to read when start-up fails), else the first's. */
function firstDownLog(specs: DaemonSpec[]): string {
  return (specs.find((s) => runningPid(s) === null) ?? specs[0]).logFile;
}

async function stopAll(specs: DaemonSpec[]): Promise<boolean> {
  return (await Promise.all(specs.map((s) => stopDaemon(s)))).some(Boolean);
}

/** One combined broker+controller of a KRaft cluster. */
export interface KafkaNode {
  id: number;
  port: number;
  controllerPort: number;
}

/** A Kafka cluster id: 16 random bytes in base64url, as `kafka-storage random-uuid` prints (never starting with '-', which reads as a flag). */
function kafkaClusterId(): string {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * Kafka in KRaft mode, every node a broker and a controller. One node is the single-node stack
 * (its folder `kafka/`); three are the cluster profile's (`kafka-1/` ...), which keep three copies
 * of every partition with two in sync (replication.ts), the consumer offsets and the transaction
 * state included, so a broker can be killed with no acknowledged write lost.
 */
export function kafkaComponent(dataDir: string, nodes: KafkaNode[], dieWithParent = false): Component {
  const single = nodes.length === 1;
  const dirOf = (n: KafkaNode) => path.join(dataDir, single ? 'kafka' : `kafka-${n.id}`);
  const logsOf = (n: KafkaNode) => path.join(dirOf(n), 'logs');
  const propsOf = (n: KafkaNode) => path.join(dirOf(n), 'server.properties');
  const log4jOf = (n: KafkaNode) => path.join(dirOf(n), 'log4j.properties');
  const urlOf = (n: KafkaNode) => `127.0.0.1:${n.port}`;
  const rep = topicReplication(nodes.length, {});
  let libs = '';
  // Sized for a 2-core, shared machine: each broker is one of several JVMs and node processes,
  // so fewer threads each. The heap is per broker, not shared: a cluster broker holds a replica of
  // every partition, as the single broker does (a whole cluster test run leaves ~3,800 per broker,
  // and at 384 MB the brokers ran out of heap), and 24 GB holds three of 1 GB.
  const heap = single ? ['-Xms256m', '-Xmx768m'] : ['-Xms128m', '-Xmx1g'];
  const threads = single ? { network: 2, io: 4 } : { network: 1, io: 2 };
  const specs = () =>
    nodes.map((n) =>
      daemon(
        dirOf(n),
        'kafka',
        javaBin(),
        [...heap, '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', `-Dlog4j.configuration=file:${log4jOf(n)}`, '-cp', `${libs}/*`, 'kafka.Kafka', propsOf(n)],
        dieWithParent,
      ),
    );
  const writeConfig = (n: KafkaNode) => {
    fs.mkdirSync(logsOf(n), { recursive: true });
    fs.writeFileSync(
      propsOf(n),
      [
        'process.roles=broker,controller',
        `node.id=${n.id}`,
        `controller.quorum.voters=${nodes.map((v) => `${v.id}@127.0.0.1:${v.controllerPort}`).join(',')}`,
        `listeners=PLAINTEXT://127.0.0.1:${n.port},CONTROLLER://127.0.0.1:${n.controllerPort}`,
        `advertised.listeners=PLAINTEXT://127.0.0.1:${n.port}`,
        'controller.listener.names=CONTROLLER',
        'inter.broker.listener.name=PLAINTEXT',
        'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
        `log.dirs=${logsOf(n)}`,
        // Topics are created explicitly from the catalog; a typo must not create a new topic.
        'auto.create.topics.enable=false',
        'num.partitions=1',
        `default.replication.factor=${rep.factor}`,
        `min.insync.replicas=${rep.minInsync}`,
        `offsets.topic.replication.factor=${rep.factor}`,
        'offsets.topic.num.partitions=12',
        `transaction.state.log.replication.factor=${rep.factor}`,
        `transaction.state.log.min.isr=${rep.minInsync}`,
        'transaction.state.log.num.partitions=4',
        'group.initial.rebalance.delay.ms=0',
        `num.network.threads=${threads.network}`,
        `num.io.threads=${threads.io}`,
        'log.retention.hours=-1',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      log4jOf(n),
      [
        'log4j.rootLogger=WARN, stdout',
        'log4j.logger.kafka.server.KafkaRaftServer=INFO',
        'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
        'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
        'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
        '',
      ].join('\n'),
    );
  };
  // KRaft storage is formatted once, every node with the same cluster id; meta.properties marks a formatted log dir.
  const format = async (n: KafkaNode, clusterId: string) => {
    if (fs.existsSync(path.join(logsOf(n), 'meta.properties'))) return;
    await runTool(
      javaBin(),
      [`-Dlog4j.configuration=file:${log4jOf(n)}`, '-cp', `${libs}/*`, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propsOf(n)],
      dieWithParent,
    );
  };
  const urls = nodes.map(urlOf);
  return {
    name: 'kafka',
    url: urls.join(','),
    readyTimeoutMs: single ? 60_000 : 120_000,
    get logFile() {
      return firstDownLog(specs());
    },
    prepare(log) {
      libs = ensureKafkaJars(log);
    },
    async start() {
      const idFile = path.join(dataDir, 'kafka-cluster.id');
      if (!fs.existsSync(idFile)) fs.writeFileSync(idFile, kafkaClusterId());
      const clusterId = fs.readFileSync(idFile, 'utf8').trim();
      const down = nodes.filter((_n, i) => runningPid(specs()[i]) === null);
      down.forEach(writeConfig);
      await Promise.all(down.map((n) => format(n, clusterId)));
      for (const n of down) startDaemon(specs()[nodes.indexOf(n)]);
    },
    async ready() {
      if (!(await Promise.all(nodes.map((n) => portOpen(n.port)))).every(Boolean)) return false;
      const admin = new Kafka({ brokers: urls, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        // Every node has registered as a broker (and is not fenced), and there is a controller.
        return cluster.brokers.length === nodes.length && cluster.controller !== null;
      } finally {
        await admin.disconnect().catch(() => {});
      }
    },
    stop: () => stopAll(specs()),
    pid: () => wholePid(specs()),
    async nodes() {
      return nodes.map((n, i) => {
        const leader = quorumLeader(logsOf(n));
        return {
          name: single ? 'kafka' : `kafka-${n.id}`,
          pid: runningPid(specs()[i]),
          url: urlOf(n),
          role: `broker ${n.id}, controller${leader === n.id ? ' (quorum leader)' : ''}`,
        };
      });
    },
  };
}

/** The active controller as this node last knew it (KRaft's quorum-state file), or null. */
function quorumLeader(logsDir: string): number | null {
  try {
    const state = JSON.parse(fs.readFileSync(path.join(logsDir, '__cluster_metadata-0', 'quorum-state'), 'utf8')) as { leaderId?: number };
    return typeof state.leaderId === 'number' && state.leaderId >= 0 ? state.leaderId : null;
  } catch {
    return null;
  }
}

export function registryComponent(dataDir: string, port: number, kafkaBrokers: string, dieWithParent = false): Component {
  const dir = path.join(dataDir, 'registry');
  let jar = '';
  const spec = () =>
    daemon(dir, 'registry', javaBin(), ['-Xms128m', '-Xmx512m', '-XX:+UseSerialGC', `-Dmdq.stack=${dir}`, '-jar', jar], dieWithParent, {
      // KafkaSQL storage: every schema is an event on a Kafka topic, so the registry is as
      // durable as the broker and holds no state of its own.
      APICURIO_STORAGE_KIND: 'kafkasql',
      APICURIO_KAFKASQL_BOOTSTRAP_SERVERS: kafkaBrokers,
      QUARKUS_HTTP_HOST: '127.0.0.1',
      QUARKUS_HTTP_PORT: String(port),
      QUARKUS_LOG_LEVEL: 'WARN',
      QUARKUS_LOG_CONSOLE_JSON: 'false',
    });
  const base = `http://127.0.0.1:${port}`;
  return {
    name: 'registry',
    url: `${base}/apis/ccompat/v7`,
    readyTimeoutMs: 120_000,
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

// views-redis loads its snapshot before it answers: ~1 min per 10 GB here.
const REDIS_READY_TIMEOUT_MS = { redis: 15_000, 'views-redis': 300_000 };

function redisDaemon(dir: string, port: number, args: string[], dieWithParent: boolean): DaemonSpec {
  // redis-server rewrites its command line to "redis-server <bind>:<port>"; the port is in both forms.
  const base = ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--daemonize', 'no', '--protected-mode', 'yes'];
  return daemon(dir, 'redis', 'redis-server', [...base, ...args], dieWithParent, undefined, String(port));
}

function requireOnPath(command: string): void {
  try {
    execFileSync(command, ['--version'], { stdio: 'pipe' });
  } catch {
    throw new Error(`${command} was not found on PATH. Install it with: apt-get update && apt-get install -y redis-server (or set REDIS_URL).`);
  }
}

/** Runs `fn` on a short-lived connection to the Redis at `port` that fails at once when it is not there. */
async function withRedisAt<T>(port: number, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

const pongs = (port: number) => withRedisAt(port, async (c) => (await c.ping()) === 'PONG');

/** `maxmemory`: the views' Redis's ceiling (redis-memory.ts); the keys' Redis has none (it is small). */
export function redisComponent(
  dataDir: string,
  ports: Ports,
  name: 'redis' | 'views-redis' = 'redis',
  maxmemory: string | null = null,
  dieWithParent = false,
): Component {
  const dir = path.join(dataDir, name);
  const port = name === 'redis' ? ports.redis : ports.viewsRedis;
  const spec = () => redisDaemon(dir, port, [...PERSISTENCE[name], ...maxmemoryArgs(maxmemory)], dieWithParent);
  return {
    name,
    url: `redis://127.0.0.1:${port}`,
    readyTimeoutMs: REDIS_READY_TIMEOUT_MS[name],
    logFile: path.join(dir, 'redis.log'),
    prepare: () => requireOnPath('redis-server'),
    async start() {
      fs.mkdirSync(dir, { recursive: true });
      startDaemon(spec());
    },
    ready: () => pongs(port),
    stop: () => stopDaemon(spec()),
    pid: () => runningPid(spec()),
  };
}

/** One node of a Redis Cluster: its client port and its cluster bus port. */
export interface RedisClusterNode {
  port: number;
  busPort: number;
}

/** What a node's `ROLE` says, with its slots from `CLUSTER NODES`. */
async function clusterNodeRole(port: number): Promise<{ role: 'master' | 'replica'; text: string; linked: boolean }> {
  return withRedisAt(port, async (c) => {
    const role = (await c.call('ROLE')) as unknown[];
    if (role[0] === 'master') {
      const myself = String(await c.call('CLUSTER', 'NODES'))
        .split('\n')
        .find((l) => l.split(' ')[2]?.split(',').includes('myself'));
      const slots = myself?.split(' ').slice(8).join(' ') || 'none';
      return { role: 'master', text: `master, slots ${slots}`, linked: true };
    }
    const [, host, masterPort, state] = role as [string, string, number, string];
    return { role: 'replica', text: `replica of ${host}:${masterPort} (${state})`, linked: state === 'connected' };
  });
}

/**
 * The cluster profile's Redis: a Redis Cluster of `nodes.length / 2` masters with one replica
 * each, serving both roles of the single-node stack's two servers (REDIS_URL and VIEWS_REDIS_URL
 * name the same cluster). So every node keeps the append-only file the keys, quotas and jobs need
 * (PERSISTENCE.redis) and the memory ceiling the views need, split evenly between the nodes. A
 * node is taken as failed after 5 s without an answer (cluster-node-timeout; Redis's default is
 * 15 s), and its replica then takes over its slots.
 *
 * The cluster is formed once (`redis-cli --cluster create`); after a restart each node finds the
 * others again from its nodes.conf.
 */
export function redisClusterComponent(dataDir: string, nodes: RedisClusterNode[], maxmemoryPerNode: string | null, dieWithParent = false): Component {
  const dirOf = (i: number) => path.join(dataDir, `redis-${i + 1}`);
  const clusterArgs = (n: RedisClusterNode) => [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    // The bus port is given, not left to the default of port + 10000, which free ports can exceed.
    '--cluster-port',
    String(n.busPort),
    '--cluster-node-timeout',
    '5000',
  ];
  const specs = () =>
    nodes.map((n, i) => redisDaemon(dirOf(i), n.port, [...clusterArgs(n), ...PERSISTENCE.redis, ...maxmemoryArgs(maxmemoryPerNode)], dieWithParent));
  const masters = Math.floor(nodes.length / 2);
  const info = (port: number) =>
    withRedisAt(port, async (c) =>
      Object.fromEntries(
        String(await c.call('CLUSTER', 'INFO'))
          .split(/\r?\n/)
          .map((l) => l.split(':')) as [string, string][],
      ),
    );
  const form = async () => {
    const infos = await Promise.all(nodes.map((n) => info(n.port)));
    if (infos.every((i) => i.cluster_slots_assigned === '16384')) return;
    if (!infos.every((i) => i.cluster_slots_assigned === '0' && i.cluster_known_nodes === '1')) {
      throw new Error(`the Redis Cluster in ${dataDir} is partly formed; stop the stack and remove ${dataDir} to start it afresh`);
    }
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await runTool('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], dieWithParent);
  };
  return {
    name: 'redis-cluster',
    // The masters as created; any node serves as a seed, the client learns the rest from the cluster.
    url: formatRedisClusterUrl(nodes.slice(0, masters).map((n) => ({ host: '127.0.0.1', port: n.port }))),
    readyTimeoutMs: 60_000,
    get logFile() {
      return firstDownLog(specs());
    },
    prepare() {
      requireOnPath('redis-server');
      requireOnPath('redis-cli');
    },
    async start() {
      const all = specs();
      for (const [i, spec] of all.entries()) {
        if (runningPid(spec) !== null) continue;
        fs.mkdirSync(dirOf(i), { recursive: true });
        startDaemon(spec);
      }
      for (const [i, spec] of all.entries()) {
        await waitUntil(`redis-cluster node ${i + 1}`, () => pongs(nodes[i].port), {
          timeoutMs: 15_000,
          alive: () => runningPid(spec) !== null,
          logFile: spec.logFile,
        });
      }
      await form();
    },
    async ready() {
      const infos = await Promise.all(nodes.map((n) => info(n.port)));
      if (!infos.every((i) => i.cluster_state === 'ok')) return false;
      const roles = await Promise.all(nodes.map((n) => clusterNodeRole(n.port)));
      return (
        roles.filter((r) => r.role === 'master').length === masters && roles.filter((r) => r.role === 'replica' && r.linked).length === nodes.length - masters
      );
    },
    stop: () => stopAll(specs()),
    pid: () => wholePid(specs()),
    async nodes() {
      return Promise.all(
        nodes.map(async (n, i) => {
          const pid = runningPid(specs()[i]);
          // A node that is not running is not asked: whatever answers on its port is not ours.
          const role =
            pid === null
              ? 'not running'
              : await clusterNodeRole(n.port).then(
                  (r) => r.text,
                  () => 'not answering',
                );
          return { name: `redis-${i + 1}`, pid, url: `127.0.0.1:${n.port}`, role };
        }),
      );
    },
  };
}

export { waitUntil };
