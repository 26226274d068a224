import fs from 'fs';
import os from 'os';
import path from 'path';
import { isAlive, readPid } from '../../services/stack/process';
import { stackProfile } from '../../services/stack/profile';
import { stackUp } from '../../services/stack/stack';

/**
 * Provisions a private stack for the integration and end-to-end tests: its own Kafka, registry
 * and two Redis servers (keys and jobs; views) on free ports under a temporary folder, so `npm test` runs beside `npm start` and
 * never touches its data. MDQ_STACK_PROFILE=cluster makes it the cluster profile (three brokers
 * and a Redis Cluster). Connection variables already set in the environment are used instead.
 * The variables are exported to the test workers through process.env.
 *
 * Every process of the stack dies with this jest process, however it ends (Ctrl-C, a CI
 * time-out, SIGKILL): services/stack/parent-death.ts. What a killed run leaves is its folder,
 * which the next run removes.
 */
const STACK_DIR_PREFIX = 'mdq-test-stack-';
const OWNER_FILE = 'owner.pid';

/** Folders of earlier test stacks whose jest process is gone and none of whose daemons runs. */
export function removeDeadStackFolders(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(STACK_DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    const owner = readPid(path.join(dir, OWNER_FILE));
    // Folders without an owner file are from before it existed, or being set up: left alone.
    if (owner === null || isAlive(owner)) continue;
    let daemons: number[] = [];
    try {
      daemons = fs
        .readdirSync(dir)
        .flatMap((c) =>
          fs.statSync(path.join(dir, c)).isDirectory()
            ? fs
                .readdirSync(path.join(dir, c))
                .filter((f) => f.endsWith('.pid'))
                .map((f) => path.join(dir, c, f))
            : [],
        )
        .map((f) => readPid(f))
        .filter((p): p is number => p !== null && isAlive(p, dir));
    } catch {
      continue; // removed meanwhile by another run
    }
    if (daemons.length === 0) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export default async function globalSetup(): Promise<void> {
  // Remember what was given, so the teardown stops only what this run started.
  process.env.MDQ_GIVEN_KAFKA = process.env.KAFKA_BROKERS ?? '';
  process.env.MDQ_GIVEN_REGISTRY = process.env.SCHEMA_REGISTRY_URL ?? '';
  process.env.MDQ_GIVEN_REDIS = process.env.REDIS_URL ?? '';
  process.env.MDQ_GIVEN_VIEWS_REDIS = process.env.VIEWS_REDIS_URL ?? '';
  removeDeadStackFolders();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), STACK_DIR_PREFIX));
  fs.writeFileSync(path.join(dataDir, OWNER_FILE), String(process.pid));
  const profile = stackProfile();
  const started = Date.now();
  const env = await stackUp({
    dataDir,
    profile,
    freePorts: true,
    dieWithParent: true,
    env: process.env,
    log: (m) => process.stdout.write(`\n[test stack] ${m}`),
  });
  process.stdout.write(`\n[test stack] ${profile} stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  Object.assign(process.env, env);
  process.env.MDQ_TEST_STACK_DIR = dataDir;
}
