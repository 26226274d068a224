import zlib from 'zlib';
import { ENDPOINTS } from '../../api/endpoints';
import type { EndpointDef } from '../../api/request/endpoint';
import { Problem } from '../../api/request/problem';
import { PROBLEM_CATEGORIES, PROBLEM_TYPES, ProblemCategory, ProblemCode } from '../../api/request/problem-types';
import { testConfig } from '../support/env';
import { TestApi, readResponse, startApi } from '../support/http';
import { captureLogs } from '../support/log-capture';
import { rawRequest } from '../support/raw-http';

/**
 * Problems everywhere: every failure over HTTP is application/problem+json whose type is the
 * vendor's category under /docs/problems/, with the category's fixed title, status, detail, the
 * request path as instance, the request id as requestId, and the code naming the error; the type
 * URI leads to the category's documentation. 503 while Redis is down: redis-outage.test.ts; 401: api-keys.test.ts; 429:
 * quota.test.ts.
 */

const PATH = '/v1/news/tool/news-articles';
const config = testConfig('problems');
const logs = captureLogs();
let api: TestApi;

/** Endpoints that fail on purpose, mounted beside the real ones, to see what an unexpected failure gives. */
const failing = (path: string, handle: EndpointDef['handle']): EndpointDef => ({
  path,
  summary: 'fails on purpose',
  kind: 'aggregation',
  views: [],
  requestSchema: { type: 'object' },
  responseSchema: { type: 'object' },
  examples: {},
  handle,
});
const SECRET = 'redis://admin:hunter2@10.1.2.3/0';

beforeAll(async () => {
  api = await startApi(config, {
    log: logs.log,
    endpoints: [
      ...ENDPOINTS,
      failing('/test/tool/throws', async () => {
        throw new Error(`cannot connect to ${SECRET}`);
      }),
      failing('/test/tool/throws-a-string', async () => {
        throw SECRET;
      }),
      failing('/test/tool/unserialisable', async () => ({ value: BigInt(1) })),
    ],
  });
});

afterAll(async () => {
  await api.close();
});

type Res = { status: number; headers: Headers; json: any };

async function expectProblem(res: Res, code: ProblemCode, detail?: RegExp): Promise<void> {
  const t = PROBLEM_TYPES[code];
  expect(res.status).toBe(t.status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toEqual(
    expect.objectContaining({
      type: `/docs/problems/${t.category}`,
      title: PROBLEM_CATEGORIES[t.category].title,
      status: t.status,
      category: t.category,
      code,
      instance: expect.stringMatching(/^\//),
      requestId: res.headers.get('x-request-id'),
    }),
  );
  expect(typeof res.json.detail).toBe('string');
  expect(res.json.detail.length).toBeGreaterThan(0);
  if (detail) expect(res.json.detail).toMatch(detail);
  // The type URI is a page of the service's documentation.
  const doc = await fetch(`${api.url}${res.json.type}`);
  expect(doc.status).toBe(200);
  expect(await doc.text()).toContain(code);
}

const send = async (path: string, init: RequestInit = {}, withKey = true): Promise<Res> => {
  const res = await fetch(`${api.url}${path}`, {
    ...init,
    headers: { ...(withKey ? { Authorization: `Bearer ${api.key}` } : {}), ...(init.headers as Record<string, string>) },
  });
  return readResponse(res);
};

describe('routing', () => {
  it.each([
    ['GET', '/nope', false],
    ['POST', '/v2/news/tool/news-articles', false],
    ['POST', '/v1/news/tool/nope', true],
    ['GET', '/v1', true],
  ])('%s %s is a 404 problem naming the path', async (method, path, withKey) => {
    await expectProblem(await send(path, { method }, withKey), 'NotFound', new RegExp(`No endpoint at ${method} ${path.replace(/\//g, '\\/')}`));
  });

  it('an unknown path under /v1 without a key is a 401: routes are not revealed to strangers', async () => {
    await expectProblem(await send('/v1/news/tool/nope', { method: 'POST' }, false), 'Unauthorized');
  });

  it.each([
    ['GET', PATH, 'POST'],
    ['PUT', PATH, 'POST'],
    ['DELETE', PATH, 'POST'],
    ['PATCH', PATH, 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
    ['DELETE', '/readyz', 'GET, HEAD'],
    ['POST', '/metrics', 'GET, HEAD'],
    ['POST', '/v1/openapi.json', 'GET, HEAD'],
    ['POST', '/docs', 'GET, HEAD'],
    ['PUT', '/docs/problems/bad-request', 'GET, HEAD'],
  ])('%s %s is a 405 problem with Allow: %s', async (method, path, allow) => {
    const res = await send(path, { method });
    await expectProblem(res, 'MethodNotAllowed', new RegExp(`accepts ${allow} only`));
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('HEAD works wherever GET does', async () => {
    for (const path of ['/healthz', '/metrics', '/v1/openapi.json', '/docs']) expect((await fetch(`${api.url}${path}`, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('the problem members clients branch on', () => {
  it('instance is the path as sent (without the query); the request id is requestId and X-Request-Id', async () => {
    const res = await send(`${PATH}?debug=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'inst-1' },
      body: '{"size": 0}',
    });
    await expectProblem(res, 'ValidationFailure');
    expect(res.json).toMatchObject({ instance: PATH, requestId: 'inst-1', errors: [{ field: 'size', message: expect.any(String) }] });
    const nf = await send('/v1/news/tool/nope', { method: 'POST' });
    expect(nf.json).toMatchObject({ type: '/docs/problems/bad-request', title: 'Bad Request', instance: '/v1/news/tool/nope', code: 'NotFound' });
  });

  it('each category has one title, whatever the code', () => {
    const titles = new Map<ProblemCategory, Set<string>>();
    for (const code of Object.keys(PROBLEM_TYPES) as ProblemCode[]) {
      const p = new Problem(code, 'd');
      titles.set(p.category, (titles.get(p.category) ?? new Set()).add(p.title));
    }
    for (const [cat, set] of titles) expect([...set]).toEqual([PROBLEM_CATEGORIES[cat].title]);
  });
});

describe('request bodies', () => {
  const post = (body: string | Uint8Array, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
    send(PATH, { method: 'POST', body, headers });

  it.each([
    ['truncated', '{"size": '],
    ['a bare word', 'size'],
    ['single quotes', "{'size': 1}"],
    ['a trailing comma', '{"size": 1,}'],
    ['a top-level string', '"hello"'],
    ['NaN', '{"size": NaN}'],
  ])('malformed JSON (%s) is a 400 naming the body', async (_what, body) => {
    const res = await post(body);
    await expectProblem(res, 'ValidationFailure', /^body: malformed JSON/);
    expect(res.json.errors).toEqual([{ field: 'body', message: expect.stringMatching(/^malformed JSON/) }]);
  });

  it('JSON that is not an object is a 400 naming the body', async () => {
    await expectProblem(await post('[1, 2]'), 'ValidationFailure', /^body: must be object/);
  });

  it.each([
    ['a filterExpression value', (deep: string) => `{"filterExpression": {"field": "ID", "operation": "=", "value": ${deep}}}`, 'filterExpression.value'],
    ['a filter value', (deep: string) => `{"filter": {"tickers": [${deep}]}}`, 'filter.tickers[0]'],
    ['a size', (deep: string) => `{"size": ${deep}}`, 'size'],
  ])('a value nested 10,000 levels deep in %s is a 400 naming it, not a 500 (found by the fuzz test)', async (_what, body, field) => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const res = await post(body(deep));
    await expectProblem(res, 'ValidationFailure');
    expect(res.json.errors[0].field).toBe(field);
    expect(res.json.detail.length).toBeLessThan(300);
  });

  it('a body over the documented 64 KiB limit is a 413', async () => {
    const big = JSON.stringify({ filter: { tickers: Array.from({ length: 9_000 }, (_, i) => `T${i}`) } });
    expect(big.length).toBeGreaterThan(64 * 1024);
    await expectProblem(await post(big), 'PayloadTooLarge', /exceeds the 64 KiB limit/);
  });

  it('a body just under the limit is read (and judged on its content)', async () => {
    const body = JSON.stringify({ filter: { tickers: Array.from({ length: 5_000 }, (_, i) => `T${i}`) } });
    expect(body.length).toBeLessThan(64 * 1024);
    expect((await post(body)).status).not.toBe(413);
  });

  it.each([
    ['text/plain', 'size=1', /Content-Type text\/plain is not accepted/],
    ['application/x-www-form-urlencoded', 'size=1', /Content-Type application\/x-www-form-urlencoded is not accepted/],
    ['application/xml', '<size>1</size>', /not accepted/],
    ['application/json; charset=latin1', '{}', /charset latin1 is not supported/],
  ])('a body sent as %s is a 415', async (type, body, detail) => {
    await expectProblem(await post(body, { 'Content-Type': type }), 'UnsupportedMediaType', detail);
  });

  it('a body without a Content-Type is a 415', async () => {
    const res = await rawRequest(`${api.url}${PATH}`, { method: 'POST', headers: { Authorization: `Bearer ${api.key}` }, body: '{}' });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ code: 'UnsupportedMediaType', detail: expect.stringMatching(/Content-Type \(none\)/) });
  });

  it('a gzip body is read; one that does not inflate is a 400; an unknown encoding is a 415', async () => {
    const gz = new Uint8Array(zlib.gzipSync('{"size": 1}'));
    expect((await post(gz, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })).status).toBe(200);
    await expectProblem(await post('{}', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }), 'ValidationFailure', /^body: could not be read/);
    await expectProblem(
      await post('{}', { 'Content-Type': 'application/json', 'Content-Encoding': 'compress' }),
      'UnsupportedMediaType',
      /Content-Encoding is not supported/,
    );
  });

  it('a gzip bomb is stopped at the 64 KiB limit of the inflated body', async () => {
    const bomb = new Uint8Array(zlib.gzipSync(`{"filter": {"tickers": ["${'A'.repeat(10_000_000)}"]}}`));
    expect(bomb.length).toBeLessThan(64 * 1024);
    await expectProblem(await post(bomb, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }), 'PayloadTooLarge');
  });

  it('application/*+json counts as JSON', async () => {
    expect((await post('{"size": 1}', { 'Content-Type': 'application/problem+json' })).status).toBe(200);
  });
});

describe('unexpected failures', () => {
  it.each(['/v1/test/tool/throws', '/v1/test/tool/throws-a-string', '/v1/test/tool/unserialisable'])(
    '%s is a bare 500 problem: no message, no stack, nothing internal; the log has the stack under the request id',
    async (path) => {
      const res = await send(path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Request-Id': `fail-${path.length}` }, body: '{}' });
      await expectProblem(res, 'InternalError', /^The request failed unexpectedly; it has been logged under this request id/);
      const text = JSON.stringify(res.json);
      expect(text).not.toContain('hunter2');
      expect(text).not.toMatch(/\bat .*\.ts:\d+/);
      expect(text).not.toMatch(/BigInt|Error:/);
      const logged = logs.lines().find((l) => l.msg === 'unhandled error' && l.requestId === `fail-${path.length}`);
      expect(logged).toBeDefined();
      expect(logged!.level).toBe(50);
    },
  );

  it('the service keeps serving after them', async () => {
    expect((await send(PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"size": 1}' })).status).toBe(200);
  });
});

describe('problem documentation', () => {
  it('every category has its page listing its codes, and the index lists every category', async () => {
    const index = await (await fetch(`${api.url}/docs/problems`)).text();
    for (const cat of Object.keys(PROBLEM_CATEGORIES) as ProblemCategory[]) {
      const res = await fetch(`${api.url}/docs/problems/${cat}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain(PROBLEM_CATEGORIES[cat].title);
      expect(index).toContain(`href="/docs/problems/${cat}"`);
    }
    for (const code of Object.keys(PROBLEM_TYPES) as ProblemCode[]) {
      const page = await (await fetch(`${api.url}/docs/problems/${PROBLEM_TYPES[code].category}`)).text();
      expect(page).toContain(`<code>${code}</code>`);
      expect(page).toContain(`<td>${PROBLEM_TYPES[code].status}</td>`);
    }
  });

  it('an unknown problem type page is itself a 404 problem', async () => {
    await expectProblem(await send('/docs/problems/validation-failure', {}, false), 'NotFound', /No problem type named validation-failure/);
  });

  it('problems are counted by type in /metrics', async () => {
    await send('/nope');
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(metrics).toMatch(/^mdq_problems_total\{type="NotFound",status="404"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^mdq_problems_total\{type="InternalError",status="500"\} 3$/m);
    expect(metrics).toMatch(/^mdq_problems_total\{type="UnsupportedMediaType",status="415"\} [1-9]\d*$/m);
  });
});
