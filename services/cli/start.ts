import { ChildProcess, spawn } from 'child_process';
import fs from 'fs';
import path from 'path';
import { ensureDevKey } from '../auth/dev-key';
import { loadConfig } from '../config';
import { nodeArgv } from '../node-args';
import { provisionTopicsAndSchemas } from '../kafka/provision';
import { writeConnectionFile } from '../stack/connection-file';
import { tiedToParent } from '../stack/parent-death';
import { defaultDataDir, repoRoot } from '../stack/paths';
import { stackUp } from '../stack/stack';

/**
 * `npm start`: brings the local stack up (or uses KAFKA_BROKERS / SCHEMA_REGISTRY_URL /
 * REDIS_URL), creates topics and registers schemas, makes sure a local API key exists, then runs
 * the ingest feed, the order-flow processor, the projectors and the API as child processes until
 * Ctrl-C; they stop with it, even when it is killed. Their JSON logs go to .data/logs/. The stack
 * keeps running afterwards (`npm run stack -- down` stops it). MDQ_STACK_PROFILE=cluster runs the
 * cluster profile's stack (services/stack/profile.ts) from .data/cluster/.
 */

const say = (m: string) => console.log(`[start] ${m}`);

/**
 * A process of the service, stopped with `npm start` however it ends: Ctrl-C, or a SIGKILL that
 * gives it no chance to pass the signal on (the kernel sends SIGTERM, parent-death.ts). The stack's
 * daemons are not tied: they stay up until `npm run stack -- down`, so the next start is warm.
 */
function spawnTied(script: string, args: string[], env: NodeJS.ProcessEnv, log: number): ChildProcess {
  return spawn(...tiedToParent(process.execPath, nodeArgv(script, args), 'TERM'), { cwd: repoRoot, env, stdio: ['ignore', log, log] });
}

function runChild(
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logDir: string,
  children: Map<string, ChildProcess>,
  stopping: () => boolean,
): void {
  const log = fs.openSync(path.join(logDir, `${name}.log`), 'a');
  const child = spawnTied(script, args, env, log);
  children.set(name, child);
  child.on('exit', (code, signal) => {
    fs.closeSync(log);
    children.delete(name);
    if (stopping()) return;
    // A supervisor in miniature: a crashed process is restarted; its state lives in Kafka/Redis.
    say(`${name} exited (${signal ?? code}); restarting in 2 s — see .data/logs/${name}.log`);
    setTimeout(() => runChild(name, script, args, env, logDir, children, stopping), 2_000);
  });
}

/** A one-shot helper process (not restarted); its output goes to the log folder. */
function runOnce(name: string, script: string, args: string[], env: NodeJS.ProcessEnv, logDir: string): void {
  const log = fs.openSync(path.join(logDir, `${name}.log`), 'a');
  const child = spawnTied(script, args, env, log);
  child.on('exit', (code) => {
    fs.closeSync(log);
    if (code !== 0) say(`${name} failed (exit ${code}) — see .data/logs/${name}.log`);
  });
}

async function main(): Promise<void> {
  const dataDir = defaultDataDir();
  const t0 = Date.now();
  const stackEnv = await stackUp({ dataDir, log: (m) => say(m) });
  const env: NodeJS.ProcessEnv = { ...process.env, ...stackEnv };
  const config = loadConfig(env);
  await provisionTopicsAndSchemas(config);
  say(`topics created and schemas registered (stack ready in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  await ensureDevKey(dataDir, env, say);
  // Commands in another terminal (ingest, keys, projector, benchmarks) find this stack from here.
  writeConnectionFile(dataDir, env, 'npm start');

  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  // The projector has no API of its own: its lag and applied offsets are on METRICS_PORT (PORT + 1).
  const projectorMetricsPort = env.METRICS_PORT ?? String(config.port + 1);
  runChild('projector', 'projections/main.ts', [], { ...env, METRICS_PORT: projectorMetricsPort }, logDir, children, () => stopping);
  // The order-flow processor derives enriched prints and consolidated trades for the projectors;
  // its metrics are on the port after the projector's.
  const processorMetricsPort = String(Number(projectorMetricsPort) + 1);
  runChild(
    'order-flow-processor',
    'projections/order-flow-processor/main.ts',
    [],
    { ...env, METRICS_PORT: processorMetricsPort },
    logDir,
    children,
    () => stopping,
  );
  runChild('ingest-worker', 'ingest/worker.ts', [], env, logDir, children, () => stopping);
  runChild('news-feed', 'ingest/cli.ts', ['news-live'], env, logDir, children, () => stopping);
  // The simulated market: the live session first (its own queue), then the history: the latest
  // completed session with full ticks, the daily tier of 400 sessions, then the ticks of the next
  // 29 in the background (ingest/jobs/history.ts; `ingest -- status` shows how far and how long).
  // Enqueuing is idempotent: finished sessions are skipped, the live job is joined if running.
  const historySessions = process.env.MDQ_HISTORY_SESSIONS ?? '400';
  const tickSessions = process.env.MDQ_TICK_SESSIONS ?? '30';
  const history = ['history', '--no-wait', '--sessions', historySessions, '--tick-sessions', tickSessions];
  runOnce('enqueue-live', 'ingest/cli.ts', ['live', '--no-wait'], env, logDir);
  runOnce('enqueue-history', 'ingest/cli.ts', history, env, logDir);
  runChild('api', 'api/main.ts', [], env, logDir, children, () => stopping);
  say(`API on http://localhost:${config.port}  (logs in ${path.relative(process.cwd(), logDir)}/)`);
  say(
    `reference: http://localhost:${config.port}/docs   metrics: :${config.port}/metrics (API), :${projectorMetricsPort}/metrics (projector), :${processorMetricsPort}/metrics (order-flow processor)`,
  );
  say(
    `try: curl -s -X POST http://localhost:${config.port}/v1/news/tool/news-articles -H "Authorization: Bearer $(cat .data/dev-api-key)" -H 'Content-Type: application/json' -d '{"size": 3}'`,
  );
  say(
    `market data: the live session and ${historySessions} sessions of history (the newest ${tickSessions} with ticks, those of all but the newest arriving in the background) are being produced; follow with \`npm run ingest -- status\``,
  );
  say('Ctrl-C stops the service; `npm run stack -- down` stops Kafka, the registry and both Redis servers.');

  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    say('stopping...');
    for (const c of children.values()) c.kill('SIGTERM');
    const check = setInterval(() => {
      if (children.size === 0) {
        clearInterval(check);
        process.exit(0);
      }
    }, 100);
    setTimeout(() => process.exit(0), 20_000).unref();
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err) => {
  console.error(`[start] ${(err as Error).message}`);
  process.exit(1);
});
