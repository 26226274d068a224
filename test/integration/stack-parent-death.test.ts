import { ChildProcess, spawn } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { removeDeadStackFolders } from '../support/global-setup';
import { waitFor } from '../support/env';
import { isAlive, readPid } from '../../services/stack/process';
import { repoRoot } from '../../services/stack/paths';

/**
 * Nothing outlives a killed test run: a jest run with the test stack's global setup and two files
 * that each hold a process (one in a test, one in a teardown that never ends), killed with SIGKILL
 * (no teardown runs), leaves no daemon of its stack, no jest worker and no process a test started.
 * Its stack is Kafka and the two redis-servers (the registry is taken from this run's stack: it is
 * a JVM started the same way as Kafka's).
 */
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-killed-run-'));
let run: ChildProcess | undefined;

afterAll(() => {
  if (run?.pid && isAlive(run.pid)) run.kill('SIGKILL');
  fs.rmSync(runDir, { recursive: true, force: true });
});

interface Held {
  worker: number;
  spawned: number;
  stackDir: string;
}

it('a SIGKILLed jest takes its stack, its workers and what its tests started with it', async () => {
  const config = {
    rootDir: repoRoot,
    testEnvironment: '<rootDir>/test/support/tied-environment.cjs',
    transform: { '^.+\\.tsx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
    testMatch: ['<rootDir>/test/support/killed-run/*.test.ts'],
    globalSetup: '<rootDir>/test/support/global-setup.ts',
    maxWorkers: 2,
    // No timings from an earlier run, which could make jest run both files in its own process.
    cacheDirectory: path.join(runDir, 'cache'),
  };
  const env: NodeJS.ProcessEnv = { ...process.env, MDQ_KILLED_RUN_DIR: runDir, MDQ_STACK_PROFILE: 'single' };
  for (const k of ['KAFKA_BROKERS', 'REDIS_URL', 'VIEWS_REDIS_URL']) delete env[k];
  let out = '';
  run = spawn(process.execPath, [path.join(repoRoot, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', JSON.stringify(config)], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  run.stdout!.on('data', (d) => (out += d));
  run.stderr!.on('data', (d) => (out += d));
  const files = ['first', 'second'].map((n) => path.join(runDir, `${n}.json`));
  await waitFor('both files of the run to hold the stack', async () => files.every((f) => fs.existsSync(f)), 180_000, 250).catch((err: Error) => {
    throw new Error(`${err.message}; the run's output:\n${out}`);
  });
  const held = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as Held);
  const stackDir = held[0].stackDir;
  const daemons = ['kafka/kafka.pid', 'redis/redis.pid', 'views-redis/redis.pid'].map((f) => readPid(path.join(stackDir, f))!);
  const workers = held.map((h) => h.worker);
  const spawned = held.map((h) => h.spawned);
  // The files ran in two workers of their own, and everything is running before the kill.
  expect(new Set([run.pid, ...workers]).size).toBe(3);
  const all = [...daemons, ...workers, ...spawned];
  expect(all.filter((p) => !isAlive(p))).toEqual([]);

  const killedAt = Date.now();
  run.kill('SIGKILL');
  await waitFor('every process of the killed run to end', async () => all.every((p) => !isAlive(p)), 10_000, 100).catch(() => {});
  const seconds = (Date.now() - killedAt) / 1000;
  expect(all.filter((p) => isAlive(p))).toEqual([]);
  process.stdout.write(`killed run: ${all.length} processes gone ${seconds.toFixed(1)} s after the SIGKILL\n`);
  expect(seconds).toBeLessThan(5);
  // Nor any other process naming the stack's folder.
  const named = fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(stackDir);
      } catch {
        return false;
      }
    });
  expect(named).toEqual([]);
  // What remains is the folder, which the next run's setup removes.
  expect(fs.existsSync(stackDir)).toBe(true);
  removeDeadStackFolders();
  expect(fs.existsSync(stackDir)).toBe(false);
}, 240_000);
