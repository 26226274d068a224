// Prints the plain closing line CI reads ("N passed, N failed, N skipped") after jest's own summary,
// preceded by the slowest test files: the whole run must stay under 25 minutes on a 2-core machine.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const slowest = results.testResults
      .map((r) => ({ file: r.testFilePath.replace(process.cwd() + '/', ''), s: (r.perfStats.end - r.perfStats.start) / 1000 }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 10);
    if (slowest.length > 1) process.stdout.write(`\nslowest test files:\n${slowest.map((x) => `  ${x.s.toFixed(0).padStart(5)} s  ${x.file}`).join('\n')}\n`);
    const { numPassedTests: p, numFailedTests: f, numPendingTests: s, numTodoTests: t, numRuntimeErrorTestSuites: e } = results;
    process.stdout.write(`\n${p} passed, ${f + e} failed, ${s + t} skipped\n`);
  }
}
module.exports = SummaryReporter;
