import fs from 'fs';
import os from 'os';
import path from 'path';
import { runningPid, startDaemon, waitUntil } from '../../services/stack/process';

/** A stack daemon that dies during start-up is reported with how it ended, even with an empty log. */
describe('daemon start-up', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-daemon-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const spec = (name: string, script: string) => ({
    name,
    command: '/bin/sh',
    args: ['-c', script, dir],
    pidFile: path.join(dir, `${name}.pid`),
    logFile: path.join(dir, `${name}.log`),
    marker: dir,
  });

  it('names the signal that killed a daemon whose log is empty', async () => {
    const s = spec('killed', 'kill -KILL $$');
    startDaemon(s);
    const started = Date.now();
    await expect(waitUntil('killed', async () => false, { timeoutMs: 10_000, alive: () => runningPid(s) !== null, logFile: s.logFile })).rejects.toThrow(
      /^killed exited during start-up \(killed by SIGKILL\)/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('names the exit code and shows the log of a daemon that gave up', async () => {
    const s = spec('failed', 'echo "port taken"; exit 3');
    startDaemon(s);
    await expect(waitUntil('failed', async () => false, { timeoutMs: 10_000, alive: () => runningPid(s) !== null, logFile: s.logFile })).rejects.toThrow(
      /failed exited during start-up \(exit code 3\)[\s\S]*port taken/,
    );
  });

  it('waits for a daemon that is alive until it is ready', async () => {
    const s = spec('slow', 'sleep 1; touch "$0/ready"; sleep 30');
    const pid = startDaemon(s);
    try {
      await waitUntil('slow', async () => fs.existsSync(path.join(dir, 'ready')), {
        timeoutMs: 10_000,
        alive: () => runningPid(s) !== null,
        logFile: s.logFile,
      });
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });
});
