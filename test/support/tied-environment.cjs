'use strict';
// The test environment of the files that run on the test stack: jest's node environment, and a
// watch that ends the jest worker (or an in-band jest) when the process that started it dies.
// Jest forks its workers itself, so they cannot be started tied to it (services/stack/parent-
// death.ts), and a worker whose jest was killed would otherwise run its file to the end, or hang
// for ever in a teardown that waits for the killed stack, with the APIs and projectors it
// started. Those follow the worker: they are spawned tied to it (test/support/pipeline.ts).
//
// The watch lives here, outside the test files' sandboxes, once per process and for its whole
// life, teardowns included; plain CommonJS because jest loads environments before transforming.
const { setInterval } = require('timers');
const { TestEnvironment } = require('jest-environment-node');

const WATCH = Symbol.for('mdq.parentWatch');

function watchParent() {
  if (process[WATCH]) return;
  const parent = process.ppid;
  // Polled: Linux tells a process of its parent's death only through a signal set at its start.
  process[WATCH] = setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
  }, 1000);
  process[WATCH].unref();
}

module.exports = class TiedEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    watchParent();
  }
};
