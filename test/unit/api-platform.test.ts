import { Registry } from 'prom-client';
import { Problem, invalid, methodNotAllowed, unauthorized } from '../../api/request/problem';
import { PROBLEM_TYPES, ProblemCode, problemCodeBySlug, problemSlug, problemTypeUri } from '../../api/request/problem-types';
import { loadApiSettings } from '../../api/settings';
import { ProjectorMetrics } from '../../services/metrics/projector';

describe('the problem catalog', () => {
  const codes = Object.keys(PROBLEM_TYPES) as ProblemCode[];

  it('gives every type a distinct slug and a type URI under the documentation', () => {
    expect(new Set(codes.map(problemSlug)).size).toBe(codes.length);
    expect(problemTypeUri('QuotaExceeded')).toBe('/docs/problems/quota-exceeded');
    expect(problemTypeUri('StartSessionStockPricesUnavailable')).toBe('/docs/problems/start-session-stock-prices-unavailable');
    for (const c of codes) expect(problemCodeBySlug(problemSlug(c))).toBe(c);
    expect(problemCodeBySlug('nope')).toBeUndefined();
  });

  it('uses only the categories of the issue, each for its statuses', () => {
    const allowed = ['validation', 'data-unavailable', 'auth', 'quota', 'not-found', 'internal', 'unavailable'];
    for (const c of codes) expect(allowed).toContain(PROBLEM_TYPES[c].category);
    expect(PROBLEM_TYPES.QuotaExceeded).toMatchObject({ status: 429, category: 'quota' });
    expect(PROBLEM_TYPES.Unauthorized).toMatchObject({ status: 401, category: 'auth' });
    expect(PROBLEM_TYPES.StockPriceNotFound).toMatchObject({ status: 422, category: 'data-unavailable' });
  });

  it('builds bodies with every member, the request id as instance, and the headers the type needs', () => {
    const p = invalid('filter.tickers[2]', 'is not a ticker');
    expect(p.body('req-1')).toEqual({
      type: '/docs/problems/validation-failure',
      title: 'Validation failure',
      status: 400,
      detail: 'filter.tickers[2]: is not a ticker',
      category: 'validation',
      code: 'ValidationFailure',
      instance: 'req-1',
      errors: [{ field: 'filter.tickers[2]', message: 'is not a ticker' }],
    });
    expect(unauthorized('x').headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="mdq"' });
    expect(methodNotAllowed('/v1/x', ['GET', 'HEAD']).headers).toEqual({ Allow: 'GET, HEAD' });
    expect(new Problem('NotReady', 'd', { extensions: { checks: { redis: 'ok' } } }).body()).toMatchObject({ checks: { redis: 'ok' } });
  });
});

describe('API settings from the environment', () => {
  it('defaults to the spec quota: 240 per user and 60 per address a minute, no trusted proxy', () => {
    expect(loadApiSettings({})).toEqual({
      quota: { perUser: 240, perAddress: 60, windowMs: 60_000 },
      trustProxy: false,
      redisAutoPipeline: true,
      responseCacheBytes: 64 * 2 ** 20,
    });
  });

  it('MDQ_API_CACHE_MB sizes the response cache; 0 turns it off; anything but a number of MiB is refused', () => {
    expect(loadApiSettings({ MDQ_API_CACHE_MB: '0' }).responseCacheBytes).toBe(0);
    expect(loadApiSettings({ MDQ_API_CACHE_MB: '1.5' }).responseCacheBytes).toBe(1.5 * 2 ** 20);
    for (const v of ['-1', 'lots']) expect(() => loadApiSettings({ MDQ_API_CACHE_MB: v })).toThrow(/MDQ_API_CACHE_MB must be a number of MiB/);
  });

  it("MDQ_REDIS_AUTOPIPELINE=0 (or false) turns the Redis client's auto-pipelining off", () => {
    expect(loadApiSettings({ MDQ_REDIS_AUTOPIPELINE: '0' }).redisAutoPipeline).toBe(false);
    expect(loadApiSettings({ MDQ_REDIS_AUTOPIPELINE: 'false' }).redisAutoPipeline).toBe(false);
    expect(loadApiSettings({ MDQ_REDIS_AUTOPIPELINE: '1' }).redisAutoPipeline).toBe(true);
  });

  it('reads MDQ_RATE_LIMIT_PER_MINUTE, MDQ_ANON_RATE_LIMIT_PER_MINUTE and TRUST_PROXY', () => {
    const s = loadApiSettings({ MDQ_RATE_LIMIT_PER_MINUTE: '1000', MDQ_ANON_RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY: '1' });
    expect(s.quota).toEqual({ perUser: 1000, perAddress: 5, windowMs: 60_000 });
    expect(s.trustProxy).toBe(1);
    expect(loadApiSettings({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(loadApiSettings({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it.each(['0', '-1', '2.5', 'many'])('refuses MDQ_RATE_LIMIT_PER_MINUTE=%s', (v) => {
    expect(() => loadApiSettings({ MDQ_RATE_LIMIT_PER_MINUTE: v })).toThrow(/MDQ_RATE_LIMIT_PER_MINUTE must be a positive integer/);
  });
});

describe('projector metrics', () => {
  it('report the applied offset and the lag behind the high watermark, and forget a stopped version', async () => {
    const registry = new Registry();
    const m = ProjectorMetrics.for(registry);
    expect(ProjectorMetrics.for(registry)).toBe(m);
    m.observe({ view: 'news', version: 1, topic: 'news.articles', partition: 3 }, 41, 50);
    m.observe({ view: 'news', version: 2, topic: 'news.articles', partition: 3 }, -1, 50);
    let text = await registry.metrics();
    expect(text).toContain('mdq_projector_applied_offset{view="news",version="1",topic="news.articles",partition="3"} 41');
    expect(text).toContain('mdq_projector_lag_messages{view="news",version="1",topic="news.articles",partition="3"} 8');
    expect(text).toContain('mdq_projector_lag_messages{view="news",version="2",topic="news.articles",partition="3"} 50');
    m.observe({ view: 'news', version: 1, topic: 'news.articles', partition: 3 }, 49, 50);
    m.forget('news', 2);
    text = await registry.metrics();
    expect(text).toContain('mdq_projector_lag_messages{view="news",version="1",topic="news.articles",partition="3"} 0');
    expect(text).not.toContain('version="2"');
  });

  it("keeps only the assigned partitions' series after a group join (another member reports the others)", async () => {
    const registry = new Registry();
    const m = ProjectorMetrics.for(registry);
    for (const partition of [0, 1, 2]) m.observe({ view: 'news', version: 1, topic: 'news.articles', partition }, 10 + partition, 20);
    m.observe({ view: 'news', version: 2, topic: 'news.articles', partition: 1 }, 5, 20);
    m.keepOnly('news', 1, { 'news.articles': [1], other: [0] });
    const text = await registry.metrics();
    const applied = text.split('\n').filter((l) => l.startsWith('mdq_projector_applied_offset{'));
    expect(applied.sort()).toEqual([
      'mdq_projector_applied_offset{view="news",version="1",topic="news.articles",partition="1"} 11',
      'mdq_projector_applied_offset{view="news",version="2",topic="news.articles",partition="1"} 5',
    ]);
    expect(text.split('\n').filter((l) => l.startsWith('mdq_projector_lag_messages{'))).toHaveLength(2);
    // A partition assigned again is reported again.
    m.observe({ view: 'news', version: 1, topic: 'news.articles', partition: 0 }, 19, 20);
    expect(await registry.metrics()).toContain('mdq_projector_lag_messages{view="news",version="1",topic="news.articles",partition="0"} 0');
  });
});
