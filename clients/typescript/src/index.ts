import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

/**
 * The typed client of the Market Data Query Service. `schema.ts` is generated from the API's
 * OpenAPI document (`npm run clients`) and openapi-fetch turns it into `client.POST(path, {body})`
 * with the request and answer types of each endpoint. This file adds only what the document
 * cannot say: the API key, waiting out a 429 as its Retry-After says, and cursor walks as async
 * iterators.
 */

export type { paths, components, operations } from './schema';

export type MdqClient = Client<paths>;

type Post<P extends keyof paths> = paths[P] extends { post: infer O } ? O : never;
/** The JSON body an endpoint takes. */
export type RequestOf<P extends keyof paths> = Post<P> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The JSON answer an endpoint gives. */
export type AnswerOf<P extends keyof paths> = Post<P> extends { responses: { 200: { content: { 'application/json': infer R } } } } ? R : never;
/** The cursor-paged endpoints: their answers carry `data` rows and `nextSearchAfter`. */
export type TablePath = { [P in keyof paths]: AnswerOf<P> extends { data: unknown[]; nextSearchAfter?: unknown } ? P : never }[keyof paths];
/** One row of a cursor-paged endpoint. */
export type RowOf<P extends TablePath> = AnswerOf<P> extends { data: (infer R)[] } ? R : never;

export interface ClientOptions {
  /** The service, e.g. http://localhost:8080. */
  baseUrl: string;
  apiKey: string;
  /** How many 429s in a row are waited out before the 429 is returned (default 5). */
  maxRetries?: number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (waitSeconds: number, response: Response) => void;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A problem answer (RFC 9457) as an error: `problem` is its body, `status` its HTTP status. */
export class MdqProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: { type?: string; title?: string; detail?: string; code?: string; [member: string]: unknown },
  ) {
    super(`${status} ${problem.title ?? 'error'}: ${problem.detail ?? ''}`);
  }
}

/** The fetch the client uses: a 429 is waited out for its Retry-After seconds, then the request is sent again. */
function retrying(o: ClientOptions): (request: Request) => Promise<Response> {
  const send = o.fetch ?? ((r: Request) => fetch(r));
  const maxRetries = o.maxRetries ?? 5;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const response = await send(request.clone());
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const waitSeconds = Math.max(1, Number(response.headers.get('Retry-After')) || 1);
      o.onRetry?.(waitSeconds, response);
      await response.body?.cancel();
      await sleep(waitSeconds * 1000);
    }
  };
}

export function createMdqClient(o: ClientOptions): MdqClient {
  return createClient<paths>({ baseUrl: o.baseUrl, headers: { Authorization: `Bearer ${o.apiKey}` }, fetch: retrying(o) });
}

/**
 * POSTs a body and returns the answer, or throws the problem as an MdqProblem. openapi-fetch's
 * own `client.POST` returns `{data, error, response}` instead, for callers that branch on errors.
 */
export async function post<P extends keyof paths>(client: MdqClient, path: P, body: RequestOf<P>): Promise<AnswerOf<P>> {
  // openapi-fetch's overloads cannot be followed through a generic path; each path's own types are checked by RequestOf/AnswerOf.
  const { data, error, response } = await (
    client.POST as (p: string, init: { body: unknown }) => Promise<{ data?: unknown; error?: unknown; response: Response }>
  )(path as string, { body });
  if (error !== undefined || data === undefined) throw new MdqProblem(response.status, (error ?? {}) as MdqProblem['problem']);
  return data as AnswerOf<P>;
}

/**
 * Every row of a cursor-paged endpoint, page after page: `searchAfter` is the previous page's
 * `nextSearchAfter` until an answer has none. The body's `size` is the page size.
 */
export async function* rows<P extends TablePath>(client: MdqClient, path: P, body: RequestOf<P> = {} as RequestOf<P>): AsyncGenerator<RowOf<P>> {
  const first = body as RequestOf<P> & { searchAfter?: string[] | null };
  let searchAfter = first.searchAfter;
  do {
    const page = (await post(client, path, { ...first, searchAfter } as RequestOf<P>)) as { data: RowOf<P>[]; nextSearchAfter?: string[] | null };
    for (const row of page.data) yield row;
    searchAfter = page.nextSearchAfter;
  } while (searchAfter);
}
