import { spawn } from 'child_process';
import path from 'path';

/** A process told to stop ends, even when its graceful stop waits for something that is gone. */
const MODULE = path.join(__dirname, '..', '..', 'services', 'stop-signal.ts');

function run(stopBody: string): Promise<{ code: number | null; ms: number; err: string }> {
  const script = `const { onStopSignal } = require(${JSON.stringify(MODULE)});
onStopSignal((signal) => { ${stopBody} }, 500);
setInterval(() => {}, 1000);
process.stdout.write('ready\\n');`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => {
    let sent = 0;
    child.stdout.on('data', () => {
      sent = Date.now();
      child.kill('SIGTERM');
    });
    child.on('exit', (code) => resolve({ code, ms: Date.now() - sent, err }));
  });
}

describe('onStopSignal', () => {
  it('exits with 1 after the grace when the stop never finishes', async () => {
    const r = await run('new Promise(() => {});');
    expect(r.code).toBe(1);
    expect(r.ms).toBeGreaterThanOrEqual(450);
    expect(r.ms).toBeLessThan(5_000);
    expect(r.err).toContain('SIGTERM: not stopped after 500 ms; exiting');
  });

  it('leaves a stop that finishes in time to end the process its own way', async () => {
    const r = await run('setTimeout(() => process.exit(0), 50);');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
  });
});
