// Prints, after jest's own summary: the slowest test files, where each file's time went (when
// MDQ_TEST_PHASES names a folder: test/support/phase-profile.ts), the run's wall time, and last
// the plain closing line CI reads ("N passed, N failed, N skipped"). The whole `npm test` must
// stay under 12 minutes on a 2-core machine (docs/testing.md).
const fs = require('fs');
const path = require('path');

const seconds = (ms) => (ms / 1000).toFixed(0).padStart(5);

/** One row per integration file: load, each phase, and the rest (the tests' own requests and checks). */
function phaseTable(dir, files) {
  if (!fs.existsSync(dir)) return '';
  const records = fs.readdirSync(dir).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  const names = [...new Set(records.flatMap((r) => Object.keys(r.phases)))].sort();
  const head = ['total', 'load', ...names, 'rest'];
  const rows = records
    .map((r) => {
      const total = files.get(r.file) ?? 0;
      const spent = r.load + names.reduce((sum, n) => sum + (r.phases[n] ?? 0), 0);
      return { file: r.file, cells: [total, r.load, ...names.map((n) => r.phases[n] ?? 0), Math.max(0, total - spent)] };
    })
    .sort((a, b) => b.cells[0] - a.cells[0]);
  const width = Math.max(...head.map((h) => h.length), 5);
  const line = (cells, file) => `${cells.map((c) => String(c).padStart(width)).join(' ')}  ${file}`;
  const body = rows
    .map((r) =>
      line(
        r.cells.map((ms) => (ms / 1000).toFixed(0)),
        r.file,
      ),
    )
    .join('\n');
  return `\nseconds per integration file, by phase:\n${line(head, 'file')}\n${body}\n`;
}

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const files = new Map(results.testResults.map((r) => [path.relative(process.cwd(), r.testFilePath), r.perfStats.end - r.perfStats.start]));
    const slowest = [...files].sort((a, b) => b[1] - a[1]).slice(0, 10);
    if (slowest.length > 1) process.stdout.write(`\nslowest test files:\n${slowest.map(([file, ms]) => `  ${seconds(ms)} s  ${file}`).join('\n')}\n`);
    if (process.env.MDQ_TEST_PHASES) process.stdout.write(phaseTable(process.env.MDQ_TEST_PHASES, files));
    const now = Date.now();
    const started = Number(process.env.MDQ_TEST_STARTED);
    const whole = started ? `; npm test ${seconds(now - started).trim()} s in all` : '';
    process.stdout.write(`\nwall time: jest ${seconds(now - results.startTime).trim()} s${whole}\n`);
    const { numPassedTests: p, numFailedTests: f, numPendingTests: s, numTodoTests: t, numRuntimeErrorTestSuites: e } = results;
    process.stdout.write(`\n${p} passed, ${f + e} failed, ${s + t} skipped\n`);
  }
}
module.exports = SummaryReporter;
