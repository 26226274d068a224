// Two projects: fast unit tests with no infrastructure, and integration/end-to-end tests that
// run against a real Kafka, schema registry and Redis which the global setup provisions on free
// ports in a temporary folder (or takes from KAFKA_BROKERS / SCHEMA_REGISTRY_URL / REDIS_URL / VIEWS_REDIS_URL).
// A third, the fault suite, exists only in `npm run faults` (scripts/test-cluster.cjs sets
// MDQ_JEST_FAULTS): minutes of injected faults that `npm test` does not run.
const transform = { '^.+\\.tsx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

/** What a project whose tests run against the private stack adds. */
const onStack = {
  // Jest's node environment, with each worker ending when its jest does (tied-environment.cjs).
  testEnvironment: '<rootDir>/test/support/tied-environment.cjs',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/integration-timeout.ts', '<rootDir>/test/support/phase-profile-setup.ts'],
};

const faults = {
  displayName: 'faults',
  transform,
  testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
  ...onStack,
};

/** @type {import('jest').Config} */
module.exports = {
  // Both cores: the stack's JVMs and Redis leave about a third of the machine idle with one worker.
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/support/sequencer.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      transform,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      ...onStack,
    },
    ...(process.env.MDQ_JEST_FAULTS ? [faults] : []),
  ],
};
