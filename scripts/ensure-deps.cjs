#!/usr/bin/env node
// Runs before `npm start` and `npm test`: installs node dependencies when they are missing or
// older than package-lock.json, so a fresh clone needs no separate install step.
// Plain CommonJS with no dependencies, because it runs before anything is installed.
'use strict';
const fs = require('fs');
const path = require('path');
const { execSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const lock = path.join(root, 'package-lock.json');
const marker = path.join(root, 'node_modules', '.package-lock.json');

function needsInstall() {
  if (!fs.existsSync(marker)) return true;
  if (!fs.existsSync(lock)) return false;
  return fs.statSync(lock).mtimeMs > fs.statSync(marker).mtimeMs;
}

/**
 * Packages whose patch (patches/<name>+<version>.patch, applied by patch-package at postinstall)
 * changed since the last install. A patch is made against the published files, so such a package
 * is removed first and installed again pristine; `npm install` alone would leave the old patch.
 */
function stalePatchedPackages() {
  const dir = path.join(root, 'patches');
  if (!fs.existsSync(marker) || !fs.existsSync(dir)) return [];
  const installed = fs.statSync(marker).mtimeMs;
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.patch') && fs.statSync(path.join(dir, f)).mtimeMs > installed)
    .map((f) => f.slice(0, -'.patch'.length).split('+').slice(0, -1).join('/'));
}

const stale = stalePatchedPackages();
for (const pkg of stale) {
  console.log(`[deps] ${pkg}: its patch changed; installing it again`);
  fs.rmSync(path.join(root, 'node_modules', pkg), { recursive: true, force: true });
}

if (stale.length || needsInstall()) {
  console.log('[deps] installing node dependencies...');
  // `npm install` rather than `npm ci`: it installs the locked versions as well, and npm 11 on
  // this machine kind (omit-lockfile-registry-resolved) refuses `npm ci` on its own lock file.
  execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
