import type { NewsArticle } from '../../ingest/sources/news-simulator';
import { testConfig } from '../support/env';
import { walkApi } from '../support/cursor-walk';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline, syntheticArticles } from '../support/pipeline';
import { expectProblem } from '../support/problem';
import { describeTableConformance } from '../support/table-conformance';
import { NEWS_FIELDS } from '../../api/fields/news';

/**
 * POST /v1/news/tool/news-articles over HTTP, against views projected from real Kafka events.
 * Every rule of the spec that applies has a test asserting the status and the problem body.
 */

const PATH = '/v1/news/tool/news-articles';
const config = testConfig('news');
const articles = syntheticArticles(400);
const T0 = articles[0].publishedTime;
let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(pipe.newsSpec, articles as never);
  const projector = pipe.newProjector();
  await projector.start();
  await pipe.waitCaughtUp(1);
  api = await startApi(config);
});

afterAll(async () => {
  await api.close();
  await pipe.close();
});

/** Reference order: publishedTime descending, then id descending. */
const byNewest = (a: NewsArticle, b: NewsArticle) => b.publishedTime - a.publishedTime || b.id - a.id;
const row = (a: NewsArticle, withBody = false) => ({
  id: a.id,
  publishedTime: a.publishedTime,
  title: a.title,
  topics: a.topics,
  tickers: a.tickers,
  body: withBody ? a.body : null,
});

const walk = (body: Record<string, unknown>) => walkApi(api, PATH, body);

describe('paging', () => {
  it('defaults to 50 rows, newest first with the id as tie-break', async () => {
    const res = await api.post(PATH, {});
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual(
      [...articles]
        .sort(byNewest)
        .slice(0, 50)
        .map((a) => row(a)),
    );
    expect(res.json.nextSearchAfter).toEqual([String(res.json.data[49].publishedTime), String(res.json.data[49].id)]);
  });

  it.each([1, 7, 50, 100])('a cursor walk with size %i returns every article exactly once, in order', async (size) => {
    const { rows, pages } = await walk({ size });
    expect(rows).toEqual([...articles].sort(byNewest).map((a) => row(a)));
    // The page size + 1 probe means a full last page already carries no cursor.
    expect(pages).toBe(Math.ceil(articles.length / size));
  });

  it('a filtered walk over a closed time window returns exactly the matching articles', async () => {
    const timeRange = { startTime: new Date(T0 + 20_000).toISOString(), endTime: new Date(T0 + 100_000).toISOString() };
    const { rows } = await walk({ size: 3, timeRange, filter: { tickers: ['msft', 'TSLA'], topic: 'M&A' } });
    const want = articles
      .filter((a) => a.publishedTime >= T0 + 20_000 && a.publishedTime < T0 + 100_000)
      .filter((a) => a.tickers.some((t) => t.ticker === 'MSFT' || t.ticker === 'TSLA') && a.topics.includes('M_AND_A'))
      .sort(byNewest);
    expect(want.length).toBeGreaterThan(3);
    expect(rows).toEqual(want.map((a) => row(a)));
  });

  it('the end is signalled only by an absent nextSearchAfter, also on a full last page', async () => {
    const res = await api.post(PATH, { size: 100, filter: { ticker: 'JPM' } });
    const jpm = articles.filter((a) => a.tickers.some((t) => t.ticker === 'JPM'));
    expect(jpm.length).toBeLessThanOrEqual(100);
    expect(res.json.data).toHaveLength(jpm.length);
    expect(res.json.nextSearchAfter).toBeUndefined();
    const exact = await api.post(PATH, { size: jpm.length, filter: { ticker: 'JPM' } });
    expect(exact.json.data).toHaveLength(jpm.length);
    expect(exact.json.nextSearchAfter).toBeUndefined();
  });

  it('an empty result has no cursor', async () => {
    const res = await api.post(PATH, { filter: { ticker: 'ZZZZ' } });
    expect(res.json).toEqual({ data: [] });
  });

  it.each([
    [{ size: 0 }, 'size'],
    [{ size: 101 }, 'size'],
    [{ size: 2.5 }, 'size'],
    [{ size: '10' }, 'size'],
    [{ searchAfter: ['1'] }, 'searchAfter'],
    [{ searchAfter: ['x', '1'] }, 'searchAfter'],
    [{ searchAfter: 'abc' }, 'searchAfter'],
    [{ sort: { field: 'ID', direction: 'ASCENDING' } }, 'sort'],
  ])('%j is a 400 naming %s', async (body, field) => {
    expectProblem(await api.post(PATH, body), 400, field);
  });
});

describe('time selectors', () => {
  it('timeRange is [startTime, endTime)', async () => {
    const start = articles[30].publishedTime;
    const end = articles[60].publishedTime;
    const { rows } = await walk({ size: 100, timeRange: { startTime: new Date(start).toISOString(), endTime: new Date(end).toISOString() } });
    expect(rows.map((r) => r.id)).toEqual(
      articles
        .filter((a) => a.publishedTime >= start && a.publishedTime < end)
        .sort(byNewest)
        .map((a) => a.id),
    );
  });

  it.each([
    [{ timeRange: { startTime: '2024-05-01T00:00:00Z' } }, 'timeRange.endTime', /required/],
    [{ timeRange: { endTime: '2024-05-01T00:00:00Z' } }, 'timeRange.startTime', /required/],
    [{ timeRange: { startTime: '2024-05-02T00:00:00Z', endTime: '2024-05-01T00:00:00Z' } }, 'timeRange', /strictly before/],
    [{ timeRange: { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-01T00:00:00Z' } }, 'timeRange', /strictly before/],
    [{ timeRange: { startTime: '2024-05-01', endTime: '2024-05-02' } }, 'timeRange.startTime', /date-time/],
    [{ sessionDate: '2024-05-01' }, 'sessionDate', /not accepted/],
    [{ snapshotTime: '2024-05-01T00:00:00Z' }, 'snapshotTime', /not accepted/],
    [{ aggregationPeriod: '1m' }, 'aggregationPeriod', /not accepted/],
  ])('%j is a 400 naming %s', async (body, field, detail) => {
    expectProblem(await api.post(PATH, body), 400, field, detail);
  });
});

describe('filters', () => {
  const ids = async (body: Record<string, unknown>) => (await walk({ size: 100, ...body })).rows.map((r) => r.id);
  const want = (pred: (a: NewsArticle) => boolean) =>
    articles
      .filter(pred)
      .sort(byNewest)
      .map((a) => a.id);

  it('tickers, topics and sentiments accept singular/plural and scalar/array, OR within, AND across', async () => {
    const expected = want((a) => a.tickers.some((t) => t.ticker === 'MSFT' || t.ticker === 'TSLA'));
    for (const filter of [{ tickers: ['MSFT', 'TSLA'] }, { ticker: ['msft', 'tsla'] }, { TICKERS: ['MSFT', 'TSLA'] }])
      expect(await ids({ filter })).toEqual(expected);
    expect(await ids({ filter: { ticker: 'MSFT' } })).toEqual(want((a) => a.tickers.some((t) => t.ticker === 'MSFT')));
    expect(await ids({ filter: { topics: ['Econ #s', 'movers & shakers'] } })).toEqual(
      want((a) => a.topics.includes('ECON_NUMBERS') || a.topics.includes('MOVERS_AND_SHAKERS')),
    );
    expect(await ids({ filter: { sentiment: 'extremely bullish', topic: 'FDA' } })).toEqual(
      want((a) => a.tickers.some((t) => t.sentiment === 'EXTREMELY_BULLISH') && a.topics.includes('FDA')),
    );
  });

  it('tickers with sentiments match a ticker carrying one of the sentiments', async () => {
    const expected = want((a) => a.tickers.some((t) => t.ticker === 'AAPL' && (t.sentiment === 'NEUTRAL' || t.sentiment === 'SLIGHTLY_BULLISH')));
    expect(expected.length).toBeGreaterThan(0);
    expect(await ids({ filter: { tickers: 'AAPL', sentiments: ['NEUTRAL', 'SLIGHTLY_BULLISH'] } })).toEqual(expected);
  });

  it('filterExpression combines with filter by AND, over BODY and SENTIMENT too', async () => {
    const expr = {
      conjunction: 'AND',
      filters: [
        { field: 'body', operation: 'EQUALS', value: 'guidance raised' },
        {
          conjunction: 'OR',
          filters: [
            { field: 'SENTIMENT', operation: '>=', value: 'MODERATELY_BULLISH' },
            { field: 'id', operation: '<', values: [10] },
          ],
        },
      ],
    };
    const expected = want(
      (a) =>
        a.tickers.some((t) => t.ticker === 'MSFT') &&
        !!a.body?.toLowerCase().includes('guidance raised') &&
        (a.tickers.some((t) => ['MODERATELY_BULLISH', 'EXTREMELY_BULLISH'].includes(t.sentiment)) || a.id < 10),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(await ids({ filter: { ticker: 'MSFT' }, filterExpression: expr })).toEqual(expected);
  });

  it('filterExpression over ids and times with values', async () => {
    const expr = {
      conjunction: 'OR',
      filters: [
        { field: 'ID', operation: '=', values: [5, 6, 7] },
        { field: 'published_time', operation: 'GREATER_THAN', value: new Date(articles[395].publishedTime).toISOString() },
      ],
    };
    expect(await ids({ filterExpression: expr })).toEqual(want((a) => [5, 6, 7].includes(a.id) || a.publishedTime > articles[395].publishedTime));
  });

  it.each([
    [{ filter: { sector: 'TECHNOLOGY' } }, 'filter.sector', /not a filter/],
    [{ filter: { ticker: 'A', tickers: ['B'] } }, 'filter.tickers', /same filter/],
    [{ filter: { topics: ['EARNINGS', 'Stonks'] } }, 'filter.topics[1]', /news topic/],
    [{ filter: { sentiments: 'HAPPY' } }, 'filter.sentiments', /sentiment/],
    [{ filter: [] }, 'filter', /object/],
    [{ filterExpression: { field: 'PRICE', operation: '=', value: 1 } }, 'filterExpression.field', /not a filterable field/],
    [{ filterExpression: { field: 'ID', operation: 'LIKE', value: 1 } }, 'filterExpression.operation', /not an operation/],
    [{ filterExpression: { conjunction: 'AND', filters: [] } }, 'filterExpression.filters', /non-empty/],
    [{ filterExpression: { field: 'TICKER', operation: '>', value: 'A' } }, 'filterExpression', /only = and !=/],
    [{ filterExpression: { field: 'ID', operation: '=', value: 1, values: [2] } }, 'filterExpression', /exactly one/],
    [{ filterExpression: 'ID = 1' }, 'filterExpression', /object/],
  ])('%j is a 400 naming %s', async (body, field, detail) => {
    expectProblem(await api.post(PATH, body), 400, field, detail);
  });
});

describe('projection and body', () => {
  it('body is null unless includeBody is true', async () => {
    const plain = await api.post(PATH, { size: 20 });
    expect(plain.json.data.every((r: any) => r.body === null)).toBe(true);
    const withBody = await api.post(PATH, { size: 20, includeBody: true });
    expect(withBody.json.data).toEqual(
      [...articles]
        .sort(byNewest)
        .slice(0, 20)
        .map((a) => row(a, true)),
    );
    expect(withBody.json.data.some((r: any) => typeof r.body === 'string')).toBe(true);
  });

  it('includes keep only the named fields; excludes drop them', async () => {
    const inc = await api.post(PATH, { size: 2, includes: ['ID', 'published time'] });
    expect(Object.keys(inc.json.data[0]).sort()).toEqual(['body', 'id', 'publishedTime']);
    const exc = await api.post(PATH, { size: 2, excludes: ['TICKER', 'topics'] });
    expect(Object.keys(exc.json.data[0]).sort()).toEqual(['body', 'id', 'publishedTime', 'title']);
  });

  it.each([
    [{ includes: ['ID'], excludes: ['TITLE'] }, 'includes', /mutually exclusive/],
    [{ includes: ['BODY'] }, 'includes[0]', /not projectable/],
    [{ excludes: ['ID', 'SENTIMENT'] }, 'excludes[1]', /not projectable/],
    [{ includes: ['PRICE'] }, 'includes[0]', /not a projection name/],
    [{ includeBody: 'yes' }, 'includeBody', /boolean/],
    [{ unknownField: 1 }, 'unknownField', /not accepted/],
  ])('%j is a 400 naming %s', async (body, field, detail) => {
    expectProblem(await api.post(PATH, body), 400, field, detail);
  });
});

describe('authentication and HTTP errors', () => {
  const raw = (init: RequestInit & { path?: string }) => fetch(`${api.url}${init.path ?? PATH}`, { method: 'POST', ...init });

  it.each([
    ['missing', undefined, /Missing Authorization/],
    ['not Bearer', 'Basic abc', /Bearer scheme/],
    ['malformed', 'Bearer short', /malformed, unknown or revoked/],
    ['unknown', `Bearer mdq_${'a'.repeat(31)}`, /malformed, unknown or revoked/],
  ])('a %s key is a 401 problem with WWW-Authenticate', async (_what, auth, detail) => {
    const res = await raw({ headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth } : {}) }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = (await res.json()) as { detail: string };
    expect(body).toMatchObject({ type: '/docs/problems/authentication', status: 401, category: 'authentication', code: 'Unauthorized' });
    expect(body.detail).toMatch(detail);
  });

  it('a revoked key is refused', async () => {
    const { key, record } = await api.store.create({ workspace: 'w', user: 'u', label: 'temp' });
    expect((await api.post(PATH, { size: 1 }, { Authorization: `Bearer ${key}` })).status).toBe(200);
    await api.store.revoke(record.id);
    expect((await api.post(PATH, { size: 1 }, { Authorization: `Bearer ${key}` })).status).toBe(401);
  });

  it('keys are 35 characters with the vendor prefix', () => {
    expect(api.key).toMatch(/^mdq_[A-Za-z0-9]{31}$/);
  });

  it('malformed JSON is a 400 problem', async () => {
    const res = await api.post(PATH, '{"size": ');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'ValidationFailure', category: 'validation' });
    expect(res.json.detail).toMatch(/malformed JSON/);
  });

  it('a non-object body is a 400 problem', async () => {
    expectProblem(await api.post(PATH, '[1,2]'), 400, 'body', /object/);
  });

  it('a body that is not JSON is a 415 problem', async () => {
    const res = await raw({ headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'text/plain' }, body: 'size=1' });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ status: 415, code: 'UnsupportedMediaType' });
  });

  it('a body over 64 KiB is a 413 problem', async () => {
    const res = await api.post(PATH, { filter: { tickers: Array.from({ length: 20_000 }, () => 'AAPL') } });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ status: 413, code: 'PayloadTooLarge' });
  });

  it('an unknown route is a 404 problem; a wrong method a 405 with Allow', async () => {
    const nf = await api.post('/v1/news/tool/nope', {});
    expect(nf.status).toBe(404);
    expect(nf.json).toMatchObject({
      type: '/docs/problems/bad-request',
      status: 404,
      category: 'bad-request',
      code: 'NotFound',
      instance: '/v1/news/tool/nope',
    });
    const get = await fetch(`${api.url}${PATH}`, { headers: { Authorization: `Bearer ${api.key}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('an empty body is the default request', async () => {
    const res = await raw({ headers: { Authorization: `Bearer ${api.key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(50);
  });

  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const res = await api.post(PATH, { size: 0 }, { 'X-Request-Id': 'abc-123' });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    expect(res.json.requestId).toBe('abc-123');
    expect(res.json.instance).toBe(PATH);
    const gen = await api.post(PATH, { size: 1 }, { 'X-Request-Id': 'bad id with spaces' });
    expect(gen.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/** The answer to a body by brute force: every article, newest first, projected (body stays, null). */
function newsOracle(body: Record<string, unknown>): Record<string, unknown>[] {
  const KEYS: Record<string, string> = { ID: 'id', PUBLISHED_TIME: 'publishedTime', TITLE: 'title', TICKER: 'tickers', TOPICS: 'topics' };
  const includes = (body.includes as string[] | undefined)?.map((n) => KEYS[n]);
  const excludes = (body.excludes as string[] | undefined)?.map((n) => KEYS[n]) ?? [];
  return [...articles].sort(byNewest).map((a) => {
    const r: Record<string, unknown> = row(a);
    for (const k of Object.values(KEYS)) if ((includes && !includes.includes(k)) || excludes.includes(k)) delete r[k];
    return r;
  });
}

describeTableConformance('news-articles', () => ({
  path: PATH,
  api: () => api,
  fields: NEWS_FIELDS,
  maxSize: 100,
  base: {},
  oracle: newsOracle,
  sortable: false,
}));
