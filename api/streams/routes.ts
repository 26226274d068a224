import { randomUUID } from 'crypto';
import type { NextFunction, Request, Response, Router } from 'express';
import type { RedisClient as Redis } from '../../services/redis/client';
import { positiveIntVar } from '../../services/config';
import type { Logger } from '../../services/log';
import type { EndpointContext, EndpointDef } from '../request/endpoint';
import { withFilterSpellings } from '../request/filter-schema';
import { methodGuardFor } from '../request/methods';
import { Problem, invalid } from '../request/problem';
import { compileSchema, type JsonSchema } from '../request/validate';
import type { ViewPointers } from '../views/pointer';
import type { TableStreamSource } from '../tables/table-endpoint';
import { FeedTailer } from './feed-tailer';
import { decodePosition, startPosition } from './position';
import { RowStream, type RowStreamSettings } from './row-stream';
import { StreamLimit } from './stream-limit';

/** Push streams live under /v1/stream + the path of their table endpoint. */
export const STREAM_PREFIX = '/stream';

export interface StreamSettings extends RowStreamSettings {
  /** Streams open at once per user, across every API process (MDQ_STREAMS_PER_USER). */
  perUser: number;
  /** How often each view's feed is read while streams follow it. */
  pollMs: number;
  /** Feed entries per partition kept in memory per view for live streams. */
  ringSize: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  perUser: 5,
  pollMs: 50,
  ringSize: 2_000,
  heartbeatMs: 15_000,
  highWaterBytes: 64 * 1024,
  stallMs: 30_000,
  catchUpCount: 200,
};

/** The settings from the environment: MDQ_STREAMS_PER_USER, MDQ_STREAM_STALL_MS. */
export function streamSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StreamSettings {
  return {
    ...DEFAULT_STREAM_SETTINGS,
    perUser: positiveIntVar('MDQ_STREAMS_PER_USER', DEFAULT_STREAM_SETTINGS.perUser, env, 10_000),
    stallMs: positiveIntVar('MDQ_STREAM_STALL_MS', DEFAULT_STREAM_SETTINGS.stallMs, env),
  };
}

export interface StreamDeps {
  /** Keys and quota Redis: the per-user stream count. */
  redis: Redis;
  /** The views' Redis: the feeds. */
  viewsRedis: Redis;
  views: ViewPointers;
  keyPrefix: string;
  log: Logger;
  settings?: Partial<StreamSettings>;
  makeContext(req: Request): EndpointContext;
}

const START = {
  type: 'string',
  enum: ['latest', 'earliest'],
  description: 'Where a stream without Last-Event-ID starts: the feed end (default) or the oldest entry kept.',
};
const LAST_EVENT_ID = { type: 'string', description: 'Resume after this event id (as the Last-Event-ID header, for clients that cannot set it).' };

/** The request a stream takes: its endpoint's filters, projection and row extras, and where to start. */
export function streamRequestSchema(source: TableStreamSource): JsonSchema {
  return {
    ...source.requestSchema,
    properties: { ...(source.requestSchema.properties as Record<string, JsonSchema>), from: START, lastEventId: LAST_EVENT_ID },
  };
}

/**
 * Mounts the push stream of every streamable table endpoint: GET (query parameters, JSON values
 * for filter and filterExpression) and POST (a JSON body), both `text/event-stream`. Put it after
 * the quota and the key check: a stream counts as one request when it connects.
 */
export function mountStreams(router: Router, endpoints: readonly EndpointDef[], deps: StreamDeps): void {
  const settings: StreamSettings = { ...DEFAULT_STREAM_SETTINGS, ...deps.settings };
  const limit = new StreamLimit(deps.redis, deps.keyPrefix, settings.perUser);
  for (const def of endpoints) {
    if (!def.stream) continue;
    const source = def.stream;
    const tailer = new FeedTailer({
      redis: deps.viewsRedis,
      keyPrefix: deps.keyPrefix,
      view: source.view,
      views: deps.views,
      log: deps.log,
      pollMs: settings.pollMs,
      ringSize: settings.ringSize,
    });
    const validate = compileSchema(withFilterSpellings(streamRequestSchema(source)));
    const handler = async (req: Request, res: Response, next: NextFunction) => {
      try {
        const body = req.method === 'GET' ? queryBody(req) : ((req.body ?? {}) as Record<string, unknown>);
        validate(body);
        const compiled = source.compile(body);
        const resumeFrom = req.get('last-event-id') ?? (body.lastEventId as string | undefined);
        const position = resumeFrom === undefined ? startPosition() : decodePosition(resumeFrom);
        if (!position) throw invalid('Last-Event-ID', 'is not an event id of this stream');
        const from = resumeFrom !== undefined ? 'resume' : ((body.from as string | undefined) ?? 'latest');
        const user = `${req.apiKey!.workspace}/${req.apiKey!.user}`;
        const streamId = randomUUID();
        if (!(await limit.acquire(user, streamId)))
          throw new Problem('TooManyStreams', `${settings.perUser} streams are open for this user; close one first`, { headers: { 'Retry-After': '5' } });
        res.status(200);
        res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
        res.setHeader('Cache-Control', 'no-cache, no-transform');
        res.setHeader('X-Accel-Buffering', 'no');
        res.flushHeaders();
        req.socket.setNoDelay(true);
        const renew = setInterval(() => void limit.renew(user, streamId).catch(() => undefined), limit.renewEveryMs);
        const stream = new RowStream(res, source, compiled, tailer, deps.makeContext(req), position, settings, () => {
          clearInterval(renew);
          void limit.release(user, streamId).catch(() => undefined);
        });
        await stream.start(from);
      } catch (err) {
        if (res.headersSent) res.end();
        else next(err);
      }
    };
    const path = `${STREAM_PREFIX}${def.path}`;
    const route = router.route(path);
    route.get(handler);
    route.post(handler);
    route.all(methodGuardFor(`/v1${path}`, ['GET', 'POST']));
  }
}

/** A GET stream's query as a request body: each value JSON when it parses as JSON, else the text itself. */
function queryBody(req: Request): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req.query)) {
    if (typeof v !== 'string') throw invalid(k, 'must be given once');
    try {
      out[k] = JSON.parse(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}
