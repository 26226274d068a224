import { EventEmitter } from 'events';
import type { Request, Response } from 'express';
import pino from 'pino';
import { requestLog, requestLogger } from '../../api/request/request-log';

/** A fake request and response: enough of each for the middleware, which reads little. */
function exchange(status: number, finished = true) {
  const res = Object.assign(new EventEmitter(), { statusCode: status, writableFinished: finished, setHeader: () => undefined }) as unknown as Response;
  const req = { method: 'POST', originalUrl: '/v1/mdq_ABCDEFGHIJK?a=1', headers: {} } as unknown as Request;
  return { req, res };
}

function logged(level: string) {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { log, lines };
}

/** Runs the middleware over one exchange and closes the response. */
function serve(log: pino.Logger, status: number, finished = true) {
  const { req, res } = exchange(status, finished);
  let nexted = false;
  requestLogger(log, () => '/v1/x')(req, res, () => (nexted = true));
  expect(nexted).toBe(true);
  res.emit('close');
  return req;
}

describe('the request log', () => {
  it('writes one line per request, at info, warn for 503 and error for other 5xx, the path scrubbed', () => {
    const { log, lines } = logged('info');
    serve(log, 200);
    serve(log, 503);
    serve(log, 500);
    serve(log, 200, false);
    expect(lines.map((l) => [l.level, l.msg, l.status])).toEqual([
      [30, 'request', 200],
      [40, 'request failed', 503],
      [50, 'request failed', 500],
      [30, 'request', 200],
    ]);
    expect(lines[0]).toMatchObject({ method: 'POST', endpoint: '/v1/x', path: '/v1/mdq_[redacted]' });
    expect(typeof lines[0].requestId).toBe('string');
    expect(typeof lines[0].ms).toBe('number');
    expect(lines[3].aborted).toBe(true);
    expect(lines[0].aborted).toBeUndefined();
  });

  it('writes nothing below its level, and builds no line for it', () => {
    const { log, lines } = logged('warn');
    const label = jest.fn(() => '/v1/x');
    const { req, res } = exchange(200);
    requestLogger(log, label)(req, res, () => undefined);
    res.emit('close');
    serve(log, 503);
    expect(label).not.toHaveBeenCalled();
    expect(lines.map((l) => l.status)).toEqual([503]);
  });

  it("makes the request's logger on first use only, bound to the request id, and reuses it", () => {
    const { log, lines } = logged('info');
    const child = jest.spyOn(log, 'child');
    const req = serve(log, 200);
    expect(child).not.toHaveBeenCalled();
    const first = requestLog(req, log);
    expect(requestLog(req, log)).toBe(first);
    expect(child).toHaveBeenCalledTimes(1);
    first.warn('from a handler');
    expect(lines.at(-1)).toMatchObject({ msg: 'from a handler', requestId: req.requestId });
    // A request the middleware never saw logs through the fallback.
    const other = pino({ level: 'silent' });
    expect(requestLog({} as Request, other)).toBe(other);
  });
});
