#!/usr/bin/env node
// `npm test`: installs what is missing, then the static checks (type-check, ESLint, Prettier) and
// jest (with any arguments given after `--`) side by side. The start time goes to jest's summary
// reporter, which prints the wall time of the whole run.
// Plain CommonJS with no dependencies, because it runs before anything is installed.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn, execFileSync } = require('child_process');
const { setInterval } = require('timers');

const root = path.resolve(__dirname, '..');
const started = Date.now();
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

execFileSync(process.execPath, [path.join(__dirname, 'ensure-deps.cjs')], { cwd: root, stdio: 'inherit' });

/**
 * `command args` started so that it gets SIGTERM when this process dies (Linux's parent-death
 * signal through util-linux's setpriv, as services/stack/parent-death.ts does): a killed
 * `npm test` takes jest with it, and jest its test stack. Without setpriv, started as it is.
 */
const tied = (() => {
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return (command, args) => ['setpriv', ['--pdeathsig', 'TERM', '--', command, ...args]];
  } catch {
    return (command, args) => [command, args];
  }
})();

/** Runs a command with its output held, so the three checks do not interleave; resolves with its exit code. */
function check(label, command, args) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(...tied(command, args), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      process.stdout.write(`[${label}] ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${((Date.now() - t0) / 1000).toFixed(0)} s\n${code === 0 ? '' : out}`);
      resolve(code);
    });
  });
}

/**
 * The checks run beside jest rather than before it: they fill the cores while jest's global setup
 * starts the stack (mostly JVMs waking up). A failed check is printed as soon as it is known and
 * fails the run, but jest is left to finish, so its teardown still stops the private stack.
 */
/** The parent of a process, from /proc (null where there is none to read). */
function ppidOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * The other half of a killed `npm test`: this process ends when npm does, which ends jest (tied
 * above) and jest its stack. npm runs it through `sh -c`, which outlives a killed npm, so both
 * the parent and the grandparent are watched: either going away changes a parent pid.
 */
function dieWithCaller() {
  const parent = process.ppid;
  const grandparent = ppidOf(parent);
  setInterval(() => {
    if (process.ppid !== parent || ppidOf(parent) !== grandparent) process.kill(process.pid, 'SIGKILL');
  }, 1000).unref();
}

async function main() {
  dieWithCaller();
  const checks = Promise.all([
    check('type-check', bin('tsc'), ['--noEmit', '-p', '.']),
    check('eslint', bin('eslint'), ['.']),
    check('prettier', bin('prettier'), ['--check', '.']),
  ]);
  const jest = spawn(...tied(bin('jest'), process.argv.slice(2)), {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MDQ_TEST_STARTED: String(started) },
  });
  const jestCode = await new Promise((resolve) => jest.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  const failed = (await checks).some((c) => c !== 0);
  if (failed) process.stdout.write('npm test failed: a static check failed (see above)\n');
  process.exit(failed ? 1 : jestCode);
}

main();
