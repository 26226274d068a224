import type { Request, Response, Router, NextFunction } from 'express';
import type Redis from 'ioredis';
import type { Logger } from '../../services/log';
import type { ViewPointers } from '../views/pointer';
import { Problem } from './problem';
import { JsonSchema, compileSchema } from './validate';

/** What an endpoint module gets to answer a request: the views, and who is asking. */
export interface EndpointContext {
  redis: Redis;
  keyPrefix: string;
  views: ViewPointers;
  log: Logger;
  requestId: string;
}

/**
 * An endpoint module declares its path, its request schema (also used for OpenAPI) and a handler
 * that reads its view. Body validation, problem responses and the method check are done here,
 * once, for every endpoint.
 */
export interface EndpointDef {
  path: string;
  summary: string;
  kind: 'table' | 'aggregation';
  requestSchema: JsonSchema;
  responseSchema?: JsonSchema;
  handle(body: Record<string, unknown>, ctx: EndpointContext): Promise<unknown>;
}

export function mountEndpoint(router: Router, def: EndpointDef, makeContext: (req: Request) => EndpointContext): void {
  const validate = compileSchema(def.requestSchema);
  router.post(def.path, async (req: Request, res: Response, next: NextFunction) => {
    try {
      // No body at all is an empty request (valid where every field is optional).
      const body = req.body === undefined ? {} : req.body;
      validate(body);
      const result = await def.handle(body as Record<string, unknown>, makeContext(req));
      res.status(200).json(result);
    } catch (err) {
      next(err);
    }
  });
  router.all(def.path, (_req, res) => {
    res.setHeader('Allow', 'POST');
    throw new Problem(405, 'MethodNotAllowed', 'validation', 'Method not allowed', `${def.path} accepts POST only`);
  });
}
