import type { Request, Response, Router, NextFunction } from 'express';
import type { RedisClient as Redis } from '../../services/redis/client';
import type { Logger } from '../../services/log';
import type { ViewPointers } from '../views/pointer';
import { methodGuardFor } from './methods';
import type { ProblemCode } from './problem-types';
import { JsonSchema, compileSchema } from './validate';
import { withFilterSpellings } from './filter-schema';
import { withoutFloatNoise } from './float-noise';
import { ResponseCache, responseKey } from '../views/response-cache';
import type { TableStreamSource } from '../tables/table-endpoint';

/** What an endpoint module gets to answer a request: the views, and who is asking. */
export interface EndpointContext {
  redis: Redis;
  keyPrefix: string;
  views: ViewPointers;
  log: Logger;
  requestId: string;
}

/** A documented request, and (optionally) the response it gives; both go into the OpenAPI document. */
export interface EndpointExample {
  summary: string;
  request: Record<string, unknown>;
  response?: unknown;
}

/**
 * An endpoint module declares its path, its request and response schemas (the request schema is
 * what ajv validates with; both generate the OpenAPI document), examples, the views it reads and
 * a handler that reads them. Body validation, problem responses and the method check are done
 * here, once, for every endpoint.
 */
export interface EndpointDef {
  /** Path under /v1. */
  path: string;
  summary: string;
  /** Longer Markdown text for the reference; the summary is used when absent. */
  description?: string;
  kind: 'table' | 'aggregation';
  /** Redis views (services/views) the handler reads; /readyz checks that each has been built. */
  views: readonly string[];
  requestSchema: JsonSchema;
  responseSchema: JsonSchema;
  examples: Record<string, EndpointExample>;
  /** Problems this endpoint returns beyond the ones every endpoint can (e.g. 422 data-unavailable). */
  problems?: readonly ProblemCode[];
  handle(body: Record<string, unknown>, ctx: EndpointContext): Promise<unknown>;
  /**
   * Writes the handler's result as the JSON body; JSON.stringify when absent. An endpoint whose
   * pages are large can compile one from its response schema (the order-flow tapes do): it writes
   * the schema's properties in the schema's order and leaves anything else out.
   */
  serialize?(result: unknown): string;
  /**
   * A stamp of the data the answer is computed from: two requests with the same body and stamp
   * get the same answer, so it may be served from the response cache (api/views/response-cache.ts).
   * Null (or absent): not cached.
   */
  cacheStamp?(ctx: EndpointContext): Promise<string | null>;
  /** A table endpoint whose view keeps a feed: its push stream (api/streams/). */
  stream?: TableStreamSource;
}

/** The header that says whether an answer came from the response cache: `hit` or `miss`. */
const CACHE_HEADER = 'X-Response-Cache';

export const V1 = '/v1';

/**
 * A JSON body written as bytes, encoded once. Express's send does more for a body this size (a
 * page is tens of kilobytes): it encodes it again to measure it and runs its checks for ETags and
 * freshness, which this API does not use (ETags are disabled).
 */
function sendJson(res: Response, bytes: Buffer): void {
  res.status(200);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The response-cache stamp, read while the quota is counted (prefetchStamps). */
    stamp?: Promise<string | null>;
  }
}

/**
 * Starts reading the response-cache stamp of the endpoint a request is for, as soon as the caller
 * is known: it needs neither the body nor the quota's verdict, so it travels beside the quota's
 * Redis command instead of after it, and the platform part of a request costs one round trip of
 * latency. Put it after identifyCaller and before the quota. A request the quota refuses or the
 * body check rejects has read a few hashes for nothing.
 */
export function prefetchStamps(endpoints: readonly EndpointDef[], makeContext: (req: Request) => EndpointContext, cache: ResponseCache | null) {
  const stampers = new Map(endpoints.filter((d) => d.cacheStamp).map((d) => [d.path, d.cacheStamp!.bind(d)]));
  return (req: Request, _res: Response, next: NextFunction): void => {
    const stamper = cache && req.method === 'POST' && req.apiKey ? stampers.get(req.path) : undefined;
    if (stamper) {
      req.stamp = stamper(makeContext(req));
      req.stamp.catch(() => undefined); // awaited (and reported) by the endpoint, if the request gets there
    }
    next();
  };
}

/** What an endpoint answers to a body: the JSON bytes, and whether they came from the response cache (null: not cached). */
export interface EndpointAnswer {
  bytes: Buffer;
  hit: boolean | null;
}

/**
 * Answers a body the way the endpoint's route does: validated against the request schema, the
 * handler's result serialized without float noise, through the response cache when the endpoint
 * has a stamp. The REST route and the MCP tools (api/mcp/) both call it, so a tool answers what
 * the route would. `stamp` is the one prefetchStamps started, if any.
 */
export function endpointRunner(def: EndpointDef, cache: ResponseCache | null = null) {
  const validate = compileSchema(withFilterSpellings(def.requestSchema));
  const serialize = def.serialize ?? ((result: unknown) => JSON.stringify(result));
  return async (body: unknown, ctx: EndpointContext, stamp?: Promise<string | null>): Promise<EndpointAnswer> => {
    validate(body);
    const answer = async () => Buffer.from(withoutFloatNoise(serialize(await def.handle(body as Record<string, unknown>, ctx))), 'utf8');
    // The stamp is read before the answer is computed, so a cached answer is never older than
    // the data as it stood when a request using it began.
    const stamped = cache && def.cacheStamp ? await (stamp ?? def.cacheStamp(ctx)) : null;
    const key = stamped === null ? null : responseKey(def.path, stamped, body);
    if (cache && key !== null) return cache.get(key, answer);
    return { bytes: await answer(), hit: null };
  };
}

export function mountEndpoint(router: Router, def: EndpointDef, makeContext: (req: Request) => EndpointContext, cache: ResponseCache | null = null): void {
  const run = endpointRunner(def, cache);
  // One route per path, its 405 guard inside it: a request walks one layer per endpoint, not two.
  const route = router.route(def.path);
  route.post(async (req: Request, res: Response, next: NextFunction) => {
    try {
      // No body at all is an empty request (valid where every field is optional).
      const { bytes, hit } = await run(req.body === undefined ? {} : req.body, makeContext(req), req.stamp);
      if (hit !== null) res.setHeader(CACHE_HEADER, hit ? 'hit' : 'miss');
      sendJson(res, bytes);
    } catch (err) {
      next(err);
    }
  });
  route.all(methodGuardFor(`${V1}${def.path}`, ['POST']));
}
