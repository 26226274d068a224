import type { ChildProcess } from 'child_process';
import { freePort } from '../../services/stack/process';
import { testConfig, waitFor } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { configEnv, openPipeline, spawnTs, syntheticArticles, TestPipeline } from '../support/pipeline';
import { SpawnedApi, spawnApi } from '../support/raw-http';

/**
 * Operations endpoints over HTTP: /healthz, /readyz (Redis and the served views), /metrics of the
 * API (requests, latency, problems, process) and of a projector process (applied offsets, lag).
 * No key is needed for any of them and none of them exposes data.
 */

const config = testConfig('ops');
let pipe: TestPipeline;
let api: TestApi;
let spawned: SpawnedApi | undefined;
let projector: (ChildProcess & { output: () => string }) | undefined;
let projectorUrl = '';

/** Messages applied over all partitions (offsets are 0-based) and the summed lag, from projector metrics. */
const series = (text: string, name: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .map((l) => Number(l.split(' ').pop()));
const appliedTotal = (text: string) => series(text, 'mdq_projector_applied_offset').reduce((n, v) => n + v + 1, 0);
const lagTotal = (text: string) => series(text, 'mdq_projector_lag_messages').reduce((n, v) => n + v, 0);

beforeAll(async () => {
  pipe = await openPipeline(config);
  api = await startApi(config, { owner: { workspace: 'ops-workspace', user: 'ops-private-user' } });
});

afterAll(async () => {
  if (projector && projector.exitCode === null) {
    const done = new Promise((r) => projector!.once('exit', r));
    projector.kill('SIGTERM');
    await done;
  }
  await spawned?.stop();
  await api.close();
  await pipe.close();
});

const get = async (path: string, base = api.url) => {
  const res = await fetch(`${base}${path}`);
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, text, json };
};

/** The value of one exposition line, e.g. metric('mdq_x{a="b"}'). */
const metric = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

it('/healthz: alive, no key needed', async () => {
  const res = await get('/healthz');
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ status: 'ok' });
  expect(res.headers.get('x-request-id')).toBeTruthy();
});

describe('/readyz and the projector process', () => {
  it('is a 503 NotReady problem naming the view while no projector has built it', async () => {
    const res = await get('/readyz');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.json).toMatchObject({
      type: '/docs/problems/not-ready',
      status: 503,
      category: 'unavailable',
      code: 'NotReady',
      checks: { redis: 'ok', views: { 'order-flow-consolidated': 'missing', 'order-flow-prints': 'missing', news: 'missing', 'flow-aggregates': 'missing' } },
    });
    expect(res.json.detail).toMatch(/views order-flow-consolidated, order-flow-prints, news, flow-aggregates not built yet/);
  });

  it("a projector process of two threads (METRICS_PORT) builds the view; /readyz turns 200 and the threads' summed metrics report every offset applied once and zero lag", async () => {
    const articles = syntheticArticles(120);
    await pipe.producer.send(pipe.newsSpec, articles as never);
    const port = await freePort();
    projector = spawnTs('projections/main.ts', [], { ...configEnv(config), METRICS_PORT: String(port), MDQ_PROJECTOR_THREADS: '2' });
    const ready = await waitFor(
      'readyz to turn 200',
      async () => {
        const r = await get('/readyz');
        return r.status === 200 ? r : null;
      },
      90_000,
      250,
    );
    expect(ready.json).toEqual({
      status: 'ready',
      checks: { redis: 'ok', views: { 'order-flow-consolidated': 1, 'order-flow-prints': 1, news: 1, 'flow-aggregates': 1 } },
    });

    // Every message applied: per partition, applied offset = high watermark - 1 and lag 0.
    projectorUrl = `http://127.0.0.1:${port}`;
    const projectorMetrics = await waitFor(
      'the projector to report every message applied',
      async () => {
        const r = await get('/metrics', projectorUrl).catch(() => null);
        return r?.status === 200 && appliedTotal(r.text) === articles.length ? r.text : null;
      },
      60_000,
      250,
    );
    expect(projectorMetrics).toMatch(/^# TYPE mdq_projector_lag_messages gauge$/m);
    const lags = projectorMetrics.split('\n').filter((l) => l.startsWith('mdq_projector_lag_messages{'));
    expect(lags.length).toBeGreaterThan(0);
    for (const l of lags) {
      expect(l).toMatch(
        new RegExp(`^mdq_projector_lag_messages\\{view="news",version="1",topic="${pipe.newsTopic.replace(/\./g, '\\.')}",partition="\\d+"\\} 0$`),
      );
    }
    expect(projectorMetrics).toMatch(/^process_resident_memory_bytes \d+/m);
    expect((await get('/anything-else', projectorUrl)).status).toBe(404);
  });

  it('the projector metrics follow new messages', async () => {
    const more = syntheticArticles(150)
      .slice(120)
      .map((a) => ({ ...a, id: a.id + 10_000 }));
    await pipe.producer.send(pipe.newsSpec, more as never);
    await waitFor(
      'the projector to report the new messages applied',
      async () => {
        const r = await get('/metrics', projectorUrl).catch(() => null);
        return r?.status === 200 && appliedTotal(r.text) === 150 && lagTotal(r.text) === 0;
      },
      60_000,
      250,
    );
  });
});

describe('/metrics of the API', () => {
  it('counts requests and latency per endpoint, method and status, and problems per type, without exposing who asked', async () => {
    for (let i = 0; i < 3; i++) expect((await api.post('/v1/news/tool/news-articles', { size: 1 })).status).toBe(200);
    expect((await api.post('/v1/news/tool/news-articles', { size: 0 })).status).toBe(400);
    expect((await get('/random/a1b2c3d4')).status).toBe(404);
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = res.text;
    const ok = 'endpoint="/v1/news/tool/news-articles",method="POST",status="200"';
    expect(metric(m, `mdq_http_requests_total{${ok}}`)).toBe(3);
    expect(metric(m, `mdq_http_request_duration_seconds_count{${ok}}`)).toBe(3);
    expect(metric(m, `mdq_http_request_duration_seconds_bucket{le="+Inf",${ok}}`)).toBe(3);
    expect(metric(m, `mdq_http_request_duration_seconds_sum{${ok}}`)).toBeGreaterThan(0);
    expect(metric(m, 'mdq_http_requests_total{endpoint="/v1/news/tool/news-articles",method="POST",status="400"}')).toBe(1);
    expect(metric(m, 'mdq_problems_total{type="ValidationFailure",status="400"}')).toBe(1);
    expect(metric(m, 'mdq_problems_total{type="NotFound",status="404"}')).toBe(1);
    // Unknown paths share one label value, so a scan cannot multiply the series.
    expect(metric(m, 'mdq_http_requests_total{endpoint="unmatched",method="GET",status="404"}')).toBe(1);
    expect(m).not.toContain('a1b2c3d4');
    // No data and no identity: not the user, the workspace or the key.
    expect(m).not.toContain('ops-private-user');
    expect(m).not.toContain('ops-workspace');
    expect(m).not.toContain(api.key);
  });

  it('an api/main.ts process adds the process metrics (memory, heap, event loop) to its /metrics', async () => {
    spawned = await spawnApi(config);
    const m = (await get('/metrics', spawned.url)).text;
    for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'mdq_http_requests_total']) {
      expect(m).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? [0-9.e+-]+$`, 'm'));
    }
  });
});
