#!/usr/bin/env node
// `npm run test:cluster`: the integration and end-to-end tests against the cluster profile of the
// test stack (three KRaft brokers, replication factor 3, a Redis Cluster of three masters and
// three replicas: MDQ_STACK_PROFILE=cluster). `npm run test:cluster -- --ci` runs the subset
// .ci/run runs; any other arguments go to jest (file patterns, -t). `npm run faults` (--faults)
// runs the fault suite (test/faults), then 100,000 hostile bodies and the quota across three API
// processes on the cluster.
// Plain CommonJS with no dependencies, because it runs before anything is installed.
'use strict';
const path = require('path');
const { spawn, execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..');
execFileSync(process.execPath, [path.join(__dirname, 'ensure-deps.cjs')], { cwd: root, stdio: 'inherit' });

/** Tests of one server's behaviour, which a cluster does not have: not run here (why beside each). */
const SINGLE_NODE_ONLY = [
  'test/e2e/views-redis-full.test.ts', // the views' one redis-server at its maxmemory
  'test/e2e/redis-outage.test.ts', // stops a private redis-server; the fault suite fails masters over instead
  'test/e2e/cli-beside-start.test.ts', // npm start's own local stack
  'test/integration/atomic-apply.test.ts', // races injected through the one server's duplicate()
  'test/integration/stack-parent-death.test.ts', // starts stacks of its own
];

/**
 * What .ci/run runs after `npm test`: every mechanism the cluster changes, once. Projector
 * transactions on a slot's master and their retry, scatter reads per node (both tapes, the flow
 * cube, stock prices), BullMQ on hash-tagged keys, API keys and the quota across three processes,
 * the stack itself.
 */
const CI_SUBSET = [
  'test/integration/stack-cluster.test.ts',
  'test/integration/projector.test.ts',
  'test/integration/ingest-jobs.test.ts',
  'test/integration/stock-prices-reads.test.ts',
  'test/e2e/order-flow.test.ts',
  'test/e2e/api-keys.test.ts',
  'test/e2e/quota-shared.test.ts',
  'test/e2e/news-articles.test.ts',
];

/** One jest run on a private cluster stack of its own; resolves with its exit code. */
function jest(jestArgs, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(path.join(root, 'node_modules', '.bin', 'jest'), jestArgs, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...env, MDQ_STACK_PROFILE: 'cluster', MDQ_TEST_STARTED: String(Date.now()) },
    });
    for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => child.kill(s));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main() {
  const args = process.argv.slice(2);
  const rest = args.filter((a) => a !== '--ci' && a !== '--faults');
  if (args.includes('--faults')) {
    // MDQ_FAULT_RESULTS: every test of the run records its figures in test/bench/results/faults.json.
    const faults = await jest(['--selectProjects', 'faults', '--runInBand', ...rest], { MDQ_JEST_FAULTS: '1', MDQ_FAULT_RESULTS: '1' });
    // In band: the two would otherwise start their API processes side by side with the fuzz's load.
    const hostile = await jest(
      ['--selectProjects', 'integration', '--runInBand', '--runTestsByPath', 'test/e2e/fuzz.test.ts', 'test/e2e/quota-shared.test.ts'],
      {
        MDQ_FUZZ_RUNS: '100000',
        MDQ_FAULT_RESULTS: '1',
      },
    );
    process.exit(faults || hostile);
  }
  const subset = args.includes('--ci') ? ['--runTestsByPath', ...CI_SUBSET] : ['--testPathIgnorePatterns', ...SINGLE_NODE_ONLY];
  process.exit(await jest(['--selectProjects', 'integration', ...subset, ...rest]));
}

main();
