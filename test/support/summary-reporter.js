// Prints the plain closing line CI reads ("N passed, N failed, N skipped") after jest's own summary.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests: p, numFailedTests: f, numPendingTests: s, numTodoTests: t, numRuntimeErrorTestSuites: e } = results;
    process.stdout.write(`\n${p} passed, ${f + e} failed, ${s + t} skipped\n`);
  }
}
module.exports = SummaryReporter;
