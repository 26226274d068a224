/**
 * RFC 9457 problem responses. Every error the API returns is one of these, with a category
 * label (the spec's "category") and a detail naming the field or value at fault.
 */

export type ProblemCategory = 'validation' | 'data-unavailable' | 'auth' | 'quota' | 'not-found' | 'internal' | 'unavailable';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  category: ProblemCategory;
  /** The spec's error name, e.g. ValidationFailure. */
  code: string;
  instance?: string;
  /** For validation problems: every fault found, each naming its field path. */
  errors?: { field: string; message: string }[];
}

/** Problem type URIs are relative references into the service's documentation. */
export const PROBLEM_DOCS_BASE = '/docs/problems/';

export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly category: ProblemCategory,
    readonly title: string,
    detail: string,
    readonly errors?: { field: string; message: string }[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  body(instance?: string): ProblemBody {
    const slug = this.code.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
    return {
      type: `${PROBLEM_DOCS_BASE}${slug}`,
      title: this.title,
      status: this.status,
      detail: this.message,
      category: this.category,
      code: this.code,
      ...(instance ? { instance } : {}),
      ...(this.errors?.length ? { errors: this.errors } : {}),
    };
  }
}

/** 400 ValidationFailure naming the field at fault. */
export function invalid(field: string, message: string): Problem {
  return new Problem(400, 'ValidationFailure', 'validation', 'Validation failure', `${field}: ${message}`, [{ field, message }]);
}

export function unauthorized(detail: string): Problem {
  return new Problem(401, 'Unauthorized', 'auth', 'Unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer realm="mdq"' });
}

export function notFound(detail: string): Problem {
  return new Problem(404, 'NotFound', 'not-found', 'Not found', detail);
}

export function unavailable(detail: string, retryAfterS = 2): Problem {
  return new Problem(503, 'ServiceUnavailable', 'unavailable', 'Service unavailable', detail, undefined, { 'Retry-After': String(retryAfterS) });
}

export function internal(): Problem {
  return new Problem(500, 'InternalError', 'internal', 'Internal error', 'The request failed unexpectedly; it has been logged. Retry later.');
}
