import fs from 'fs';
import path from 'path';
import { Component, NodeStatus, Ports, kafkaComponent, redisClusterComponent, redisComponent, registryComponent, waitUntil } from './components';
import { StackProfile, stackProfile } from './profile';
import { perNodeMaxmemory, viewsRedisMaxmemory } from './redis-memory';
import { freePort, tailFile } from './process';

/**
 * The local stack without Docker: a KRaft Kafka broker, Apicurio Registry (KafkaSQL storage) and
 * two redis-servers (`redis` for what exists nowhere else, `views-redis` for what Kafka can rebuild:
 * see PERSISTENCE in components.ts), each a detached daemon with its pid file and log under
 * `<dataDir>/<component>/`. The cluster profile (profile.ts) runs three brokers and a Redis
 * Cluster instead, whose `redis+cluster://` URL is both REDIS_URL and VIEWS_REDIS_URL.
 * A component whose connection variable is already set (KAFKA_BROKERS,
 * SCHEMA_REGISTRY_URL, REDIS_URL, VIEWS_REDIS_URL) is not provisioned: the given one is used. A
 * given REDIS_URL without VIEWS_REDIS_URL puts the views on that one Redis too.
 */

export interface StackEnv {
  KAFKA_BROKERS: string;
  SCHEMA_REGISTRY_URL: string;
  REDIS_URL: string;
  VIEWS_REDIS_URL: string;
}

export interface StackOptions {
  dataDir: string;
  /** Defaults to MDQ_STACK_PROFILE (single). */
  profile?: StackProfile;
  /** Pick free ports (tests) instead of the fixed development ports. */
  freePorts?: boolean;
  /**
   * Every process started dies with this process (parent-death.ts): the tests' stacks. The
   * development stacks leave it unset: they outlive `npm start` and `stack up` until `stack down`.
   */
  dieWithParent?: boolean;
  /** Connection variables to honour; defaults to process.env. */
  env?: Partial<StackEnv>;
  log?: (msg: string) => void;
}

export const DEV_PORTS: Ports = { kafka: 19092, kafkaController: 19093, registry: 18081, redis: 16379, viewsRedis: 16380 };

const CLUSTER_BROKERS = 3;
const CLUSTER_REDIS_NODES = 6;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The cluster profile's development ports: brokers 29092-29094 (controllers 29095-29097), Redis 27001-27006 (buses 27011-27016; below the ephemeral range, which clients take their ports from). */
export const CLUSTER_DEV_PORTS: Record<string, number> = {
  registry: 28081,
  ...Object.fromEntries(
    range(CLUSTER_BROKERS).flatMap((i) => [
      [`kafka${i}`, 29091 + i],
      [`kafkaController${i}`, 29094 + i],
    ]),
  ),
  ...Object.fromEntries(
    range(CLUSTER_REDIS_NODES).flatMap((i) => [
      [`redis${i}`, 27000 + i],
      [`redisBus${i}`, 27010 + i],
    ]),
  ),
};

/** The stack's ports, kept in `<dataDir>/stack.json` so a restart finds its components where they were. */
async function resolvePorts<T extends object>(opts: StackOptions, defaults: T): Promise<T> {
  const file = path.join(opts.dataDir, 'stack.json');
  let ports: Record<string, number> = {};
  try {
    ports = JSON.parse(fs.readFileSync(file, 'utf8')).ports as Record<string, number>;
  } catch {
    /* first start */
  }
  // A data folder from before a component existed gets a port for it; the others keep theirs.
  const missing = Object.keys(defaults).filter((k) => ports[k] === undefined);
  if (missing.length === 0) return ports as T;
  for (const k of missing) ports[k] = opts.freePorts ? await freePort() : (defaults as Record<string, number>)[k];
  fs.mkdirSync(opts.dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ports }, null, 2));
  return ports as T;
}

/** Kafka, the registry and the Redis of a profile, before what the environment gives is taken out. */
async function profileComponents(
  opts: StackOptions,
  kafkaBrokers: (kafka: Component) => string,
): Promise<{ kafka: Component; registry: Component; redis: Component; viewsRedis?: Component }> {
  const tied = opts.dieWithParent ?? false;
  if ((opts.profile ?? stackProfile()) === 'cluster') {
    const p = await resolvePorts(opts, CLUSTER_DEV_PORTS);
    const kafka = kafkaComponent(
      opts.dataDir,
      range(CLUSTER_BROKERS).map((id) => ({ id, port: p[`kafka${id}`], controllerPort: p[`kafkaController${id}`] })),
      tied,
    );
    const nodes = range(CLUSTER_REDIS_NODES).map((i) => ({ port: p[`redis${i}`], busPort: p[`redisBus${i}`] }));
    return {
      kafka,
      registry: registryComponent(opts.dataDir, p.registry, kafkaBrokers(kafka), tied),
      redis: redisClusterComponent(opts.dataDir, nodes, perNodeMaxmemory(viewsRedisMaxmemory(process.env), CLUSTER_REDIS_NODES), tied),
    };
  }
  const ports = await resolvePorts(opts, DEV_PORTS);
  const kafka = kafkaComponent(opts.dataDir, [{ id: 1, port: ports.kafka, controllerPort: ports.kafkaController }], tied);
  return {
    kafka,
    registry: registryComponent(opts.dataDir, ports.registry, kafkaBrokers(kafka), tied),
    redis: redisComponent(opts.dataDir, ports, 'redis', null, tied),
    viewsRedis: redisComponent(opts.dataDir, ports, 'views-redis', viewsRedisMaxmemory(process.env), tied),
  };
}

async function components(opts: StackOptions): Promise<{ list: Component[]; env: StackEnv }> {
  const given = opts.env ?? process.env;
  const { kafka, registry, redis, viewsRedis } = await profileComponents(opts, (k) => given.KAFKA_BROKERS || k.url);
  const list: Component[] = [];
  if (!given.KAFKA_BROKERS) list.push(kafka);
  if (!given.SCHEMA_REGISTRY_URL) list.push(registry);
  if (!given.REDIS_URL) list.push(redis);
  // The cluster has one Redis for both roles; the single-node stack a second one for the views.
  const views = viewsRedis ?? redis;
  if (viewsRedis && !given.VIEWS_REDIS_URL && !given.REDIS_URL) list.push(viewsRedis);
  return {
    list,
    env: {
      KAFKA_BROKERS: given.KAFKA_BROKERS || kafka.url,
      SCHEMA_REGISTRY_URL: given.SCHEMA_REGISTRY_URL || registry.url,
      REDIS_URL: given.REDIS_URL || redis.url,
      VIEWS_REDIS_URL: given.VIEWS_REDIS_URL || given.REDIS_URL || views.url,
    },
  };
}

/** Brings every provisioned component up (idempotent) and waits until each is ready. */
export async function stackUp(opts: StackOptions): Promise<StackEnv> {
  const log = opts.log ?? (() => {});
  const { list, env } = await components(opts);
  const up = async (c: Component) => {
    const started = Date.now();
    try {
      if (c.pid() !== null && (await c.ready().catch(() => false))) {
        log(`${c.name}: already running at ${c.url}`);
        return;
      }
      c.prepare(log);
      if (c.pid() === null) await c.start();
      await waitUntil(c.name, () => c.ready(), {
        timeoutMs: c.readyTimeoutMs,
        alive: () => c.pid() !== null,
        logFile: c.logFile,
      });
      log(`${c.name}: ready at ${c.url} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (err) {
      throw new Error(`stack component '${c.name}' failed: ${(err as Error).message}`, { cause: err });
    }
  };
  // Kafka first, then the registry: it keeps its schemas on Kafka and cannot start before it.
  // Redis depends on neither, so it comes up meanwhile.
  const onKafka = list.filter((c) => c.name === 'kafka' || c.name === 'registry');
  const inChain = async () => {
    for (const c of onKafka) await up(c);
  };
  await Promise.all([inChain(), ...list.filter((c) => !onKafka.includes(c)).map(up)]);
  return env;
}

/** Stops the provisioned components, newest first (registry before the Kafka it writes to). */
export async function stackDown(opts: StackOptions): Promise<void> {
  const log = opts.log ?? (() => {});
  const { list } = await components(opts);
  for (const c of [...list].reverse()) {
    const stopped = await c.stop();
    log(`${c.name}: ${stopped ? 'stopped' : 'was not running'}`);
  }
}

export interface ComponentStatus {
  name: string;
  url: string;
  pid: number | null;
  ready: boolean;
  log: string;
  /** Each process of a component of several (the cluster profile's), with its role. */
  nodes: NodeStatus[];
}

export async function stackStatus(opts: StackOptions): Promise<{ env: StackEnv; components: ComponentStatus[] }> {
  const { list, env } = await components(opts);
  const out: ComponentStatus[] = [];
  for (const c of list) {
    const pid = c.pid();
    const ready = pid !== null && (await c.ready().catch(() => false));
    const nodes = (await c.nodes?.()) ?? [];
    out.push({ name: c.name, url: c.url, pid, ready, log: ready ? '' : tailFile(c.logFile, 5), nodes });
  }
  return { env, components: out };
}
