import { Writable } from 'stream';
import pino from 'pino';
import { ReplyError } from 'ioredis';
import { errorSummary } from '../../services/redis/errors';

/** What the projector logs when a chunk is refused: the reasons, not the chunk. */
function execAbort(): Error {
  const err = new ReplyError('EXECABORT Transaction discarded because of previous errors.') as Error & Record<string, unknown>;
  err.command = { name: 'exec', args: [] };
  const oom = (i: number) =>
    Object.assign(new ReplyError("OOM command not allowed when used memory > 'maxmemory'."), {
      command: { name: 'ZADD', args: ['k', '0', 'x'.repeat(10_000 + i)] },
    });
  err.previousErrors = [
    oom(1),
    oom(2),
    Object.assign(new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'), { command: { name: 'HSET', args: ['k'] } }),
  ];
  return err;
}

describe('errorSummary', () => {
  it('a refused transaction: its distinct reasons, the command name, no arguments, no stack', () => {
    const s = errorSummary(execAbort());
    expect({ ...s }).toEqual({
      name: 'ReplyError',
      message: 'EXECABORT Transaction discarded because of previous errors.',
      command: 'exec',
      reasons: ["OOM command not allowed when used memory > 'maxmemory'.", 'WRONGTYPE Operation against a key holding the wrong kind of value'],
    });
  });
  it('keeps at most five reasons', () => {
    const err = Object.assign(new ReplyError('EXECABORT'), { previousErrors: Array.from({ length: 9 }, (_, i) => new ReplyError(`E${i}`)) });
    expect(errorSummary(err).reasons).toEqual(['E0', 'E1', 'E2', 'E3', 'E4']);
  });
  it('other errors keep their stack; non-errors become text', () => {
    const e = new TypeError('boom');
    expect({ ...errorSummary(e) }).toEqual({ name: 'TypeError', message: 'boom', stack: e.stack });
    expect({ ...errorSummary('plain') }).toEqual({ name: 'string', message: 'plain' });
  });
  it('logged by pino as err: typed by the error name, a few hundred bytes', () => {
    const lines: string[] = [];
    const log = pino({ level: 'error' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    log.error({ err: errorSummary(execAbort()) }, 'could not apply a batch; retrying');
    const line = JSON.parse(lines[0]);
    expect(line.err).toMatchObject({ type: 'ReplyError', name: 'ReplyError', command: 'exec' });
    expect(line.err.reasons[0]).toMatch(/^OOM command not allowed/);
    expect(lines[0].length).toBeLessThan(600);
  });
});
