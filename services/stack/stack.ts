import fs from 'fs';
import path from 'path';
import { Component, Ports, kafkaComponent, redisComponent, registryComponent, waitUntil } from './components';
import { viewsRedisMaxmemory } from './redis-memory';
import { freePort, tailFile } from './process';

/**
 * The local stack without Docker: a KRaft Kafka broker, Apicurio Registry (KafkaSQL storage) and
 * two redis-servers (`redis` for what exists nowhere else, `views-redis` for what Kafka can rebuild:
 * see PERSISTENCE in components.ts), each a detached daemon with its pid file and log under
 * `<dataDir>/<component>/`. A component whose connection variable is already set (KAFKA_BROKERS,
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
  /** Pick free ports (tests) instead of the fixed development ports. */
  freePorts?: boolean;
  /** Connection variables to honour; defaults to process.env. */
  env?: Partial<StackEnv>;
  log?: (msg: string) => void;
}

export const DEV_PORTS: Ports = { kafka: 19092, kafkaController: 19093, registry: 18081, redis: 16379, viewsRedis: 16380 };

// The views' Redis loads its snapshot before it answers: ~1 min per 10 GB here.
const READY_TIMEOUT_MS: Record<Component['name'], number> = { kafka: 60_000, registry: 120_000, redis: 15_000, 'views-redis': 300_000 };

async function resolvePorts(opts: StackOptions): Promise<Ports> {
  const file = path.join(opts.dataDir, 'stack.json');
  let ports: Partial<Ports> = {};
  try {
    ports = JSON.parse(fs.readFileSync(file, 'utf8')).ports as Partial<Ports>;
  } catch {
    /* first start */
  }
  // A data folder from before a component existed gets a port for it; the others keep theirs.
  const missing = (Object.keys(DEV_PORTS) as (keyof Ports)[]).filter((k) => ports[k] === undefined);
  if (missing.length === 0) return ports as Ports;
  for (const k of missing) ports[k] = opts.freePorts ? await freePort() : DEV_PORTS[k];
  fs.mkdirSync(opts.dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ports }, null, 2));
  return ports as Ports;
}

async function components(opts: StackOptions): Promise<{ list: Component[]; env: StackEnv }> {
  const given = opts.env ?? process.env;
  const ports = await resolvePorts(opts);
  const list: Component[] = [];
  const kafka = kafkaComponent(opts.dataDir, ports);
  const brokers = given.KAFKA_BROKERS || kafka.url;
  if (!given.KAFKA_BROKERS) list.push(kafka);
  const registry = registryComponent(opts.dataDir, ports, brokers);
  if (!given.SCHEMA_REGISTRY_URL) list.push(registry);
  const redis = redisComponent(opts.dataDir, ports);
  if (!given.REDIS_URL) list.push(redis);
  const viewsRedis = redisComponent(opts.dataDir, ports, 'views-redis', viewsRedisMaxmemory(process.env));
  if (!given.VIEWS_REDIS_URL && !given.REDIS_URL) list.push(viewsRedis);
  return {
    list,
    env: {
      KAFKA_BROKERS: brokers,
      SCHEMA_REGISTRY_URL: given.SCHEMA_REGISTRY_URL || registry.url,
      REDIS_URL: given.REDIS_URL || redis.url,
      VIEWS_REDIS_URL: given.VIEWS_REDIS_URL || given.REDIS_URL || viewsRedis.url,
    },
  };
}

/** Brings every provisioned component up (idempotent) and waits until each is ready. */
export async function stackUp(opts: StackOptions): Promise<StackEnv> {
  const log = opts.log ?? (() => {});
  const { list, env } = await components(opts);
  // Kafka first: the registry keeps its schemas on Kafka and cannot start before it.
  for (const c of list) {
    const started = Date.now();
    try {
      if (c.pid() !== null && (await c.ready().catch(() => false))) {
        log(`${c.name}: already running at ${c.url}`);
        continue;
      }
      c.prepare(log);
      if (c.pid() === null) await c.start();
      await waitUntil(c.name, () => c.ready(), {
        timeoutMs: READY_TIMEOUT_MS[c.name],
        alive: () => c.pid() !== null,
        logFile: c.logFile,
      });
      log(`${c.name}: ready at ${c.url} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (err) {
      throw new Error(`stack component '${c.name}' failed: ${(err as Error).message}`, { cause: err });
    }
  }
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
}

export async function stackStatus(opts: StackOptions): Promise<{ env: StackEnv; components: ComponentStatus[] }> {
  const { list, env } = await components(opts);
  const out: ComponentStatus[] = [];
  for (const c of list) {
    const pid = c.pid();
    const ready = pid !== null && (await c.ready().catch(() => false));
    out.push({ name: c.name, url: c.url, pid, ready, log: ready ? '' : tailFile(c.logFile, 5) });
  }
  return { env, components: out };
}
