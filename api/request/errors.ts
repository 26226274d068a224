import { requestLog } from './request-log';
import type { NextFunction, Request, Response } from 'express';
import type { RedisClient as Redis } from '../../services/redis/client';
import type { Logger } from '../../services/log';
import { Problem, internal, invalid, unavailable } from './problem';

/** Largest request body accepted; larger bodies get a 413 problem. Documented in the reference. */
export const BODY_LIMIT = '64kb';

function isRedisDown(err: unknown, stores: readonly Redis[]): boolean {
  if (stores.some((r) => r.status !== 'ready')) return true;
  const msg = (err as Error)?.message ?? '';
  // The second line: a Redis Cluster between a master's failure and its replica's promotion.
  return (
    /Connection is closed|ECONNREFUSED|Stream isn't writeable|MaxRetriesPerRequest/i.test(msg) ||
    /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN)|Cluster isn't ready|Failed to refresh slots cache|Too many Cluster redirections/i.test(msg)
  );
}

/**
 * Maps anything thrown while serving a request to the problem the caller gets. `stores` are the
 * Redis connections the request may have used (keys and quota, views): any of them being away is
 * a 503, not the service's bug.
 */
export function toProblem(err: unknown, stores: readonly Redis[]): Problem {
  if (err instanceof Problem) return err;
  // body-parser's errors carry a `type`; none of them is the service's fault.
  const e = err as { type?: string; status?: number; message?: string; charset?: string };
  switch (e?.type) {
    case 'entity.parse.failed':
      return invalid('body', `malformed JSON (${e.message})`);
    case 'entity.too.large':
      return new Problem('PayloadTooLarge', `The request body exceeds the ${BODY_LIMIT.replace('kb', ' KiB')} limit`);
    case 'encoding.unsupported':
      return new Problem('UnsupportedMediaType', `Content-Encoding is not supported (${e.message}); send the body uncompressed, or gzip, deflate or br`);
    case 'charset.unsupported':
      return new Problem('UnsupportedMediaType', `charset ${String(e.charset ?? '').slice(0, 40)} is not supported; send UTF-8 JSON`);
    case 'request.aborted':
    case 'request.size.invalid':
      return invalid('body', e.message ?? 'the request body was not received completely');
  }
  // Any other client error from the body reader (http-errors with expose), e.g. a body labelled
  // gzip that does not inflate: the caller's mistake, named as such.
  const status = e?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: boolean }).expose) {
    if (status === 413) return new Problem('PayloadTooLarge', `The request body exceeds the ${BODY_LIMIT.replace('kb', ' KiB')} limit`);
    if (status === 415) return new Problem('UnsupportedMediaType', String(e.message ?? 'unsupported body').slice(0, 200));
    return invalid('body', `could not be read as sent (${String(e.message ?? 'bad request').slice(0, 200)}); check Content-Encoding and Content-Length`);
  }
  if (isRedisDown(err, stores)) return unavailable('The data store is briefly unreachable; retry shortly');
  return internal();
}

/** The path of the request as the client sent it, without the query; bounded so a long path cannot bloat the body. */
export function requestPath(req: Request): string {
  return (req.originalUrl ?? req.url).split('?')[0].slice(0, 256);
}

/**
 * The last error handler: every failure becomes an application/problem+json response whose
 * `instance` is the request path (the vendor's choice) and whose `requestId` is the request id.
 * Unexpected failures are logged with their stack (never the request body) and answered with a
 * bare 500: no message, no stack, nothing internal.
 */
export function problemHandler(o: { stores: readonly Redis[]; log: Logger; onProblem: (p: Problem, req: Request) => void }) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      // Too late for a problem body: let Express close the connection.
      next(err);
      return;
    }
    const problem = toProblem(err, o.stores);
    if (problem.code === 'InternalError' && !(err instanceof Problem)) {
      const e = err as Error;
      requestLog(req, o.log).error({ err: { type: e?.name, message: e?.message, stack: e?.stack } }, 'unhandled error');
    }
    o.onProblem(problem, req);
    for (const [k, v] of Object.entries(problem.headers)) res.setHeader(k, v);
    res
      .status(problem.status)
      .type('application/problem+json')
      .send(JSON.stringify(problem.body(requestPath(req), req.requestId)));
  };
}
