// Runs the slowest test files first, so that neither jest worker is left with a long file at the
// end of the run while the other is idle. On a fresh clone jest has no timings of its own (it
// would order by file size, which puts a 130 s file among the last); test-durations.json holds
// each file's seconds from a recent run (refresh it with `node scripts/test-durations.cjs`).
const path = require('path');
const Sequencer = require('@jest/test-sequencer').default;
const durations = require('./test-durations.json');

class SlowestFirst extends Sequencer {
  sort(tests) {
    const seconds = (t) => durations[path.relative(t.context.config.rootDir, t.path)] ?? 0;
    // Jest's own order (failures first, then its cached timings or file size) breaks ties.
    const order = new Map(super.sort(tests).map((t, i) => [t.path, i]));
    return [...tests].sort((a, b) => seconds(b) - seconds(a) || order.get(a.path) - order.get(b.path));
  }
}
module.exports = SlowestFirst;
