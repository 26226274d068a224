import fs from 'fs';
import path from 'path';

/**
 * The connection file: `npm start` (and `npm run stack -- up`) write the connection variables of
 * the stack they run into the data folder, and every other command falls back to it when none of
 * those variables is set. So `npm run ingest -- status`, `npm run keys -- create`, the projector's
 * rebuild and the benchmarks find the running stack from a second terminal with no variable set.
 */

/** The variables that say which stack a process talks to. */
export const CONNECTION_VARS = ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'REDIS_URL', 'VIEWS_REDIS_URL'] as const;
/** Namespacing that must match the running service's, carried with the connection. */
export const NAMESPACE_VARS = ['MDQ_TOPIC_PREFIX', 'MDQ_KEY_PREFIX'] as const;

export type ConnectionVars = Partial<Record<(typeof CONNECTION_VARS)[number] | (typeof NAMESPACE_VARS)[number], string>>;

export function connectionFilePath(dataDir: string): string {
  return path.join(dataDir, 'connection.json');
}

/** Writes the variables the stack's processes run with (written whole, then renamed, so a reader never sees half a file). */
export function writeConnectionFile(dataDir: string, env: NodeJS.ProcessEnv, writtenBy: string): string {
  const vars: ConnectionVars = {};
  for (const k of [...CONNECTION_VARS, ...NAMESPACE_VARS]) if (env[k]) vars[k] = env[k];
  const file = connectionFilePath(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ writtenBy, pid: process.pid, writtenTime: Date.now(), vars }, null, 2)}\n`);
  fs.renameSync(tmp, file);
  return file;
}

/** The file's variables, or null when there is none (or it cannot be read as one). */
export function readConnectionFile(dataDir: string): ConnectionVars | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(connectionFilePath(dataDir), 'utf8')) as { vars?: unknown };
    if (!parsed.vars || typeof parsed.vars !== 'object') return null;
    const out: ConnectionVars = {};
    for (const k of [...CONNECTION_VARS, ...NAMESPACE_VARS]) {
      const v = (parsed.vars as Record<string, unknown>)[k];
      if (typeof v === 'string' && v) out[k] = v;
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * The environment a command runs with: its own when it names a stack (any connection variable
 * set: the caller chose one, and half of another stack's settings would mix two), else the
 * running stack's variables from the data folder under its own.
 */
export function withConnectionFile(env: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  if (CONNECTION_VARS.some((k) => env[k])) return env;
  const vars = readConnectionFile(dataDir);
  if (!vars) return env;
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [k, v] of Object.entries(vars)) if (!out[k]) out[k] = v;
  return out;
}
