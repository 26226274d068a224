/**
 * The catalog of problem types: every error the API can return, once. The Problem class takes
 * status, category and title from here; the OpenAPI document, the /docs/problems pages and the
 * README list are generated from (or checked against) this table, so they cannot drift apart.
 *
 * The spec names the validation and data-unavailable errors (ValidationFailure, StockPriceNotFound,
 * ...); it leaves auth, quota, routing and availability errors "not shown", so those names are ours.
 */

export type ProblemCategory = 'validation' | 'data-unavailable' | 'auth' | 'quota' | 'not-found' | 'internal' | 'unavailable';

export interface ProblemType {
  status: number;
  category: ProblemCategory;
  title: string;
  /** What it means and what the caller should do; shown on the type's documentation page. */
  description: string;
}

export const PROBLEM_TYPES = {
  ValidationFailure: {
    status: 400,
    category: 'validation',
    title: 'Validation failure',
    description:
      'The request is malformed: JSON that does not parse, a body that is not an object, a field the endpoint does not accept, a value of the wrong type or out of range, a bad time window, a cursor the endpoint did not issue. `detail` names the field path at fault (e.g. `filterExpression.filters[1].field`) and `errors` lists each fault as {field, message}. Fix the request; retrying it unchanged fails again.',
  },
  Unauthorized: {
    status: 401,
    category: 'auth',
    title: 'Unauthorized',
    description:
      'The Authorization header is missing, does not use the Bearer scheme, or carries a key that is malformed, unknown or revoked. The response carries `WWW-Authenticate: Bearer`. Send `Authorization: Bearer <API key>` with an active key.',
  },
  NotFound: {
    status: 404,
    category: 'not-found',
    title: 'Not found',
    description: 'No endpoint exists at this path. Every data endpoint is a POST under /v1/; see the API reference at /docs.',
  },
  MethodNotAllowed: {
    status: 405,
    category: 'validation',
    title: 'Method not allowed',
    description: 'The path exists but not for this HTTP method. The `Allow` header lists the methods it accepts (POST for every data endpoint).',
  },
  PayloadTooLarge: {
    status: 413,
    category: 'validation',
    title: 'Payload too large',
    description: 'The request body is larger than the 64 KiB limit. Narrow the request (fewer filter values) or split it.',
  },
  UnsupportedMediaType: {
    status: 415,
    category: 'validation',
    title: 'Unsupported media type',
    description: 'The body is not JSON: send it with `Content-Type: application/json` (UTF-8), or send no body at all.',
  },
  QuotaExceeded: {
    status: 429,
    category: 'quota',
    title: 'Quota exceeded',
    description:
      'Too many requests: by default 240 per minute per user, counted across every endpoint and every API process, and 60 per minute per client address for requests without a valid key. `Retry-After` says how many seconds until the window resets; the `RateLimit` and `RateLimit-Policy` headers (IETF draft-ietf-httpapi-ratelimit-headers-08) are on every response.',
  },
  InternalError: {
    status: 500,
    category: 'internal',
    title: 'Internal error',
    description:
      'The request failed unexpectedly. It has been logged under the request id given in `instance`; quote it when reporting the problem. Retrying later may succeed.',
  },
  ServiceUnavailable: {
    status: 503,
    category: 'unavailable',
    title: 'Service unavailable',
    description: 'The data store is briefly unreachable. The request was not served; retry after the number of seconds in `Retry-After`.',
  },
  NotReady: {
    status: 503,
    category: 'unavailable',
    title: 'Not ready',
    description:
      'Readiness probe (/readyz): the process cannot serve yet, because the data store is unreachable or a view it serves has not been built. `detail` and `checks` name what is missing.',
  },
  // The spec's data-unavailable and upstream errors, returned by endpoints of later issues.
  StockPriceNotFound: {
    status: 422,
    category: 'data-unavailable',
    title: 'Stock price not found',
    description:
      'No stock price exists for the ticker over the range (Dark Pool Levels) or session (Max Pain); `detail` names the ticker. Retrying unchanged does not help.',
  },
  EmptyOpenInterest: {
    status: 422,
    category: 'data-unavailable',
    title: 'Empty open interest',
    description: 'No open interest exists for the ticker, session and expiration (Max Pain); `detail` names all three.',
  },
  OpenInterestChangesNotKept: {
    status: 422,
    category: 'data-unavailable',
    title: 'Open interest changes not kept',
    description:
      'Open Interest Change: change rows are kept for the newest sessions only, and the requested session is older; `detail` names the session and the oldest one kept. Open Interest Over Time and Max Pain cover every session.',
  },
  StartSessionStockPricesUnavailable: {
    status: 422,
    category: 'data-unavailable',
    title: 'Start session stock prices unavailable',
    description: 'Market Map: the previous trading session has no prices.',
  },
  EndSessionStockPricesUnavailable: {
    status: 422,
    category: 'data-unavailable',
    title: 'End session stock prices unavailable',
    description: 'Market Map: the requested session has no prices.',
  },
  UnderlyingPriceUnavailable: {
    status: 422,
    category: 'data-unavailable',
    title: 'Underlying price unavailable',
    description: 'Term Structure: no usable underlying price exists for the session (the spec leaves this error unnamed).',
  },
  LevelsUnavailable: {
    status: 500,
    category: 'unavailable',
    title: 'Levels unavailable',
    description: 'Dark Pool Levels: the levels query failed upstream. Transient; retry.',
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

/** Problem type URIs are relative references into the service's documentation (served at /docs/problems/<slug>). */
export const PROBLEM_DOCS_BASE = '/docs/problems/';

export function problemSlug(code: ProblemCode): string {
  return code.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

export function problemTypeUri(code: ProblemCode): string {
  return `${PROBLEM_DOCS_BASE}${problemSlug(code)}`;
}

export function problemCodeBySlug(slug: string): ProblemCode | undefined {
  return (Object.keys(PROBLEM_TYPES) as ProblemCode[]).find((c) => problemSlug(c) === slug);
}
