import { connectionFilePath, withConnectionFile } from './stack/connection-file';
import { defaultDataDir } from './stack/paths';

/**
 * Process configuration, from the environment. The connection variables are the ones DESIGN.md
 * names; the launcher fills them in for its children and leaves them in the data folder for the
 * commands run beside it (services/stack/connection-file.ts).
 */
export interface Config {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  /** API keys, quota counters, ingest jobs: what exists nowhere else (an append-only file keeps it). */
  redisUrl: string;
  /**
   * The views and the order-flow processor's state: what Kafka can rebuild (VIEWS_REDIS_URL,
   * REDIS_URL when unset). A Redis of its own lets it persist by snapshots only; see PERSISTENCE in
   * services/stack/components.ts.
   */
  viewsRedisUrl: string;
  port: number;
  /** Prefixes topic names and consumer groups; lets tests share one broker without collisions. */
  topicPrefix: string;
  /** Prefixes every Redis key; lets tests share one Redis without collisions. */
  keyPrefix: string;
  logLevel: string;
}

function required(name: string, env: NodeJS.ProcessEnv, dataDir: string): string {
  const v = env[name];
  if (!v)
    throw new Error(
      `${name} is not set and no running stack was found (${connectionFilePath(dataDir)}): start one with \`npm start\` (or \`npm run stack -- up\`), or set ${name} to an existing service`,
    );
  return v;
}

/**
 * The configuration from the environment; when no connection variable is set, from the
 * connection file that `npm start` left in the data folder (MDQ_DATA_DIR, else .data/).
 */
export function loadConfig(given: NodeJS.ProcessEnv = process.env, dataDir: string = given.MDQ_DATA_DIR || defaultDataDir()): Config {
  const env = withConnectionFile(given, dataDir);
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a TCP port, got ${env.PORT}`);
  return {
    kafkaBrokers: required('KAFKA_BROKERS', env, dataDir)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    schemaRegistryUrl: required('SCHEMA_REGISTRY_URL', env, dataDir).replace(/\/+$/, ''),
    redisUrl: required('REDIS_URL', env, dataDir),
    viewsRedisUrl: env.VIEWS_REDIS_URL || required('REDIS_URL', env, dataDir),
    port,
    topicPrefix: env.MDQ_TOPIC_PREFIX ?? '',
    keyPrefix: env.MDQ_KEY_PREFIX ?? 'mdq',
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}

/**
 * A numeric setting from the environment: `fallback` when unset or empty; an error saying what it
 * must be (`rule`, e.g. 'a positive integer') when `valid` refuses it.
 */
export function numberVar(name: string, fallback: number, rule: string, valid: (v: number) => boolean, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!valid(v)) throw new Error(`${name} must be ${rule}, got '${raw}'`);
  return v;
}

/** The usual case: a positive integer of at most `max`. */
export function positiveIntVar(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env, max = Number.MAX_SAFE_INTEGER): number {
  return numberVar(
    name,
    fallback,
    max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `an integer from 1 to ${max}`,
    (v) => Number.isSafeInteger(v) && v >= 1 && v <= max,
    env,
  );
}

/** A TCP port (0 = any free one). */
export function portVar(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  return numberVar(name, fallback, 'a TCP port', (v) => Number.isInteger(v) && v >= 0 && v <= 65535, env);
}
