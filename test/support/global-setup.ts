import fs from 'fs';
import os from 'os';
import path from 'path';
import { stackUp } from '../../services/stack/stack';

/**
 * Provisions a private stack for the integration and end-to-end tests: its own Kafka, registry
 * and two Redis servers (keys and jobs; views) on free ports under a temporary folder, so `npm test` runs beside `npm start` and
 * never touches its data. Connection variables already set in the environment are used instead.
 * The variables are exported to the test workers through process.env.
 */
export default async function globalSetup(): Promise<void> {
  // Remember what was given, so the teardown stops only what this run started.
  process.env.MDQ_GIVEN_KAFKA = process.env.KAFKA_BROKERS ?? '';
  process.env.MDQ_GIVEN_REGISTRY = process.env.SCHEMA_REGISTRY_URL ?? '';
  process.env.MDQ_GIVEN_REDIS = process.env.REDIS_URL ?? '';
  process.env.MDQ_GIVEN_VIEWS_REDIS = process.env.VIEWS_REDIS_URL ?? '';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-test-stack-'));
  const started = Date.now();
  const env = await stackUp({ dataDir, freePorts: true, env: process.env, log: (m) => process.stdout.write(`\n[test stack] ${m}`) });
  process.stdout.write(`\n[test stack] ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  Object.assign(process.env, env);
  process.env.MDQ_TEST_STACK_DIR = dataDir;
}
