/**
 * The catalog of problem types: every error the API can return, once. The Problem class takes
 * status, category and title from here; the OpenAPI document and the /docs/problems pages are
 * generated from this table, so they cannot drift apart.
 *
 * A problem's `type` is its category, as the vendor's clients branch on it (vendor notes 1.3):
 * `/docs/problems/<category>` under this service, with one fixed title per category. The finer
 * name (the spec's error names: ValidationFailure, StockPriceNotFound, ...; ours where the spec
 * leaves an error "not shown") travels as the `code` member.
 */

/** The vendor's categories, in the order of its errors page. */
export const PROBLEM_CATEGORIES = {
  validation: {
    title: 'Validation Failed',
    description: 'A field of the request is wrong: `errors` lists every fault as {field, message}, `field` being the path into the body.',
  },
  'bad-request': {
    title: 'Bad Request',
    description:
      'The request cannot be taken as a whole: no endpoint at the path, a method the path does not accept, a body too large or not JSON. `code` says which.',
  },
  authentication: {
    title: 'Authentication Failed',
    description: 'No usable API key: the Authorization header is missing, not Bearer, or carries a key that is malformed, unknown or revoked.',
  },
  authorization: {
    title: 'Authorization Failed',
    description: 'The key is valid but may not use this resource. No endpoint of this service refuses a valid key today; the category is reserved.',
  },
  'data-unavailable': {
    title: 'Data Unavailable',
    description: "The request is valid but the data it needs does not exist (the spec's no-data errors). Retrying it unchanged does not help.",
  },
  'rate-limit-exceeded': {
    title: 'Rate Limit Exceeded',
    description:
      'Too many requests. Wait `Retry-After` seconds (also the `retryAfterSeconds` member); `limit` and `windowSeconds` give the quota, and `burstLimit`, `burstWindowSeconds` the burst rule when that refused the request.',
  },
  internal: {
    title: 'Internal Error',
    description: 'The service could not answer: an unexpected failure (500) or a store briefly unreachable (503). Retry with exponential back-off.',
  },
} as const satisfies Record<string, { title: string; description: string }>;

export type ProblemCategory = keyof typeof PROBLEM_CATEGORIES;

export interface ProblemType {
  status: number;
  category: ProblemCategory;
  /** What it means and what the caller should do; shown on its category's documentation page. */
  description: string;
}

export const PROBLEM_TYPES = {
  ValidationFailure: {
    status: 400,
    category: 'validation',
    description:
      'The request is malformed: JSON that does not parse, a body that is not an object, a field the endpoint does not accept, a value of the wrong type or out of range, a bad time window, a cursor the endpoint did not issue. `detail` names the field path at fault (e.g. `filterExpression.filters[1].field`) and `errors` lists each fault as {field, message}. Fix the request; retrying it unchanged fails again.',
  },
  Unauthorized: {
    status: 401,
    category: 'authentication',
    description:
      'The Authorization header is missing, does not use the Bearer scheme, or carries a key that is malformed, unknown or revoked. The response carries `WWW-Authenticate: Bearer`. Send `Authorization: Bearer <API key>` with an active key.',
  },
  NotFound: {
    status: 404,
    category: 'bad-request',
    description: 'No endpoint exists at this path. Every data endpoint is a POST under /v1/; see the API reference at /docs.',
  },
  MethodNotAllowed: {
    status: 405,
    category: 'bad-request',
    description: 'The path exists but not for this HTTP method. The `Allow` header lists the methods it accepts (POST for every data endpoint).',
  },
  PayloadTooLarge: {
    status: 413,
    category: 'bad-request',
    description: 'The request body is larger than the 64 KiB limit. Narrow the request (fewer filter values) or split it.',
  },
  UnsupportedMediaType: {
    status: 415,
    category: 'bad-request',
    description: 'The body is not JSON: send it with `Content-Type: application/json` (UTF-8), or send no body at all.',
  },
  QuotaExceeded: {
    status: 429,
    category: 'rate-limit-exceeded',
    description:
      'Too many requests: by default 240 in any sliding 60 s per user and 20 in any second, counted across every endpoint and every API process, and 60 per 60 s per client address for requests without a valid key. `Retry-After` (and `retryAfterSeconds`) says how many seconds until a request is admitted again; `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` and the IETF `RateLimit` headers are on every counted response.',
  },
  TooManyStreams: {
    status: 429,
    category: 'rate-limit-exceeded',
    description:
      'Push streams (`/v1/stream/...`): the user already has as many streams open as allowed (5 by default, `MDQ_STREAMS_PER_USER`), counted across every API process. Close one, or retry after `Retry-After` seconds; a stream that ended without closing frees its slot within a minute.',
  },
  InternalError: {
    status: 500,
    category: 'internal',
    description:
      'The request failed unexpectedly. It has been logged under the request id (`X-Request-Id`, also the `requestId` member); quote it when reporting the problem. Retrying later may succeed.',
  },
  ServiceUnavailable: {
    status: 503,
    category: 'internal',
    description: 'The data store is briefly unreachable. The request was not served; retry after the number of seconds in `Retry-After`.',
  },
  NotReady: {
    status: 503,
    category: 'internal',
    description:
      'Readiness probe (/readyz): the process cannot serve yet, because the data store is unreachable or a view it serves has not been built. `detail` and `checks` name what is missing.',
  },
  // The spec's data-unavailable and upstream errors, returned by endpoints of later issues.
  StockPriceNotFound: {
    status: 422,
    category: 'data-unavailable',
    description:
      'No stock price exists for the ticker over the range (Dark Pool Levels) or session (Max Pain); `detail` names the ticker. Retrying unchanged does not help.',
  },
  EmptyOpenInterest: {
    status: 422,
    category: 'data-unavailable',
    description: 'No open interest exists for the ticker, session and expiration (Max Pain); `detail` names all three.',
  },
  OpenInterestChangesNotKept: {
    status: 422,
    category: 'data-unavailable',
    description:
      'Open Interest Change: change rows are kept for the newest sessions only, and the requested session is older; `detail` names the session and the oldest one kept. Open Interest Over Time and Max Pain cover every session.',
  },
  StartSessionStockPricesUnavailable: {
    status: 422,
    category: 'data-unavailable',
    description: 'Market Map: the previous trading session has no prices.',
  },
  EndSessionStockPricesUnavailable: {
    status: 422,
    category: 'data-unavailable',
    description: 'Market Map: the requested session has no prices.',
  },
  UnderlyingPriceUnavailable: {
    status: 422,
    category: 'data-unavailable',
    description: 'Term Structure: no usable underlying price exists for the session (the spec leaves this error unnamed).',
  },
  LevelsUnavailable: {
    status: 500,
    category: 'internal',
    description: 'Dark Pool Levels: the levels query failed upstream. Transient; retry.',
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

/** Problem type URIs are relative references into the service's documentation (served at /docs/problems/<category>). */
export const PROBLEM_DOCS_BASE = '/docs/problems/';

export function problemTypeUri(code: ProblemCode): string {
  return `${PROBLEM_DOCS_BASE}${PROBLEM_TYPES[code].category}`;
}

export function problemTitle(code: ProblemCode): string {
  return PROBLEM_CATEGORIES[PROBLEM_TYPES[code].category].title;
}

export function isProblemCategory(name: string): name is ProblemCategory {
  return Object.prototype.hasOwnProperty.call(PROBLEM_CATEGORIES, name);
}

/** The codes of one category, in catalog order. */
export function problemCodesOf(category: ProblemCategory): ProblemCode[] {
  return (Object.keys(PROBLEM_TYPES) as ProblemCode[]).filter((c) => PROBLEM_TYPES[c].category === category);
}
