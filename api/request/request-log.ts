import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../services/log';
import { requestId } from './request-id';

/** Anything shaped like an API key, in case a caller pastes one into a URL. */
const KEY_LIKE = /mdq_[A-Za-z0-9]{8,}/g;

const BASE = Symbol('request log base');
const CHILD = Symbol('request log');

declare module 'express-serve-static-core' {
  interface Request {
    [BASE]?: Logger;
    [CHILD]?: Logger;
  }
}

/**
 * The logger of a request: the app's, bound to the request id. Made on first use, since most
 * requests log nothing but their one line: a pino child per request (as pino-http makes two) was
 * a tenth of a small answer's CPU.
 */
export function requestLog(req: Request, fallback: Logger): Logger {
  const base = req[BASE];
  if (!base) return fallback;
  return (req[CHILD] ??= base.child({ requestId: req.requestId }));
}

/**
 * One structured log line per request: request id, method, endpoint (a route label, see
 * route-label.ts), path, status, latency in ms, and who asked (workspace, user, key id). Never the
 * Authorization header, a key, or the request body: those fields are simply not in the line (no
 * headers are serialised), and the path is scrubbed of key-shaped strings. The line is built only
 * when its level is enabled. Handlers log through requestLog(req), which carries the request id.
 */
export function requestLogger(log: Logger, routeLabel: (req: Request) => string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = Date.now();
    req.requestId = requestId(req, res);
    req[BASE] = log;
    // 'close' follows 'finish', and comes alone when the client went away first.
    res.once('close', () => {
      const failed = res.statusCode >= 500;
      // 503 is the expected answer while Redis is away (and of /readyz before the views exist): a warning.
      const level = res.statusCode === 503 ? 'warn' : failed ? 'error' : 'info';
      if (!log.isLevelEnabled(level)) return;
      const path = (req.originalUrl ?? req.url ?? '').split('?')[0].slice(0, 200).replace(KEY_LIKE, 'mdq_[redacted]');
      const line = {
        requestId: req.requestId,
        method: req.method,
        endpoint: routeLabel(req),
        path,
        status: res.statusCode,
        ms: Date.now() - started,
        ...(req.apiKey ? { workspace: req.apiKey.workspace, user: req.apiKey.user, keyId: req.apiKey.id } : {}),
        // The client closed the connection before the answer was written.
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      // The error itself (with its stack) is logged once by the error handler; not repeated here.
      log[level](line, failed ? 'request failed' : 'request');
    });
    next();
  };
}
