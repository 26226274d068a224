import { ChildProcess, spawn } from 'child_process';
import fs from 'fs';
import path from 'path';
import { tiedToParent } from '../../../services/stack/parent-death';

/**
 * What each file of the run that test/integration/stack-parent-death.test.ts kills does: starts a
 * process as the tests start APIs and projectors (tied to its jest worker), says which processes it
 * has, then waits to be killed: in a test, or (`teardown`) in an afterAll that never ends, as a
 * teardown waiting for a stack that is gone would.
 */
export function holdTheStack(name: string, where: 'test' | 'teardown' = 'test'): void {
  let child: ChildProcess;
  const hold = async () => {
    const record = { worker: process.pid, spawned: child.pid, stackDir: process.env.MDQ_TEST_STACK_DIR };
    const out = path.join(process.env.MDQ_KILLED_RUN_DIR!, `${name}.json`);
    fs.writeFileSync(`${out}.tmp`, JSON.stringify(record));
    fs.renameSync(`${out}.tmp`, out);
    await new Promise(() => {});
  };
  it('starts a process tied to its worker', async () => {
    child = spawn(...tiedToParent(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], 'TERM'), { stdio: 'ignore' });
    if (where === 'test') await hold();
  }, 600_000);
  if (where === 'teardown') afterAll(hold, 600_000);
}
