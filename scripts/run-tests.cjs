#!/usr/bin/env node
// `npm test`: installs what is missing, then the static checks (type-check, ESLint, Prettier) side
// by side (each uses one core), then jest with any arguments given after `--`. The start time goes
// to jest's summary reporter, which prints the wall time of the whole run.
// Plain CommonJS with no dependencies, because it runs before anything is installed.
'use strict';
const path = require('path');
const { spawn, execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const started = Date.now();
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

execFileSync(process.execPath, [path.join(__dirname, 'ensure-deps.cjs')], { cwd: root, stdio: 'inherit' });

/** Runs a command with its output held, so the three checks do not interleave; resolves with its exit code. */
function check(label, command, args) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      process.stdout.write(`[${label}] ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${((Date.now() - t0) / 1000).toFixed(0)} s\n${code === 0 ? '' : out}`);
      resolve(code);
    });
  });
}

async function main() {
  const codes = await Promise.all([
    check('type-check', bin('tsc'), ['--noEmit', '-p', '.']),
    check('eslint', bin('eslint'), ['.']),
    check('prettier', bin('prettier'), ['--check', '.']),
  ]);
  if (codes.some((c) => c !== 0)) process.exit(1);
  const jest = spawn(bin('jest'), process.argv.slice(2), {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MDQ_TEST_STARTED: String(started) },
  });
  jest.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main();
