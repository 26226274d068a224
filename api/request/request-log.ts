import type { IncomingMessage, ServerResponse } from 'http';
import type { Request } from 'express';
import pinoHttp from 'pino-http';
import type { Logger } from '../../services/log';
import { requestId } from './request-id';

/** Anything shaped like an API key, in case a caller pastes one into a URL. */
const KEY_LIKE = /mdq_[A-Za-z0-9]{8,}/g;

/**
 * One structured log line per request (pino-http): request id, method, endpoint (a route label,
 * see route-label.ts), path, status, latency in ms, and who asked (workspace, user, key id).
 * Never the Authorization header, a key, or the request body: those fields are simply not in the
 * line (no headers are serialised), and the path is scrubbed of key-shaped strings.
 * Handlers log through req.log, which carries the request id.
 */
export function requestLogger(log: Logger, routeLabel: (req: Request) => string) {
  const line = (raw: IncomingMessage, res: ServerResponse, ms: number) => {
    const req = raw as Request;
    const path = (req.originalUrl ?? req.url ?? '').split('?')[0].slice(0, 200).replace(KEY_LIKE, 'mdq_[redacted]');
    return {
      method: req.method,
      endpoint: routeLabel(req),
      path,
      status: res.statusCode,
      ms,
      ...(req.apiKey ? { workspace: req.apiKey.workspace, user: req.apiKey.user, keyId: req.apiKey.id } : {}),
    };
  };
  return pinoHttp({
    logger: log,
    genReqId: (req, res) => {
      const id = requestId(req, res);
      (req as Request).requestId = id;
      return id;
    },
    customAttributeKeys: { reqId: 'requestId' },
    // The request id is the only binding of req.log / res.log: no serialised request or response.
    quietReqLogger: true,
    quietResLogger: true,
    // 503 is the expected answer while Redis is away (and of /readyz before the views exist): a warning.
    customLogLevel: (_req, res, err) => (res.statusCode === 503 ? 'warn' : err || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request failed',
    customSuccessObject: (req, res, val: { responseTime: number }) => line(req, res, val.responseTime),
    // The error itself (with its stack) is logged once by the error handler; not repeated here.
    customErrorObject: (req, res, _err, val: { responseTime: number }) => line(req, res, val.responseTime),
  });
}
