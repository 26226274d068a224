import { execFile } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { createApp } from '../../api/app';
import { ENDPOINTS } from '../../api/endpoints';
import { V1 } from '../../api/request/endpoint';
import { withFilterSpellings } from '../../api/request/filter-schema';
import { PROBLEM_TYPES } from '../../api/request/problem-types';
import { DEFAULT_QUOTA } from '../../api/request/quota';
import { createLogger } from '../../services/log';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline, syntheticArticles } from '../support/pipeline';

/**
 * The OpenAPI 3.1 document at /v1/openapi.json: valid against the OpenAPI 3.1 schema, covering
 * every mounted route, generated from the very schemas the request layer validates with, and
 * truthful: its examples pass, and real responses (with data) match its response schemas.
 */

const config = testConfig('openapi');
let pipe: TestPipeline;
let api: TestApi;
let doc: any;

beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(pipe.newsSpec, syntheticArticles(60) as never);
  const projector = pipe.newProjector();
  await projector.start();
  await pipe.waitCaughtUp(1);
  api = await startApi(config);
  const res = await fetch(`${api.url}/v1/openapi.json`); // no key: the reference is public
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await res.json();
});

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

/** The official OpenAPI 3.1 schema, through @seriousme/openapi-schema-validator's CLI (an ES module, so run as its own process). */
function validateOpenApi(document: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-openapi-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(document));
  const cli = path.join(path.dirname(require.resolve('@seriousme/openapi-schema-validator/package.json')), 'bin', 'validate-api-cli.js');
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, file], (_err, stdout) => {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
      resolve(JSON.parse(stdout));
    });
  });
}

function schemaValidator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'mdq:components', $defs: doc.components.schemas });
  return (name: string) => ajv.getSchema(`mdq:components#/$defs/${name}`)!;
}

/** Every route of the Express app, walked from its router stack: what is really mounted. */
function mountedRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        // The 405 guards (methodGuard, on every method) stand beside the real handlers; they are not operations.
        for (const l of layer.route.stack as { name: string; method?: string }[]) {
          if (l.name === 'methodGuard' || !l.method) continue;
          out.push(`${l.method.toUpperCase()} ${(prefix + layer.route.path).replace(/:(\w+)/g, '{$1}')}`);
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + (typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''));
      }
    }
  };
  walk((app as any).router.stack, '');
  return [...new Set(out)].sort();
}

it('validates against the OpenAPI 3.1 schema', async () => {
  expect(doc.openapi).toBe('3.1.0');
  const result = await validateOpenApi(doc);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
});

it('the validator is not a rubber stamp: a broken document fails', async () => {
  const broken = JSON.parse(JSON.stringify(doc));
  broken.paths['/v1/news/tool/news-articles'].post.responses = 'none';
  expect((await validateOpenApi(broken)).valid).toBe(false);
});

it('every mounted route is documented, and every documented operation is mounted', async () => {
  const app = createApp({ redis: pipe.redis, keyPrefix: config.keyPrefix, keyStore: api.store, log: createLogger('t', 'silent'), quota: DEFAULT_QUOTA });
  const mounted = mountedRoutes(app);
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
    .sort();
  expect(mounted.length).toBeGreaterThanOrEqual(ENDPOINTS.length + 5);
  expect(mounted).toEqual(documented);
  for (const def of ENDPOINTS) expect(mounted).toContain(`POST ${V1}${def.path}`);
});

it('request schemas are the very objects ajv validates with: one source of truth', () => {
  for (const def of ENDPOINTS) {
    const op = doc.paths[`${V1}${def.path}`].post;
    const ref = op.requestBody.content['application/json'].schema.$ref as string;
    expect(doc.components.schemas[ref.split('/').pop()!]).toEqual(withFilterSpellings(def.requestSchema));
    const resRef = op.responses['200'].content['application/json'].schema.$ref as string;
    expect(doc.components.schemas[resRef.split('/').pop()!]).toEqual(def.responseSchema);
  }
});

it('every data operation documents its auth, quota and problem responses', () => {
  for (const def of ENDPOINTS) {
    const op = doc.paths[`${V1}${def.path}`].post;
    expect(op.operationId).toBeTruthy();
    // Plus the statuses of the endpoint's own problems (max-pain's 422s).
    const own = (def.problems ?? []).map((c) => String(PROBLEM_TYPES[c].status));
    expect(Object.keys(op.responses).sort()).toEqual([...new Set(['200', '400', '401', '405', '413', '415', '429', '500', '503', ...own])].sort());
    expect(Object.keys(op.responses['200'].headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id']),
    );
    expect(Object.keys(op.requestBody.content['application/json'].examples).length).toBeGreaterThan(0);
  }
  expect(doc.security).toEqual([{ bearerAuth: [] }]);
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  for (const p of ['/healthz', '/readyz', '/metrics', '/v1/openapi.json', '/docs']) expect(doc.paths[p].get.security).toEqual([]);
  expect(doc.components.responses.QuotaExceeded.headers).toHaveProperty('Retry-After');
  expect(doc.components.responses.QuotaExceeded.headers).toHaveProperty('X-RateLimit-Remaining');
  expect(doc.components.schemas.Problem.properties.type.enum).toContain('/docs/problems/rate-limit-exceeded');
  expect(doc.components.responses.Unauthorized.headers).toHaveProperty('WWW-Authenticate');
});

it('every request example is accepted by the live API and every response example matches its schema', async () => {
  const schema = schemaValidator();
  for (const def of ENDPOINTS) {
    const content = doc.paths[`${V1}${def.path}`].post;
    const validate = schema(content.responses['200'].content['application/json'].schema.$ref.split('/').pop());
    for (const [name, ex] of Object.entries(content.requestBody.content['application/json'].examples as Record<string, { value: unknown }>)) {
      const res = await api.post(`${V1}${def.path}`, ex.value);
      // This stack holds no market data: an example of an endpoint whose answer needs prices may
      // get one of its documented 422s (its e2e test shows the 200 with data).
      if (res.status === 422 && (def.problems as readonly string[] | undefined)?.includes(res.json.code)) continue;
      expect({ name, status: res.status, body: res.status === 200 ? 'ok' : res.json }).toEqual({ name, status: 200, body: 'ok' });
      expect(validate(res.json) ? null : validate.errors).toBeNull();
    }
    for (const ex of Object.values(content.responses['200'].content['application/json'].examples as Record<string, { value: unknown }>)) {
      expect(validate(ex.value) ? null : validate.errors).toBeNull();
    }
  }
  const problem = schema('Problem');
  for (const r of Object.values(doc.components.responses as Record<string, any>)) {
    expect(problem(r.content['application/problem+json'].example) ? null : problem.errors).toBeNull();
  }
});

/** The four spellings of a filter naming one ticker: singular or plural key, scalar or one-element list. */
function tickerSpellings(request: Record<string, unknown>): Record<string, unknown>[] | null {
  const filter = request.filter as Record<string, unknown> | undefined;
  const key = filter && Object.keys(filter).find((k) => /^tickers?$/i.test(k));
  if (!filter || !key) return null;
  const raw = filter[key];
  const ticker = Array.isArray(raw) ? (raw.length === 1 ? raw[0] : null) : raw;
  if (typeof ticker !== 'string') return null;
  const rest = Object.fromEntries(Object.entries(filter).filter(([k]) => k !== key));
  return [{ ticker }, { ticker: [ticker] }, { tickers: ticker }, { tickers: [ticker] }].map((t) => ({ ...request, filter: { ...t, ...rest } }));
}

it('every endpoint takes its ticker under all four spellings, with the same answer', async () => {
  // The contract's alias rule for every endpoint: ticker or tickers, a scalar or a list.
  const strip = (body: any) => (body && typeof body === 'object' ? { ...body, instance: undefined, requestId: undefined } : body);
  const checked = new Set<string>();
  for (const def of ENDPOINTS) {
    if (!JSON.stringify((def.requestSchema.properties as any)?.filter ?? {}).match(/"tickers?"/)) continue;
    const examples = Object.values(def.examples).map((e) => e.request);
    const withTicker = examples.filter((r) => tickerSpellings(r));
    // An endpoint whose examples name no single ticker: its first example, filtered to one.
    for (const request of withTicker.length ? withTicker : [{ ...examples[0], filter: { ticker: 'SPY' } }]) {
      const answers = [];
      for (const body of tickerSpellings(request)!) {
        const res = await api.post(`${V1}${def.path}`, body);
        answers.push({ path: def.path, status: res.status, body: strip(res.json) });
      }
      expect(answers[0]!.status).not.toBe(400);
      for (const a of answers.slice(1)) expect(a).toEqual(answers[0]);
      checked.add(def.path);
    }
  }
  expect(checked.size).toBeGreaterThanOrEqual(17);
});

it('real responses with data match the documented schemas, whatever the projection', async () => {
  const validate = schemaValidator()('NewsArticlesResponse');
  for (const body of [
    {},
    { size: 100, includeBody: true },
    { size: 7, includes: ['ID', 'title'] },
    { size: 7, excludes: ['TICKER'] },
    { filter: { ticker: 'NOPE' } },
  ]) {
    const res = await api.post('/v1/news/tool/news-articles', body);
    expect(res.status).toBe(200);
    if (!('ticker' in ((body as { filter?: object }).filter ?? {}))) expect(res.json.data.length).toBeGreaterThan(0);
    expect(validate(res.json) ? null : validate.errors).toBeNull();
  }
});

it('real problem responses match the Problem schema', async () => {
  const validate = schemaValidator()('Problem');
  const responses = [
    await api.post('/v1/news/tool/news-articles', { size: 0 }),
    await api.post('/v1/news/tool/news-articles', '{', {}),
    await api.post('/v1/news/tool/news-articles', {}, { Authorization: 'Bearer nope' }),
    await api.post('/v1/nope', {}),
  ];
  for (const r of responses) {
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(validate(r.json) ? null : validate.errors).toBeNull();
  }
});

describe('the interactive reference at /docs', () => {
  it("loads only this server's files: no other origin in the page, a Content-Security-Policy that forbids them", async () => {
    const res = await fetch(`${api.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).toMatch(/connect-src 'self'/);
    const page = await res.text();
    expect(page).not.toMatch(/https?:\/\//);
    const refs = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']));
    for (const ref of refs) {
      const asset = await fetch(`${api.url}${ref}`);
      expect({ ref, status: asset.status }).toEqual({ ref, status: 200 });
    }
  });

  it('serves Swagger UI from node_modules and points it at this document, with the online validator off', async () => {
    const bundle = Buffer.from(await (await fetch(`${api.url}/docs/assets/swagger-ui-bundle.js`)).arrayBuffer());
    expect(bundle.equals(fs.readFileSync(require.resolve('swagger-ui-dist/swagger-ui-bundle.js')))).toBe(true);
    const init = await (await fetch(`${api.url}/docs/init.js`)).text();
    expect(init).toContain('url: "/v1/openapi.json"');
    expect(init).toContain('validatorUrl: null');
    expect(init).not.toMatch(/https?:\/\//);
    // Other files of the package (its demo index.html loads the petstore from the internet) are not served.
    expect((await fetch(`${api.url}/docs/assets/index.html`)).status).toBe(404);
    expect((await fetch(`${api.url}/docs/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
