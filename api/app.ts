import express, { NextFunction, Request, Response } from 'express';
import type { Server } from 'http';
import type { RedisClient as Redis } from '../services/redis/client';
import { Registry } from 'prom-client';
import type { ApiKeyStore } from '../services/auth/api-keys';
import type { Logger } from '../services/log';
import { version } from '../package.json';
import { OPENAPI_PATH, buildOpenApi } from './docs/openapi';
import { mountReference } from './docs/reference';
import { ENDPOINTS } from './endpoints';
import { MCP_PATH, mcpRouter } from './mcp/server';
import { HttpMetrics } from './ops/http-metrics';
import { ReadinessCheck } from './ops/readiness';
import { OPS_PATHS, mountOps } from './ops/routes';
import { identifyCaller, requireCaller } from './request/auth';
import { EndpointContext, EndpointDef, V1, mountEndpoint, prefetchStamps } from './request/endpoint';
import { BODY_LIMIT, problemHandler } from './request/errors';
import { allowOnly } from './request/methods';
import { Problem, notFound } from './request/problem';
import { DEFAULT_QUOTA, QuotaSettings, createQuota } from './request/quota';
import { requestLog, requestLogger } from './request/request-log';
import { routeLabeler } from './request/route-label';
import { mountConsole } from './console/serve';
import { StreamSettings, mountStreams } from './streams/routes';
import type { ApiSettings } from './settings';
import { VIEW_POINTER_TTL_MS, ViewPointers } from './views/pointer';
import { DEFAULT_RESPONSE_CACHE_MB, ResponseCache } from './views/response-cache';

export { BODY_LIMIT } from './request/errors';

/**
 * Settings of the HTTP server an app listens on. Idle keep-alive connections stay open longer
 * than a client or load balancer keeps them (Node's default is 5 s): a server that closes first
 * races a client reusing the socket, and a POST caught in that race fails on the client, which
 * may not retry it.
 */
export function configureServer(server: Server): Server {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

export interface AppDeps {
  /** API keys and quota counters (REDIS_URL). */
  redis: Redis;
  /** The views the endpoints read (VIEWS_REDIS_URL); `redis` when absent. */
  viewsRedis?: Redis;
  keyPrefix: string;
  keyStore: ApiKeyStore;
  log: Logger;
  /** The quota; the spec's 240 requests per minute per user when absent. */
  quota?: QuotaSettings;
  trustProxy?: ApiSettings['trustProxy'];
  /** Where the request metrics go; each app gets a registry of its own when absent. */
  metricsRegistry?: Registry;
  /** What /metrics serves; the registry's own text when absent (a cluster worker serves every worker's). */
  metricsText?: () => Promise<string>;
  /** Bytes of serialized answers kept per process (api/views/response-cache.ts); 0 turns the cache off. Default 64 MiB. */
  responseCacheBytes?: number;
  /** How long a served version, a view's list and a cached answer are reused (default VIEW_POINTER_TTL_MS). */
  viewCacheTtlMs?: number;
  /** The endpoints to mount under /v1; every endpoint of the service when absent. */
  endpoints?: readonly EndpointDef[];
  /** Push streams (api/streams/): per-user limit, timings; the defaults when absent. */
  streams?: Partial<StreamSettings>;
}

/** 415 for a body that is not JSON (no body at all is fine: it is the empty request). */
function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if (hasBody && !req.is(['application/json', 'application/*+json'])) {
    const given = (req.get('content-type') ?? '(none)').slice(0, 100);
    throw new Problem('UnsupportedMediaType', `Content-Type ${given} is not accepted; send the body as application/json`);
  }
  next();
}

/**
 * The Express app. Order matters:
 *  request id + log line + metrics → operations endpoints (no key, no quota) → reference (per-address
 *  quota) → /v1: identify the caller (from memory for a known key) → start reading the response
 *  cache's stamp → quota (per user, or per address without a valid key; its Redis command and the
 *  stamp's travel together) →
 *  the public OpenAPI document → require a key → JSON body → endpoints → the MCP server (api/mcp/) → 404 → problem responses.
 */
export function createApp(deps: AppDeps): express.Express {
  const { redis, keyPrefix, keyStore, log } = deps;
  const viewsRedis = deps.viewsRedis ?? redis;
  const stores = viewsRedis === redis ? [redis] : [redis, viewsRedis];
  const endpoints = deps.endpoints ?? ENDPOINTS;
  const quotaSettings = deps.quota ?? DEFAULT_QUOTA;
  const ttlMs = deps.viewCacheTtlMs ?? VIEW_POINTER_TTL_MS;
  const views = new ViewPointers(viewsRedis, keyPrefix, ttlMs);
  const cacheBytes = deps.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_MB * 2 ** 20;
  // Entries live no longer than the pointers' own cache (see ResponseCache).
  const responses = cacheBytes > 0 ? new ResponseCache(cacheBytes, ttlMs) : null;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy ?? false);

  const label = routeLabeler([...OPS_PATHS, OPENAPI_PATH, MCP_PATH, '/docs', '/docs/init.js', '/docs/problems', ...endpoints.map((e) => `${V1}${e.path}`)]);
  const metrics = new HttpMetrics(deps.metricsRegistry ?? new Registry(), label);
  const quota = createQuota({ redis, keyPrefix, settings: quotaSettings });
  const openapi = JSON.stringify(buildOpenApi({ endpoints, quota: quotaSettings, version }));

  app.use(requestLogger(log, label));
  app.use(metrics.middleware());
  mountOps(app, new ReadinessCheck(stores, viewsRedis, keyPrefix, [...new Set(endpoints.flatMap((e) => e.views))]), metrics, deps.metricsText);
  mountReference(app, quota);
  mountConsole(app);

  const makeContext = (req: Request): EndpointContext => ({
    redis: viewsRedis,
    keyPrefix,
    views,
    // A getter: the request's logger is made only if the endpoint logs.
    get log() {
      return requestLog(req, log);
    },
    requestId: req.requestId ?? '',
  });
  const v1 = express.Router();
  v1.use(identifyCaller(keyStore));
  v1.use(prefetchStamps(endpoints, makeContext, responses));
  v1.use(quota);
  v1.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(openapi);
  });
  allowOnly(v1, '/openapi.json', ['GET', 'HEAD'], OPENAPI_PATH);
  v1.use(requireCaller);
  v1.use(requireJsonBody);
  v1.use(express.json({ limit: BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] }));
  for (const def of endpoints) mountEndpoint(v1, def, makeContext, responses);
  mountStreams(v1, endpoints, { redis, viewsRedis, views, keyPrefix, log, settings: deps.streams, makeContext });
  app.use(V1, v1);
  app.use(mcpRouter({ endpoints, keyStore, quota, makeContext, cache: responses, stores, log, version, onProblem: (p) => metrics.problem(p) }));

  // Unknown paths outside /v1 count against the client address (those in /v1 were counted above).
  app.use(quota);
  app.use((req: Request) => {
    throw notFound(`No endpoint at ${req.method} ${req.path.slice(0, 200)}`);
  });
  app.use(problemHandler({ stores, log, onProblem: (p) => metrics.problem(p) }));
  return app;
}
