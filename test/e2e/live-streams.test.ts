import { execFileSync } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import type { Admin } from 'kafkajs';
import { caughtUp, servedVersion, viewLag } from '../../projections/runtime/versions';
import { topicFor, topicName } from '../../schemas/catalog';
import { sessionDateOf } from '../../services/domain/calendar';
import { createKafka } from '../../services/kafka/clients';
import { createRedis } from '../../services/redis/client';
import { feedKey } from '../../services/views/feed';
import { PartitionKeys } from '../../services/views/keys';
import { decodePosition } from '../../api/streams/position';
import { testConfig, waitFor } from '../support/env';
import { walkApi } from '../support/cursor-walk';
import { TestApi, startApi } from '../support/http';
import { configEnv, provisionTestTopics, spawnTs } from '../support/pipeline';
import { openSse, type SseConnection, type SseEvent } from '../support/sse-client';

/**
 * Push streams and the console against a live session: the simulated market (`mini` profile)
 * played by the ingest worker through Kafka, the order-flow processor and every projector, read
 * by two API instances. Resuming clients disconnect at random points, reconnect to either API
 * with Last-Event-ID (one view is rebuilt into a new version meanwhile) and must end with exactly
 * the rows the REST endpoints page through; the console is driven in headless Chromium.
 */

const config = testConfig('streams');
const env = { ...configEnv(config), MDQ_PROFILE: 'mini' };
const PREV = '2026-11-19';
const D = '2026-11-20';
const SPEED = 200;
const SCREENSHOT = path.join(__dirname, '..', '..', 'test-output', 'console.png');

const TAPES = [
  {
    name: 'unconsolidated',
    view: 'order-flow-prints',
    path: '/options/tool/order-flow/unconsolidated',
    body: { filter: { tickers: ['AAPL', 'XOM'] }, filterExpression: { field: 'SIZE', operation: '>=', value: 2 } },
    rest: { sessionDate: D },
    sessionOf: (r: any) => sessionDateOf(r.tradeTime),
  },
  {
    name: 'consolidated',
    view: 'order-flow-consolidated',
    path: '/options/tool/order-flow/consolidated',
    body: {},
    rest: { sessionDate: D },
    sessionOf: (r: any) => sessionDateOf(r.tradeTime),
  },
  {
    name: 'equity prints',
    view: 'equity-prints',
    path: '/equities/tool/equity-prints',
    body: { filter: { tickers: ['AAPL', 'GME'] } },
    rest: { sessionDate: D },
    sessionOf: (r: any) => sessionDateOf(r.tradeTime),
  },
  {
    name: 'exchange notifications',
    view: 'exchange-notifications',
    path: '/equities/tool/exchange-notifications',
    body: {},
    // Both sessions (the previous one's daily tier has notices too): REST by a window over both.
    rest: { timeRange: { startTime: `${PREV}T00:00:00Z`, endTime: '2026-11-21T12:00:00Z' } },
    sessionOf: null,
  },
  { name: 'news', view: 'news', path: '/news/tool/news-articles', body: {}, rest: {}, sessionOf: null },
] as const;

/** A small seeded generator, so a failing run can be repeated (the seed is in the failure). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const SEED = Number(process.env.STREAM_TEST_SEED ?? Date.now() % 100_000);

/**
 * Follows a stream and drops the connection at random points (after a random number of events or
 * a random time), then resumes with the last id it saw, on one of the APIs at random.
 */
class ResumingClient {
  readonly rows: any[] = [];
  readonly ids = new Set<string>();
  /** What went wrong inside the event handler (asserted by the test: a throw there would escape it). */
  readonly errors: string[] = [];
  lastId: string | null = null;
  reconnects = 0;
  private stopped = false;
  private conn: SseConnection | null = null;
  readonly done: Promise<void>;

  constructor(
    private readonly urls: string[],
    private readonly key: string,
    private readonly path: string,
    private readonly body: Record<string, unknown>,
    private readonly rand: () => number,
  ) {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const url = this.urls[Math.floor(this.rand() * this.urls.length)];
      const budget = 1 + Math.floor(this.rand() * 400);
      let seen = 0;
      // Events may arrive before openSse resolves: the budget is checked against a late-bound connection.
      let conn: SseConnection | null = null;
      let closeSoon = false;
      conn = await openSse(`${url}/v1/stream${this.path}`, {
        key: this.key,
        body: { ...this.body, from: 'earliest' },
        lastEventId: this.lastId,
        onEvent: (e: SseEvent) => {
          if (e.event === 'gap' || e.event === 'end') this.errors.push(`unexpected ${e.event} event on ${this.path}: ${e.data}`);
          if (e.id !== null) this.lastId = e.id;
          if (e.event === 'row') {
            // An event is never delivered twice: its id (the position after it) is unique.
            if (this.ids.has(e.id!)) this.errors.push(`event ${e.id} delivered twice on ${this.path}`);
            this.ids.add(e.id!);
            this.rows.push(JSON.parse(e.data));
            if (++seen >= budget) {
              if (conn) conn.close();
              else closeSoon = true;
            }
          }
        },
      });
      if (conn.status !== 200) {
        this.errors.push(`stream refused: ${conn.status} ${JSON.stringify(conn.refusal)}`);
        return;
      }
      this.conn = conn;
      if (closeSoon) conn.close();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([conn.ended, new Promise((r) => (timer = setTimeout(r, 100 + this.rand() * 2_000)))]);
      clearTimeout(timer);
      conn.close();
      this.reconnects++;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.conn?.close();
    await this.done;
  }
}

let admin: Admin;
let apiA: TestApi;
let apiB: TestApi;
const children: ReturnType<typeof spawnTs>[] = [];
let live: ReturnType<typeof spawnTs>;
let liveEnded: Promise<number | null>;
let rebuild: ReturnType<typeof spawnTs> | null = null;
let rebuildTimer: NodeJS.Timeout | undefined;
const clients: ResumingClient[] = [];
const views = createRedis(config.viewsRedisUrl);

function cli(args: string[]): Promise<number | null> {
  const child = spawnTs('ingest/cli.ts', [...args, '--profile', 'mini'], env);
  children.push(child);
  return new Promise((r) => child.once('exit', r));
}

beforeAll(async () => {
  await provisionTestTopics(config);
  admin = createKafka(config, 'mdq-test').admin();
  await admin.connect();
  children.push(spawnTs('ingest/worker.ts', [], env), spawnTs('projections/order-flow-processor/main.ts', [], env), spawnTs('projections/main.ts', [], env));
  expect(await cli(['reference'])).toBe(0);
  // The previous session's daily tier: closes for the market map, a history for the charts.
  expect(await cli(['backfill', '--from', PREV, '--to', PREV])).toBe(0);
  const streams = { perUser: 50 };
  [apiA, apiB] = await Promise.all([startApi(config, { streams }), startApi(config, { streams })]);
  const rand = lcg(SEED);
  for (const t of TAPES) clients.push(new ResumingClient([apiA.url, apiB.url], apiA.key, t.path, t.body, rand));
  live = spawnTs('ingest/cli.ts', ['live', '--date', D, '--speed', String(SPEED), '--profile', 'mini'], env);
  liveEnded = new Promise((r) => live.once('exit', r));
  // A rebuild of one view while the session plays: streams must go on across the version flip.
  rebuildTimer = setTimeout(() => {
    rebuild = spawnTs('projections/main.ts', ['rebuild', 'equity-prints'], env);
  }, 25_000);
}, 300_000);

afterAll(async () => {
  clearTimeout(rebuildTimer);
  for (const c of clients) await c.stop().catch(() => undefined);
  for (const c of [...children, live, rebuild]) c?.kill('SIGTERM');
  await Promise.all([apiA?.close(), apiB?.close()]);
  await admin?.disconnect();
  views.disconnect();
});

describe('console in headless Chromium', () => {
  it('signs in with a key, the tape grows during the session, charts render, a screenshot is written', async () => {
    const chromium = ensureChromium();
    const { chromium: launcher } = await import('playwright-core');
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-chromium-'));
    // A fresh profile (playwright passes it as --user-data-dir) and the flags this closed network needs.
    const browser = await launcher.launchPersistentContext(profile, {
      executablePath: chromium,
      headless: true,
      viewport: { width: 1400, height: 1000 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${apiA.url}/console`);
      await page.fill('#key', apiA.key);
      await page.click('#signin button');
      await page.fill('#tickers', '');
      await page.fill('#chartTicker', 'AAPL');
      const rows = async () => Number((await page.getAttribute('#tapeTable tbody', 'data-rows')) ?? 0);
      const first = await waitFor('the tape to show rows', async () => (await rows()) > 0 && rows(), 120_000, 250);
      // Rows keep arriving while the session plays, over the stream.
      await waitFor('the tape to grow', async () => (await rows()) >= first + 20, 60_000, 250);
      expect(await page.textContent('#status')).toBe('live');
      const points = async (id: string) => Number((await page.getAttribute(`#${id}`, 'data-points')) ?? 0);
      await waitFor('the net flow chart to draw', async () => (await points('netFlow')) > 0, 60_000, 500);
      expect(await page.locator('#netFlow polyline').count()).toBeGreaterThan(0);
      await waitFor('the market map to draw', async () => (await points('marketMap')) > 0, 30_000, 500);
      expect(await page.locator('#marketMap rect').count()).toBeGreaterThan(0);
      const before = await points('netFlow');
      // The net-flow chart moves with the session: more buckets as the session clock advances.
      await waitFor('the net flow chart to move', async () => (await points('netFlow')) > before, 60_000, 500);
      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    } finally {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('resumable streams', () => {
  it('clients that disconnect at random points end with exactly the rows of the REST endpoints', async () => {
    expect(await liveEnded).toBe(0);
    await waitFor('the rebuild of equity-prints to flip', async () => rebuild !== null && rebuild.exitCode !== null, 120_000, 500);
    expect(rebuild!.exitCode).toBe(0);
    expect(await servedVersion(views, config.keyPrefix, 'equity-prints')).toBe(2);
    for (const t of TAPES) {
      const topics = t.view.startsWith('order-flow')
        ? [topicName(topicFor(t.view === 'order-flow-prints' ? 'enriched-print' : 'consolidated-trade')!, config.topicPrefix)]
        : [topicName(topicFor(t.view === 'equity-prints' ? 'equity-print' : t.view === 'news' ? 'news' : 'exchange-notification')!, config.topicPrefix)];
      await waitFor(
        `${t.view} to catch up`,
        async () => caughtUp(await viewLag(admin, views, topics, config.keyPrefix, t.view, await servedVersion(views, config.keyPrefix, t.view))),
        120_000,
        500,
      );
    }
    // Each client has passed the end of its feed.
    let behind = '';
    await waitFor(
      'the streams to reach the feeds’ ends',
      async () => {
        for (const [i, t] of TAPES.entries()) {
          const version = await servedVersion(views, config.keyPrefix, t.view);
          const at = clients[i].lastId === null ? null : decodePosition(clients[i].lastId!);
          for (let p = 0; p < 12; p++) {
            const last = await views.xrevrange(feedKey(new PartitionKeys(config.keyPrefix, t.view, version, p)), '+', '-', 'COUNT', 1);
            const head = last.length ? Number(last[0][0].split('-')[0]) : -1;
            if ((at?.[p] ?? -1) < head) {
              behind = `${t.name} p${p}: at ${at?.[p]}, head ${head}, v${version}, rows ${clients[i].rows.length}, reconnects ${clients[i].reconnects}, errors ${clients[i].errors.join('; ')}`;
              return false;
            }
          }
        }
        return true;
      },
      120_000,
      500,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${behind}`);
    });
    for (const c of clients) await c.stop();
    for (const [i, t] of TAPES.entries()) {
      const c = clients[i];
      expect(c.errors).toEqual([]);
      expect(c.reconnects).toBeGreaterThan(3);
      const rest = (await walkApi(apiA, `/v1${t.path}`, { ...t.body, size: 100, ...t.rest })).rows;
      // Versions replace one another by id (consolidated trades grow, news may be corrected): the last one counts.
      const latest = new Map<string, any>();
      const sessionOf = t.sessionOf as ((r: any) => string) | null;
      for (const r of c.rows) if (!sessionOf || sessionOf(r) === D) latest.set(String(r.id), r);
      const byId = (rows: any[]) => [...rows].sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
      expect({ tape: t.name, rest: rest.length >= (t.name === 'news' || t.name === 'exchange notifications' ? 1 : 20), streamed: latest.size }).toEqual({
        tape: t.name,
        rest: true,
        streamed: rest.length,
      });
      expect(byId([...latest.values()])).toEqual(byId(rest));
    }
  }, 600_000);
});

/** Debian's chromium, installed with apt-get when missing (no browser download is reachable). */
function ensureChromium(): string {
  const bin = '/usr/bin/chromium';
  if (!fs.existsSync(bin)) {
    try {
      execFileSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch {
      execFileSync('apt-get', ['update'], { stdio: 'ignore' });
      execFileSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    }
  }
  return bin;
}

describe('stream admission', () => {
  let apiC: TestApi;
  beforeAll(async () => {
    apiC = await startApi(config, { owner: { workspace: 'w2', user: 'u2' }, streams: { perUser: 2 } });
  });
  afterAll(() => apiC?.close());
  const url = (p: string) => `${apiC.url}/v1/stream${p}`;

  it('counts a stream against the quota when it connects, and limits the streams open per user', async () => {
    const before = await apiC.post('/v1/news/tool/news-articles', { size: 1 });
    const remaining = Number(before.headers.get('x-ratelimit-remaining'));
    const a = await openSse(url('/equities/tool/equity-prints'), { key: apiC.key, body: {} });
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(Number(a.headers['x-ratelimit-remaining'])).toBe(remaining - 1);
    const b = await openSse(url('/news/tool/news-articles'), { key: apiC.key, method: 'GET' });
    expect(b.status).toBe(200);
    const c = await openSse(url('/equities/tool/equity-prints'), { key: apiC.key, body: {} });
    expect(c.status).toBe(429);
    expect(c.refusal).toMatchObject({ code: 'TooManyStreams', status: 429 });
    // A closed stream frees its slot.
    a.close();
    const d = await waitFor(
      'a slot to free',
      async () => {
        const s = await openSse(url('/equities/tool/equity-prints'), { key: apiC.key, body: {} });
        return s.status === 200 ? s : (s.close(), false);
      },
      10_000,
      100,
    );
    d.close();
    b.close();
  });

  it('answers bad requests with problems, never a stream', async () => {
    const cases: [Parameters<typeof openSse>[1], number, string][] = [
      [{ key: apiC.key, body: { filter: { nope: 1 } } }, 400, 'ValidationFailure'],
      [{ key: apiC.key, body: { filterExpression: { field: 'NOPE', operation: '=', value: 1 } } }, 400, 'ValidationFailure'],
      [{ key: apiC.key, body: {}, lastEventId: 'not-an-id' }, 400, 'ValidationFailure'],
      [{ key: apiC.key, body: { size: 5 } }, 400, 'ValidationFailure'],
      [{ key: 'mdq_wrong', body: {} }, 401, 'Unauthorized'],
    ];
    for (const [o, status, code] of cases) {
      const s = await openSse(url('/equities/tool/equity-prints'), o);
      expect({ status: s.status, code: (s.refusal as any)?.code }).toEqual({ status, code: expect.stringMatching(code === 'Unauthorized' ? /./ : code) });
    }
  });

  it('resumes from an id in a GET query as from the header, with the same filter as the endpoint', async () => {
    const events: SseEvent[] = [];
    const q = new URLSearchParams({ filter: JSON.stringify({ tickers: ['GME'] }), from: 'earliest' });
    const s = await openSse(`${url('/equities/tool/equity-prints')}?${q}`, { key: apiC.key, method: 'GET', onEvent: (e) => events.push(e) });
    await waitFor('some GME prints', async () => events.filter((e) => e.event === 'row').length >= 5, 20_000, 100);
    s.close();
    const rows = events.filter((e) => e.event === 'row');
    expect(rows.every((e) => JSON.parse(e.data).ticker === 'GME')).toBe(true);
    const again: SseEvent[] = [];
    const q2 = new URLSearchParams({ filter: JSON.stringify({ tickers: ['GME'] }), lastEventId: rows[1].id! });
    const s2 = await openSse(`${url('/equities/tool/equity-prints')}?${q2}`, { key: apiC.key, method: 'GET', onEvent: (e) => again.push(e) });
    await waitFor('the resumed rows', async () => again.filter((e) => e.event === 'row').length >= 3, 20_000, 100);
    s2.close();
    // The event after the id comes first: nothing repeated, nothing skipped.
    expect(again.filter((e) => e.event === 'row')[0].data).toBe(rows[2].data);
  });
});
