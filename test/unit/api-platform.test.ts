import os from 'os';
import { Registry } from 'prom-client';
import { Problem, invalid, methodNotAllowed, unauthorized } from '../../api/request/problem';
import { PROBLEM_CATEGORIES, PROBLEM_TYPES, ProblemCode, problemTypeUri } from '../../api/request/problem-types';
import { rateLimitHeaders } from '../../api/request/rate-limit-headers';
import { ceilSeconds, windowDecision } from '../../api/request/sliding-window';
import { loadApiSettings } from '../../api/settings';
import { ProjectorMetrics } from '../../services/metrics/projector';

describe('the problem catalog', () => {
  const codes = Object.keys(PROBLEM_TYPES) as ProblemCode[];

  it("types each code by the vendor's category under the documentation", () => {
    expect(problemTypeUri('QuotaExceeded')).toBe('/docs/problems/rate-limit-exceeded');
    expect(problemTypeUri('StartSessionStockPricesUnavailable')).toBe('/docs/problems/data-unavailable');
    expect(problemTypeUri('NotFound')).toBe('/docs/problems/bad-request');
    expect(problemTypeUri('LevelsUnavailable')).toBe('/docs/problems/internal');
  });

  it("uses only the vendor's categories, each with a fixed title", () => {
    expect(Object.keys(PROBLEM_CATEGORIES)).toEqual([
      'validation',
      'bad-request',
      'authentication',
      'authorization',
      'data-unavailable',
      'rate-limit-exceeded',
      'internal',
    ]);
    expect(PROBLEM_CATEGORIES.validation.title).toBe('Validation Failed');
    expect(PROBLEM_CATEGORIES['rate-limit-exceeded'].title).toBe('Rate Limit Exceeded');
    expect(PROBLEM_TYPES.QuotaExceeded).toMatchObject({ status: 429, category: 'rate-limit-exceeded' });
    expect(PROBLEM_TYPES.Unauthorized).toMatchObject({ status: 401, category: 'authentication' });
    expect(PROBLEM_TYPES.StockPriceNotFound).toMatchObject({ status: 422, category: 'data-unavailable' });
    for (const c of codes) if (PROBLEM_TYPES[c].status >= 500) expect(PROBLEM_TYPES[c].category).toBe('internal');
  });

  it('builds bodies with every member, the path as instance, the request id, and the headers the type needs', () => {
    const p = invalid('filter.tickers[2]', 'is not a ticker');
    expect(p.body('/v1/news/tool/news-articles', 'req-1')).toEqual({
      type: '/docs/problems/validation',
      title: 'Validation Failed',
      status: 400,
      detail: 'filter.tickers[2]: is not a ticker',
      category: 'validation',
      code: 'ValidationFailure',
      instance: '/v1/news/tool/news-articles',
      requestId: 'req-1',
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
      quota: { perUser: 240, perAddress: 60, windowMs: 60_000, burstPerUser: 20, burstWindowMs: 1_000 },
      trustProxy: false,
      redisAutoPipeline: true,
      responseCacheBytes: 64 * 2 ** 20,
      workers: os.availableParallelism(),
    });
  });

  it('MDQ_API_WORKERS: one worker process per core by default; 1 to 64 accepted, anything else refused', () => {
    expect(loadApiSettings({ MDQ_API_WORKERS: '1' }).workers).toBe(1);
    expect(loadApiSettings({ MDQ_API_WORKERS: '8' }).workers).toBe(8);
    for (const v of ['0', '65', '1.5', 'all']) expect(() => loadApiSettings({ MDQ_API_WORKERS: v })).toThrow(/MDQ_API_WORKERS must be an integer from 1 to 64/);
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

  it('reads MDQ_RATE_LIMIT_PER_MINUTE, MDQ_ANON_RATE_LIMIT_PER_MINUTE, MDQ_RATE_LIMIT_WINDOW_MS, MDQ_BURST_LIMIT_PER_SECOND and TRUST_PROXY', () => {
    const s = loadApiSettings({
      MDQ_RATE_LIMIT_PER_MINUTE: '1000',
      MDQ_ANON_RATE_LIMIT_PER_MINUTE: '5',
      MDQ_RATE_LIMIT_WINDOW_MS: '3000',
      MDQ_BURST_LIMIT_PER_SECOND: '0',
      TRUST_PROXY: '1',
    });
    expect(s.quota).toEqual({ perUser: 1000, perAddress: 5, windowMs: 3_000, burstPerUser: 0, burstWindowMs: 1_000 });
    expect(() => loadApiSettings({ MDQ_BURST_LIMIT_PER_SECOND: '-1' })).toThrow(/MDQ_BURST_LIMIT_PER_SECOND must be an integer, 0 \(off\) or more/);
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

describe('the quota kit', () => {
  it('reads the sliding-window script reply: which rule refused, how many are counted, microseconds to wait and to refill', () => {
    expect(windowDecision([0, 7, 0, 59_000_000])).toEqual({ refusedBy: null, used: 7, retryUs: 0, resetUs: 59_000_000 });
    expect(windowDecision([1, 240, 2_500_000, 59_900_000])).toMatchObject({ refusedBy: 'window', retryUs: 2_500_000 });
    expect(windowDecision([2, 20, 400_000, 60_000_000])).toMatchObject({ refusedBy: 'burst', retryUs: 400_000 });
  });

  it('rounds waits up to whole seconds, never 0 for a refusal', () => {
    expect(ceilSeconds(1)).toBe(1);
    expect(ceilSeconds(2_000_000)).toBe(2);
    expect(ceilSeconds(2_000_001)).toBe(3);
    expect(ceilSeconds(0)).toBe(0);
    expect(ceilSeconds(0, 1)).toBe(1);
  });

  it("writes the vendor's X-RateLimit trio and the IETF draft-08 fields from one state", () => {
    const h = rateLimitHeaders({ policy: 'per-user', partition: 'alice', limit: 240, windowSeconds: 60, remaining: 217, resetSeconds: 47 });
    expect(h).toMatchObject({
      'X-RateLimit-Limit': '240',
      'X-RateLimit-Remaining': '217',
      'X-RateLimit-Reset': '47',
      RateLimit: '"per-user"; r=217; t=47',
    });
    expect(h['RateLimit-Policy']).toMatch(/^"per-user"; q=240; w=60; pk=:[A-Za-z0-9+/]+=*:$/);
    expect(h['RateLimit-Policy']).not.toContain('alice');
  });
});
