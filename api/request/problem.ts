/**
 * RFC 9457 problem responses. Every error the API returns is one of these: a code from the
 * catalog (problem-types.ts), whose category is the `type`, and a detail naming the field or
 * value at fault. The error handler (errors.ts) turns any thrown error into one.
 */
import { PROBLEM_TYPES, ProblemCategory, ProblemCode, problemTitle, problemTypeUri } from './problem-types';

export type { ProblemCategory, ProblemCode } from './problem-types';
export { PROBLEM_DOCS_BASE } from './problem-types';

export interface FieldError {
  field: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The last path segment of `type`, for clients that prefer a member to parsing the URI. */
  category: ProblemCategory;
  /** The catalog name of the type, e.g. ValidationFailure (the spec's error name where it has one). */
  code: ProblemCode;
  /** The path of the failing request, e.g. /v1/news/tool/news-articles. */
  instance?: string;
  /** The request id, also in the X-Request-Id response header. */
  requestId?: string;
  /** For validation problems: every fault found, each naming its field path. */
  errors?: FieldError[];
  [extension: string]: unknown;
}

export interface ProblemOptions {
  errors?: FieldError[];
  /** Response headers the problem needs (WWW-Authenticate, Retry-After, Allow). */
  headers?: Record<string, string>;
  /** Extension members added to the body (RFC 9457 §3.2), e.g. the readiness checks. */
  extensions?: Record<string, unknown>;
}

export class Problem extends Error {
  readonly status: number;
  readonly category: ProblemCategory;
  readonly title: string;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(
    readonly code: ProblemCode,
    detail: string,
    opts: ProblemOptions = {},
  ) {
    super(detail);
    const t = PROBLEM_TYPES[code];
    this.status = t.status;
    this.category = t.category;
    this.title = problemTitle(code);
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
    this.extensions = opts.extensions ?? {};
  }

  /** `instance` is the request path; the request id travels beside it. */
  body(instance?: string, requestId?: string): ProblemBody {
    return {
      type: problemTypeUri(this.code),
      title: this.title,
      status: this.status,
      detail: this.message,
      category: this.category,
      code: this.code,
      ...(instance ? { instance } : {}),
      ...(requestId ? { requestId } : {}),
      ...(this.errors?.length ? { errors: this.errors } : {}),
      ...this.extensions,
    };
  }
}

/** 400 ValidationFailure naming the field at fault. */
export function invalid(field: string, message: string): Problem {
  return new Problem('ValidationFailure', `${field}: ${message}`, { errors: [{ field, message }] });
}

export function unauthorized(detail: string): Problem {
  return new Problem('Unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="mdq"' } });
}

export function notFound(detail: string): Problem {
  return new Problem('NotFound', detail);
}

export function methodNotAllowed(path: string, allow: readonly string[]): Problem {
  return new Problem('MethodNotAllowed', `${path} accepts ${allow.join(', ')} only`, { headers: { Allow: allow.join(', ') } });
}

export function unavailable(detail: string, retryAfterS = 2): Problem {
  return new Problem('ServiceUnavailable', detail, { headers: { 'Retry-After': String(retryAfterS) } });
}

export function internal(): Problem {
  return new Problem('InternalError', 'The request failed unexpectedly; it has been logged under this request id. Retry later.');
}
