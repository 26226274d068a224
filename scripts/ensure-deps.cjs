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

if (needsInstall()) {
  console.log('[deps] installing node dependencies...');
  // `npm install` rather than `npm ci`: it installs the locked versions as well, and npm 11 on
  // this machine kind (omit-lockfile-registry-resolved) refuses `npm ci` on its own lock file.
  execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
