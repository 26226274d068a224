import express, { NextFunction, Request, Response, Router } from 'express';
import type { RedisClient as Redis } from '../../services/redis/client';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiKeyStore } from '../../services/auth/api-keys';
import type { Logger } from '../../services/log';
import { identifyCaller, requireCaller } from '../request/auth';
import { EndpointContext, EndpointDef, V1, endpointRunner } from '../request/endpoint';
import { toProblem } from '../request/errors';
import { methodGuardFor } from '../request/methods';
import { Problem } from '../request/problem';
import type { Quota } from '../request/quota';
import { requestLog } from '../request/request-log';
import type { ResponseCache } from '../views/response-cache';
import { answerToCsv } from './csv';
import { MCP_PATH, PING, PING_TOOL, Tool, deriveTools } from './tools';

export { MCP_PATH } from './tools';

/**
 * The MCP server at POST /mcp (vendor notes section 5): Streamable HTTP in its stateless form, so
 * a lone `tools/call` works without `initialize` and generic MCP clients connect with the usual
 * `initialize` / `tools/list` / `tools/call` flow. Each POST gets a fresh SDK server and
 * transport (the SDK's stateless pattern), answering JSON, never an event stream.
 *
 * Same keys as /v1 (a missing or bad key is the 401 problem; counted against the address first,
 * as on /v1), same quota: every tool call, the ping included, is one request of the caller's
 * budget, whether or not it arrives in a batch; `initialize` and `tools/list` are free. A tool
 * runs its endpoint through the route's own runner (validation, handler, response cache), and
 * every failure is text inside a 200 with `isError` set, as the vendor's are: `input validation
 * failed: <argument>: <message>` or `mdq: <path> call failed with status <n>: <problem JSON>`.
 */

const SERVER_NAME = 'mdq';
/** The REST API's BODY_LIMIT (64 KiB), for JSON-RPC bodies. */
const MAX_BODY_BYTES = 64 * 1024;

export interface McpDeps {
  endpoints: readonly EndpointDef[];
  keyStore: ApiKeyStore;
  quota: Quota;
  makeContext: (req: Request) => EndpointContext;
  cache: ResponseCache | null;
  /** The Redis connections a tool call may use: any of them away is a 503, not a bug. */
  stores: readonly Redis[];
  log: Logger;
  version: string;
  onProblem?: (p: Problem) => void;
}

const text = (t: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

/** Whether an Accept header admits JSON: plain HTTP clients that leave out text/event-stream are served too (the answer is JSON either way). */
function acceptsJson(accept: string | undefined): boolean {
  return !accept || /(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i.test(accept);
}

export function mcpRouter(deps: McpDeps): Router {
  const tools = deriveTools(deps.endpoints);
  const runners = new Map(deps.endpoints.map((d) => [d.path, endpointRunner(d, deps.cache)]));
  const listed = [PING, ...tools.values()].map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));

  const failure = (tool: Tool | undefined, err: unknown, req: Request): CallToolResult => {
    const p = toProblem(err, deps.stores);
    if (p.code === 'InternalError' && !(err instanceof Problem)) {
      const e = err as Error;
      requestLog(req, deps.log).error({ err: { type: e?.name, message: e?.message, stack: e?.stack } }, 'unhandled error in an MCP tool call');
    }
    deps.onProblem?.(p);
    if (p.code === 'ValidationFailure' && tool) {
      const errors = p.errors?.length ? p.errors : [{ field: 'body', message: p.message }];
      return text(`input validation failed: ${errors.map((e) => `${tool.argumentOf(e.field)}: ${e.message}`).join('; ')}`, true);
    }
    const instance = tool ? `${V1}${tool.def.path}` : MCP_PATH;
    return text(`${SERVER_NAME}: ${instance} call failed with status ${p.status}: ${JSON.stringify(p.body(instance, req.requestId))}`, true);
  };

  const callTool = async (name: string, args: Record<string, unknown>, req: Request, res: Response): Promise<CallToolResult> => {
    const tool = tools.get(name);
    if (!tool && name !== PING_TOOL) return text(`unknown tool ${JSON.stringify(name)}: tools/list names the ${listed.length} tools`, true);
    try {
      const refused = await deps.quota.take(req, res);
      if (refused) return failure(tool, refused, req);
      if (!tool) {
        const quota = ['Limit', 'Remaining', 'Reset'].map((h) => `rateLimit.${h.toLowerCase()}=${res.getHeader(`X-RateLimit-${h}`) ?? ''}`);
        return text(['status=ok', `server=${SERVER_NAME} ${deps.version}`, `workspace=${req.apiKey?.workspace ?? ''}`, ...quota, ''].join('\n'));
      }
      const { bytes } = await runners.get(tool.def.path)!(tool.toBody(args), deps.makeContext(req));
      return text(answerToCsv(JSON.parse(bytes.toString('utf8')), tool.def.responseSchema));
    } catch (err) {
      return failure(tool, err, req);
    }
  };

  const handle = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const server = new Server({ name: SERVER_NAME, title: 'Market Data Query Service', version: deps.version }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
      server.setRequestHandler(CallToolRequestSchema, (request) => callTool(request.params.name, request.params.arguments ?? {}, req, res));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      if (acceptsJson(req.headers.accept)) req.headers.accept = 'application/json, text/event-stream';
      await transport.handleRequest(req, res);
    } catch (err) {
      next(err);
    }
  };

  const router = express.Router();
  // Without a valid key the request counts against the client address before the 401, as on /v1.
  const countAnonymous = (req: Request, res: Response, next: NextFunction) => (req.apiKey ? next() : deps.quota(req, res, next));
  router
    .route(MCP_PATH)
    .post(identifyCaller(deps.keyStore), countAnonymous, requireCaller, handle)
    .all(methodGuardFor(MCP_PATH, ['POST']));
  return router;
}
