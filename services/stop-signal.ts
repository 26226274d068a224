/**
 * Runs `stop` on the first SIGTERM or SIGINT and makes sure the process then ends: a graceful stop
 * (finish the batch, commit, leave the group) waits on Kafka and Redis, and when they are gone
 * too (a killed test run takes its stack with it; the parent-death signal is a SIGTERM) it would
 * wait for good. After `graceMs` (MDQ_STOP_GRACE_MS, default 30 s) the process exits with 1;
 * nothing is lost, as after a kill -9: transactions make every stop point safe.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => unknown, graceMs = Number(process.env.MDQ_STOP_GRACE_MS ?? 30_000)): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      process.stderr.write(`${signal}: not stopped after ${graceMs} ms; exiting\n`);
      process.exit(1);
    }, graceMs).unref();
    stop(signal);
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
