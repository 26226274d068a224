import type { EndpointDef } from '../request/endpoint';
import { DOC_ASSETS } from './assets';
import { V1 } from '../request/endpoint';
import { BODY_LIMIT } from '../request/errors';
import { PROBLEM_CATEGORIES, PROBLEM_TYPES, ProblemCode, problemTitle, problemTypeUri } from '../request/problem-types';
import type { QuotaSettings } from '../request/quota';
import type { JsonSchema } from '../request/validate';
import { MCP_PATH } from '../mcp/tools';
import { withFilterSpellings } from '../request/filter-schema';
import { streamRequestSchema } from '../streams/routes';

/**
 * The OpenAPI 3.1 document, generated at start-up from the endpoint modules: each endpoint's
 * request schema is the very object ajv compiles (JSON Schema 2020-12, OpenAPI 3.1's dialect), so
 * the reference cannot disagree with the validation. Response schemas and examples come from the
 * same modules; problem responses from the problem catalog. Served at /v1/openapi.json.
 */

/** Problems every data endpoint can return, whatever it does. */
export const COMMON_ENDPOINT_PROBLEMS: readonly ProblemCode[] = [
  'ValidationFailure',
  'Unauthorized',
  'MethodNotAllowed',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'QuotaExceeded',
  'InternalError',
  'ServiceUnavailable',
];

export const OPENAPI_PATH = `${V1}/openapi.json`;

const pascal = (s: string) => s.replace(/(^|[-/_])([a-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

/** 'news/tool/news-articles' -> NewsArticles; 'options/tool/order-flow/consolidated' -> OrderFlowConsolidated. */
export function operationName(def: EndpointDef): string {
  const tail = def.path.includes('/tool/') ? def.path.split('/tool/')[1] : def.path.replace(/^\//, '');
  return pascal(tail);
}

const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function problemExample(code: ProblemCode): Record<string, unknown> {
  const t = PROBLEM_TYPES[code];
  const detail: Partial<Record<ProblemCode, string>> = {
    ValidationFailure: 'size: must be an integer from 1 to 100, got 0',
    Unauthorized: 'The API key is malformed, unknown or revoked',
    NotFound: 'No endpoint at POST /v1/news/tool/nope',
    MethodNotAllowed: '/v1/news/tool/news-articles accepts POST only',
    PayloadTooLarge: `The request body exceeds the ${BODY_LIMIT.replace('kb', ' KiB')} limit`,
    UnsupportedMediaType: 'Content-Type text/plain is not accepted; send the body as application/json',
    QuotaExceeded: 'Rate limit of 240 requests per 60 seconds exceeded. Retry in 17 seconds.',
    InternalError: 'The request failed unexpectedly; it has been logged under this request id. Retry later.',
    ServiceUnavailable: 'The data store is briefly unreachable; retry shortly',
    NotReady: 'Not ready: view news not built yet (no served version; is the projector running?)',
  };
  return {
    type: problemTypeUri(code),
    title: problemTitle(code),
    status: t.status,
    detail: detail[code] ?? t.description.split('. ')[0],
    category: t.category,
    code,
    instance: code === 'NotFound' ? '/v1/news/tool/nope' : '/v1/news/tool/news-articles',
    requestId: '3f1c2a9e-5b7d-4c1e-9a2f-0d6b8e4c7a15',
    ...(code === 'ValidationFailure' ? { errors: [{ field: 'size', message: 'must be an integer from 1 to 100, got 0' }] } : {}),
    ...(code === 'QuotaExceeded' ? { limit: 240, windowSeconds: 60, retryAfterSeconds: 17 } : {}),
  };
}

/** The quota headers of every counted response (api/request/rate-limit-headers.ts). */
const QUOTA_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
  RateLimit: ref('headers', 'RateLimit'),
  'RateLimit-Policy': ref('headers', 'RateLimit-Policy'),
};

function problemResponse(code: ProblemCode): Record<string, unknown> {
  const t = PROBLEM_TYPES[code];
  const headers: Record<string, unknown> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  if (code === 'Unauthorized') headers['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
  if (code === 'MethodNotAllowed') headers.Allow = ref('headers', 'Allow');
  if (code === 'QuotaExceeded' || code === 'ServiceUnavailable' || code === 'NotReady') headers['Retry-After'] = ref('headers', 'Retry-After');
  // Counted responses carry the quota headers whatever their status; a store outage and the probe are not counted.
  if (code !== 'ServiceUnavailable' && code !== 'NotReady') Object.assign(headers, QUOTA_HEADERS);
  return {
    description: `${problemTitle(code)} (${problemTypeUri(code)}, code ${code}). ${t.description}`,
    headers,
    content: { 'application/problem+json': { schema: ref('schemas', 'Problem'), example: problemExample(code) } },
  };
}

/** Responses by status for a list of problem codes; several codes at one status share one response with an example each. */
function problemResponses(codes: readonly ProblemCode[]): Record<string, unknown> {
  const byStatus = new Map<string, ProblemCode[]>();
  for (const code of new Set(codes)) {
    const status = String(PROBLEM_TYPES[code].status);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, group] of byStatus) {
    if (group.length === 1) {
      out[status] = ref('responses', group[0]);
      continue;
    }
    const parts = group.map((c) => problemResponse(c) as { description: string; headers: Record<string, unknown> });
    out[status] = {
      description: parts.map((p) => p.description).join('\n\n'),
      headers: Object.assign({}, ...parts.map((p) => p.headers)),
      content: {
        'application/problem+json': {
          schema: ref('schemas', 'Problem'),
          examples: Object.fromEntries(group.map((c) => [c, { summary: `${problemTitle(c)}: ${c}`, value: problemExample(c) }])),
        },
      },
    };
  }
  return out;
}

function describeApi(quota: QuotaSettings): string {
  const rows = (Object.keys(PROBLEM_TYPES) as ProblemCode[])
    .map((c) => `| [\`${problemTypeUri(c)}\`](${problemTypeUri(c)}) | ${PROBLEM_TYPES[c].status} | ${problemTitle(c)} | ${c} |`)
    .join('\n');
  return `Read-only queries over US options, equities and news data. Every data endpoint is a \`POST\` under \`/v1/\` with a JSON body (no query strings, no path parameters).

**Authentication.** Send \`Authorization: Bearer <API key>\`. A key is 35 characters: \`mdq_\` and 31 base62 characters, scoped to a workspace and shown once at creation. Click **Authorize**, paste your key, then **Try it out** on any endpoint.

**Quota.** ${quota.perUser} requests in any sliding ${quota.windowMs / 1000} s per user${quota.burstPerUser > 0 ? `, and at most ${quota.burstPerUser} in any ${quota.burstWindowMs / 1000} s` : ''}, across every endpoint and every API process; requests without a valid key are limited to ${quota.perAddress} per ${quota.windowMs / 1000} s per client address. Every counted response, allowed or refused, carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` (requests left after this one) and \`X-RateLimit-Reset\` (seconds until the window is completely refilled), and beside them the IETF \`RateLimit\` and \`RateLimit-Policy\` fields (draft-ietf-httpapi-ratelimit-headers-08). Past a limit: \`429\` with \`Retry-After\` and the members \`limit\`, \`windowSeconds\`, \`retryAfterSeconds\` (plus \`burstLimit\`, \`burstWindowSeconds\` when the burst rule refused it).

**Errors.** Every error is \`application/problem+json\` (RFC 9457) with \`type\` (\`/docs/problems/<category>\`: branch on it), \`title\` (fixed per category), \`status\`, \`detail\` (naming the field or value at fault), \`instance\` (the request path), and the members \`category\` (the last segment of \`type\`), \`code\` (the error's name within the category) and \`requestId\` (also the \`X-Request-Id\` header; send your own \`X-Request-Id\` to correlate). Request bodies are limited to ${BODY_LIMIT.replace('kb', ' KiB')}.

| type | status | title | code |
|---|---|---|---|
${rows}`;
}

const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details: `type` is the category (branch on it), `code` the error within it.',
  required: ['type', 'title', 'status', 'detail', 'instance', 'category', 'code'],
  properties: {
    type: {
      type: 'string',
      format: 'uri-reference',
      enum: Object.keys(PROBLEM_CATEGORIES).map((c) => `/docs/problems/${c}`),
      description: 'The category, as a reference to its documentation relative to the service.',
    },
    title: { type: 'string', enum: Object.values(PROBLEM_CATEGORIES).map((c) => c.title), description: 'Fixed per category.' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'What went wrong, naming the field or value at fault.' },
    category: { type: 'string', enum: Object.keys(PROBLEM_CATEGORIES), description: 'The last path segment of `type`.' },
    code: { type: 'string', enum: Object.keys(PROBLEM_TYPES), description: "The error's name: the spec's where it has one." },
    instance: { type: 'string', description: 'The path of the failing request.' },
    requestId: { type: 'string', description: 'The request id, also in the X-Request-Id header.' },
    limit: { type: 'integer', description: 'Rate limit problems: requests per window.' },
    windowSeconds: { type: 'number', description: 'Rate limit problems: the window.' },
    retryAfterSeconds: { type: 'integer', minimum: 1, description: 'Rate limit problems: as Retry-After.' },
    burstLimit: { type: 'integer', description: 'Burst refusals: requests per burst window.' },
    burstWindowSeconds: { type: 'number', description: 'Burst refusals: the burst window.' },
    errors: {
      type: 'array',
      description: 'Validation problems: every fault found.',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
        additionalProperties: false,
      },
    },
    checks: { type: 'object', description: 'NotReady only: the readiness checks and their outcome.' },
  },
  additionalProperties: true,
};

const READINESS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { const: 'ready' },
    checks: {
      type: 'object',
      properties: {
        redis: { enum: ['ok', 'unreachable'] },
        views: { type: 'object', additionalProperties: { oneOf: [{ type: 'integer', description: 'served version' }, { enum: ['missing', 'unknown'] }] } },
      },
    },
  },
};

export interface OpenApiOptions {
  endpoints: readonly EndpointDef[];
  quota: QuotaSettings;
  version: string;
}

export function buildOpenApi(o: OpenApiOptions): Record<string, unknown> {
  const schemas: Record<string, unknown> = { Problem: PROBLEM_SCHEMA, Readiness: READINESS_SCHEMA };
  const paths: Record<string, unknown> = {};
  const usedProblems = new Set<ProblemCode>(['NotFound', 'NotReady', 'QuotaExceeded', 'ServiceUnavailable', 'MethodNotAllowed']);
  const tags = new Set<string>();

  for (const def of o.endpoints) {
    const name = operationName(def);
    const tag = def.path.split('/')[1];
    tags.add(tag);
    schemas[`${name}Request`] = clone(withFilterSpellings(def.requestSchema));
    schemas[`${name}Response`] = clone(def.responseSchema);
    const problems = [...COMMON_ENDPOINT_PROBLEMS, ...(def.problems ?? [])];
    problems.forEach((p) => usedProblems.add(p));
    const examples = Object.entries(def.examples);
    paths[`${V1}${def.path}`] = {
      post: {
        operationId: name.charAt(0).toLowerCase() + name.slice(1),
        summary: def.summary,
        description: `${def.description ?? def.summary}\n\n${def.kind === 'table' ? 'Table-shaped: rows in `data`, cursor-paged with `searchAfter` / `nextSearchAfter`.' : 'Aggregation: the whole result in one response, never paged.'}`,
        tags: [tag],
        parameters: [ref('parameters', 'X-Request-Id')],
        requestBody: {
          required: false,
          description: 'The whole input; an empty body (or none) asks for the defaults.',
          content: {
            'application/json': {
              schema: ref('schemas', `${name}Request`),
              examples: Object.fromEntries(examples.map(([k, e]) => [k, { summary: e.summary, value: e.request }])),
            },
          },
        },
        responses: {
          '200': {
            description: 'The result.',
            headers: { 'X-Request-Id': ref('headers', 'X-Request-Id'), ...QUOTA_HEADERS },
            content: {
              'application/json': {
                schema: ref('schemas', `${name}Response`),
                examples: Object.fromEntries(
                  examples.filter(([, e]) => e.response !== undefined).map(([k, e]) => [k, { summary: e.summary, value: e.response }]),
                ),
              },
            },
          },
          ...problemResponses(problems),
        },
      },
    };
  }

  for (const def of o.endpoints) {
    if (!def.stream) continue;
    const name = `${operationName(def)}Stream`;
    const tag = def.path.split('/')[1];
    schemas[`${name}Request`] = clone(withFilterSpellings(streamRequestSchema(def.stream)));
    const problems: ProblemCode[] = [...COMMON_ENDPOINT_PROBLEMS, 'TooManyStreams'];
    problems.forEach((p) => usedProblems.add(p));
    const description = `Push stream (Server-Sent Events) of the rows of \`POST ${V1}${def.path}\` as they are projected, with its filter, filterExpression and projection. Each \`row\` event carries an id; reconnect with \`Last-Event-ID\` to resume with no gap and no duplicate. Events: ready, row, heartbeat, gap, end (docs/streams.md). Counts once against the quota when it connects; at most a few streams per user at once (TooManyStreams).`;
    const responses = {
      '200': {
        description: 'An event stream that lasts until either side closes it.',
        headers: { 'X-Request-Id': ref('headers', 'X-Request-Id'), ...QUOTA_HEADERS },
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...problemResponses(problems),
    };
    const lastEventId = { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' }, description: 'Resume after this event id.' };
    const queryNames = Object.keys(streamRequestSchema(def.stream).properties as Record<string, unknown>);
    paths[`${V1}/stream${def.path}`] = {
      post: {
        operationId: `${name.charAt(0).toLowerCase()}${name.slice(1)}`,
        summary: `${def.summary} Pushed live.`,
        description,
        tags: [tag],
        parameters: [ref('parameters', 'X-Request-Id'), lastEventId],
        requestBody: { required: false, content: { 'application/json': { schema: ref('schemas', `${name}Request`) } } },
        responses,
      },
      get: {
        operationId: `${name.charAt(0).toLowerCase()}${name.slice(1)}Get`,
        summary: `${def.summary} Pushed live (query parameters).`,
        description: `${description} The request members as query parameters, JSON values (filter, filterExpression) as JSON text.`,
        tags: [tag],
        parameters: [
          ref('parameters', 'X-Request-Id'),
          lastEventId,
          ...queryNames.map((n) => ({
            name: n,
            in: 'query',
            required: false,
            schema: { type: 'string' },
            description: `The request member ${n}; JSON text for objects and lists.`,
          })),
        ],
        responses,
      },
    };
  }
  paths[MCP_PATH] = {
    post: {
      operationId: 'mcp',
      summary: 'MCP server: every endpoint as a tool, for AI assistants (Model Context Protocol, Streamable HTTP, stateless)',
      description:
        'JSON-RPC 2.0 messages (`initialize`, `tools/list`, `tools/call`, `ping`); a `tools/call` works without `initialize`. One tool per endpoint (`mdq_get_<name>`) plus `mdq_ping`; results are CSV text, errors text with `isError` inside a 200. Each tool call counts as one request of the quota. Send `Accept: application/json, text/event-stream`; answers are JSON. See docs/clients.md.',
      tags: ['mcp'],
      parameters: [ref('parameters', 'X-Request-Id')],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { type: ['object', 'array'], description: 'A JSON-RPC 2.0 message, or a batch of them.' },
            example: {
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'mdq_get_max_pain', arguments: { ticker: 'SPY', expirationDate: '2026-01-16' } },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'The JSON-RPC response(s).',
          headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
          content: { 'application/json': { schema: { type: ['object', 'array'] } } },
        },
        '202': { description: 'Notifications or responses only: accepted, no body.' },
        ...problemResponses(['Unauthorized', 'MethodNotAllowed', 'QuotaExceeded', 'ServiceUnavailable']),
      },
    },
  };

  const open = { security: [] as unknown[] };
  const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
  paths[OPENAPI_PATH] = {
    get: {
      ...open,
      operationId: 'openApiDocument',
      summary: 'This OpenAPI 3.1 document',
      tags: ['reference'],
      responses: {
        '200': { description: 'The document.', content: { 'application/json': { schema: { type: 'object' } } } },
        ...problemResponses(['QuotaExceeded', 'ServiceUnavailable']),
      },
    },
  };
  paths['/docs'] = {
    get: {
      ...open,
      operationId: 'apiReference',
      summary: 'Interactive API reference (Swagger UI, served locally)',
      tags: ['reference'],
      responses: { '200': html('The reference page.'), ...problemResponses(['QuotaExceeded', 'ServiceUnavailable']) },
    },
  };
  paths['/docs/init.js'] = {
    get: {
      ...open,
      operationId: 'apiReferenceScript',
      summary: 'Start-up script of the reference page',
      tags: ['reference'],
      responses: {
        '200': { description: 'JavaScript.', content: { 'text/javascript': { schema: { type: 'string' } } } },
        ...problemResponses(['QuotaExceeded', 'ServiceUnavailable']),
      },
    },
  };
  paths['/docs/assets/{file}'] = {
    get: {
      ...open,
      operationId: 'apiReferenceAsset',
      summary: 'Swagger UI files of the reference page, served from the swagger-ui-dist package',
      tags: ['reference'],
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', enum: Object.keys(DOC_ASSETS) } }],
      responses: {
        '200': { description: 'The file.', content: { '*/*': { schema: { type: 'string', contentEncoding: 'binary' } } } },
        ...problemResponses(['NotFound', 'QuotaExceeded', 'ServiceUnavailable']),
      },
    },
  };
  paths['/docs/problems'] = {
    get: {
      ...open,
      operationId: 'problemTypes',
      summary: 'Every problem type',
      tags: ['reference'],
      responses: { '200': html('The list.'), ...problemResponses(['QuotaExceeded', 'ServiceUnavailable']) },
    },
  };
  paths['/docs/problems/{type}'] = {
    get: {
      ...open,
      operationId: 'problemType',
      summary: 'Documentation of one problem category (the target of a problem `type` URI)',
      tags: ['reference'],
      parameters: [{ name: 'type', in: 'path', required: true, schema: { type: 'string', enum: Object.keys(PROBLEM_CATEGORIES) } }],
      responses: { '200': html('The problem type.'), ...problemResponses(['NotFound', 'QuotaExceeded', 'ServiceUnavailable']) },
    },
  };
  paths['/console'] = {
    get: {
      ...open,
      operationId: 'webConsole',
      summary: 'The web console (redirects to /console/, static files; signs in with an API key in the page)',
      tags: ['reference'],
      responses: { '301': { description: 'To /console/.' } },
    },
  };
  paths['/healthz'] = {
    get: {
      ...open,
      operationId: 'liveness',
      summary: 'Liveness: the process answers (independent of Redis)',
      tags: ['operations'],
      responses: {
        '200': {
          description: 'Alive.',
          content: {
            'application/json': { schema: { type: 'object', properties: { status: { const: 'ok' } }, required: ['status'] }, example: { status: 'ok' } },
          },
        },
      },
    },
  };
  paths['/readyz'] = {
    get: {
      ...open,
      operationId: 'readiness',
      summary: 'Readiness: Redis reachable and every view this process serves built',
      tags: ['operations'],
      responses: {
        '200': {
          description: 'Ready.',
          content: { 'application/json': { schema: ref('schemas', 'Readiness'), example: { status: 'ready', checks: { redis: 'ok', views: { news: 1 } } } } },
        },
        '503': ref('responses', 'NotReady'),
      },
    },
  };
  paths['/metrics'] = {
    get: {
      ...open,
      operationId: 'metrics',
      summary: 'Prometheus metrics: request counts and latency per endpoint and status, problem counts per type, process metrics',
      tags: ['operations'],
      responses: { '200': { description: 'Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Market Data Query Service',
      version: o.version,
      summary: 'US options, equities and news market data, read-only.',
      description: describeApi(o.quota),
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ bearerAuth: [] }],
    tags: [
      ...[...tags].sort().map((t) => ({ name: t, description: `${t.charAt(0).toUpperCase()}${t.slice(1)} endpoints` })),
      { name: 'mcp', description: 'The MCP server for AI assistants: every endpoint as a tool' },
      { name: 'reference', description: 'This reference and the problem type documentation (no key needed)' },
      { name: 'operations', description: 'Health and metrics (no key, no quota, no data)' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'mdq_ + 31 base62 characters',
          description: 'The API key, e.g. `Authorization: Bearer mdq_…`. Created with `npm run keys -- create`.',
        },
      },
      schemas,
      parameters: {
        'X-Request-Id': {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: 'Your id for this request, echoed back and given as the problem `requestId`; a fresh UUID when absent or not matching the pattern.',
          schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
        },
      },
      headers: {
        'X-Request-Id': { description: 'The request id (yours when you sent a valid one).', schema: { type: 'string' } },
        'X-RateLimit-Limit': { description: 'Requests allowed per window.', schema: { type: 'integer' }, example: o.quota.perUser },
        'X-RateLimit-Remaining': {
          description: 'Requests still allowed after this one (0 on a refusal).',
          schema: { type: 'integer' },
          example: o.quota.perUser - 1,
        },
        'X-RateLimit-Reset': {
          description: 'Seconds until the sliding window is completely refilled (a relative count, not an epoch).',
          schema: { type: 'integer' },
          example: o.quota.windowMs / 1000,
        },
        RateLimit: {
          description: 'Remaining quota (draft-ietf-httpapi-ratelimit-headers-08): r = requests left, t = seconds until the window resets.',
          schema: { type: 'string' },
          example: `"per-user"; r=${o.quota.perUser - 1}; t=${o.quota.windowMs / 1000}`,
        },
        'RateLimit-Policy': {
          description: 'The quota policy: q = requests per window, w = window seconds, pk = opaque partition key.',
          schema: { type: 'string' },
          example: `"per-user"; q=${o.quota.perUser}; w=${o.quota.windowMs / 1000}; pk=:ZDYxMDFiMzg4NmQ3:`,
        },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
        'WWW-Authenticate': { description: 'The authentication scheme: Bearer.', schema: { type: 'string' }, example: 'Bearer realm="mdq"' },
        Allow: { description: 'The methods this path accepts.', schema: { type: 'string' }, example: 'POST' },
      },
      responses: Object.fromEntries([...usedProblems].sort().map((c) => [c, problemResponse(c)])),
    },
  };
}
