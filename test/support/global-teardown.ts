import fs from 'fs';
import { stackDown } from '../../services/stack/stack';

export default async function globalTeardown(): Promise<void> {
  const dataDir = process.env.MDQ_TEST_STACK_DIR;
  if (!dataDir) return;
  // Only what this run provisioned is stopped: env-given services were never in its component list.
  // The profile is MDQ_STACK_PROFILE's, as at setup (same process).
  await stackDown({
    dataDir,
    env: {
      KAFKA_BROKERS: process.env.MDQ_GIVEN_KAFKA,
      SCHEMA_REGISTRY_URL: process.env.MDQ_GIVEN_REGISTRY,
      REDIS_URL: process.env.MDQ_GIVEN_REDIS,
      VIEWS_REDIS_URL: process.env.MDQ_GIVEN_VIEWS_REDIS,
    },
  });
  fs.rmSync(dataDir, { recursive: true, force: true });
}
