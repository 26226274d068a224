import crypto from 'crypto';
import type { IncomingMessage, ServerResponse } from 'http';

/** What a client may send as X-Request-Id; anything else is replaced, so ids are safe to log and echo. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The request id: the caller's X-Request-Id when it is sane (so a client or proxy can correlate),
 * a fresh UUID otherwise; always echoed in X-Request-Id and given as the problem `requestId`.
 */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}
