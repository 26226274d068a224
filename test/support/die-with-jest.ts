import fs from 'fs';

/**
 * Ends the jest worker (or in-band jest) running this file when the process that started it dies
 * (setupFilesAfterEnv). Jest's workers are forked by jest itself, so they cannot be started tied
 * to it (services/stack/parent-death.ts), and a worker whose jest was killed would otherwise run
 * its file to the end, APIs and projectors with it. Inside a test `process.ppid` is a copy taken
 * when the file's sandbox was made, so the live parent is read from /proc (Linux, like setpriv).
 * The processes the file started (test/support/pipeline.ts spawnTs) follow it: they are tied to it.
 */
function parentPid(): number | null {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // "pid (command) state ppid ...": the command may hold spaces and parentheses.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

const parent = parentPid();
if (parent !== null) {
  const watch = setInterval(() => {
    if (parentPid() !== parent) process.kill(process.pid, 'SIGKILL');
  }, 1000);
  watch.unref();
  afterAll(() => clearInterval(watch));
}
