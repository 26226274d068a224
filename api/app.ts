import crypto from 'crypto';
import express, { NextFunction, Request, Response } from 'express';
import type Redis from 'ioredis';
import type { ApiKeyStore } from '../services/auth/api-keys';
import type { Logger } from '../services/log';
import { ENDPOINTS } from './endpoints';
import { requireApiKey } from './request/auth';
import { EndpointContext, mountEndpoint } from './request/endpoint';
import { Problem, internal, invalid, notFound, unavailable } from './request/problem';
import { ViewPointers } from './views/pointer';

export interface AppDeps {
  redis: Redis;
  keyPrefix: string;
  keyStore: ApiKeyStore;
  log: Logger;
}

/** Largest request body accepted; larger bodies get a 413 problem. */
export const BODY_LIMIT = '64kb';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

function isRedisDown(err: unknown, redis: Redis): boolean {
  if (redis.status !== 'ready') return true;
  const msg = (err as Error)?.message ?? '';
  return /Connection is closed|ECONNREFUSED|Stream isn't writeable|MaxRetriesPerRequest/i.test(msg);
}

export function createApp(deps: AppDeps): express.Express {
  const { redis, keyPrefix, keyStore, log } = deps;
  const views = new ViewPointers(redis, keyPrefix);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // Request id: accepted from X-Request-Id when sane, else generated; always echoed back.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.get('x-request-id');
    req.requestId = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info({ requestId: req.requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const v1 = express.Router();
  v1.use(requireApiKey(keyStore));
  v1.use((req: Request, _res: Response, next: NextFunction) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (hasBody && !req.is(['application/json', 'application/*+json'])) {
      throw new Problem(415, 'UnsupportedMediaType', 'validation', 'Unsupported media type', 'Send the request body as JSON with Content-Type: application/json');
    }
    next();
  });
  v1.use(express.json({ limit: BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] }));
  const makeContext = (req: Request): EndpointContext => ({ redis, keyPrefix, views, log, requestId: req.requestId ?? '' });
  for (const def of ENDPOINTS) mountEndpoint(v1, def, makeContext);
  app.use('/v1', v1);

  app.use((req: Request) => {
    throw notFound(`No endpoint at ${req.method} ${req.path}`);
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let problem: Problem;
    const e = err as { type?: string; status?: number; message?: string };
    if (err instanceof Problem) problem = err;
    else if (e?.type === 'entity.parse.failed') problem = invalid('body', `malformed JSON (${e.message})`);
    else if (e?.type === 'entity.too.large') problem = new Problem(413, 'PayloadTooLarge', 'validation', 'Payload too large', `The request body exceeds the ${BODY_LIMIT} limit`);
    else if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') problem = new Problem(415, 'UnsupportedMediaType', 'validation', 'Unsupported media type', e.message ?? 'Unsupported body encoding');
    else if (isRedisDown(err, redis)) problem = unavailable('The data store is briefly unreachable; retry shortly');
    else {
      log.error({ requestId: req.requestId, err }, 'unhandled error');
      problem = internal();
    }
    for (const [k, v] of Object.entries(problem.headers)) res.setHeader(k, v);
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem.body(req.requestId)));
  });
  return app;
}
