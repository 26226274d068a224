#!/usr/bin/env node
// Writes test/support/test-durations.json (the seconds each test file took) from a jest JSON
// result: `npm test -- --json --outputFile=/tmp/jest.json && node scripts/test-durations.cjs /tmp/jest.json`.
// The test sequencer runs the slowest files first by it.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const results = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const durations = Object.fromEntries(
  results.testResults
    // Paths from the run's own checkout, which may be another clone: from its test/ folder on.
    .map((r) => [r.name.slice(r.name.lastIndexOf('/test/') + 1), Math.round((r.endTime - r.startTime) / 100) / 10])
    .sort((a, b) => b[1] - a[1]),
);
fs.writeFileSync(path.join(root, 'test/support/test-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files written to test/support/test-durations.json`);
