import fs from 'fs';
import os from 'os';
import path from 'path';
import { subjectName, topicFor } from '../../schemas/catalog';
import { readTablePage } from '../../api/tables/engine';
import { NEWS_LAYOUT } from '../../services/views/news';
import { NewsFeed } from '../../ingest/sources/news-feed';
import { newsBetween } from '../../ingest/sources/news-simulator';
import { createLogger } from '../../services/log';
import { testConfig } from '../support/env';
import { TestPipeline, configEnv, openPipeline, snapshotView, spawnTs } from '../support/pipeline';

const config = testConfig('ingest');
let pipe: TestPipeline;
const news = topicFor('news')!;

beforeAll(async () => {
  pipe = await openPipeline(config);
});
afterAll(async () => {
  await pipe.close();
});

describe('schema registry', () => {
  const base = () => config.schemaRegistryUrl;

  it('registers the news schema under <topic>-value with BACKWARD compatibility', async () => {
    const subject = subjectName(news, config.topicPrefix);
    const cfg = (await (await fetch(`${base()}/config/${subject}`)).json()) as { compatibilityLevel: string };
    expect(cfg.compatibilityLevel).toBe('BACKWARD');
    const versions = await (await fetch(`${base()}/subjects/${subject}/versions`)).json();
    expect(versions).toEqual([1]);
  });

  it('rejects a schema change that breaks BACKWARD compatibility, and accepts a compatible one', async () => {
    const subject = subjectName(news, config.topicPrefix);
    const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '../../schemas/news-article.avsc'), 'utf8'));
    const post = (s: unknown) =>
      fetch(`${base()}/subjects/${subject}/versions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
        body: JSON.stringify({ schema: JSON.stringify(s) }),
      });
    // A new field without a default: new readers cannot read old events.
    const breaking = await post({ ...schema, fields: [...schema.fields, { name: 'author', type: 'string' }] });
    expect(breaking.status).toBe(409);
    const compatible = await post({ ...schema, fields: [...schema.fields, { name: 'source', type: ['null', 'string'], default: null }] });
    expect(compatible.status).toBe(200);
  });
});

describe('file import', () => {
  it('produces the valid lines, reports each bad line with its number, and exits non-zero', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-import-')), 'events.jsonl');
    const ok = (id: number) =>
      JSON.stringify({
        type: 'news',
        data: { id, publishedTime: 1714570200000 + id, title: `Imported ${id}`, topics: ['EARNINGS'], tickers: [{ ticker: 'AAPL', sentiment: 'NEUTRAL' }] },
      });
    fs.writeFileSync(
      file,
      [
        ok(9001),
        '{not json',
        ok(9002),
        JSON.stringify({ type: 'quote', data: {} }),
        '',
        JSON.stringify({ type: 'news', data: { id: 9003, publishedTime: 1, title: 'x', topics: ['Nope'] } }),
        ok(9004),
      ].join('\n') + '\n',
    );
    // Imports are jobs: a worker processes them, the CLI enqueues and reports.
    const worker = spawnTs('ingest/worker.ts', [], configEnv(config));
    const run = async () => {
      const child = spawnTs('ingest/cli.ts', ['file', file], configEnv(config));
      const code = await new Promise((r) => child.once('exit', r));
      return { code, out: child.output() };
    };
    const { code, out } = await run();
    expect(code).toBe(1);
    expect(out).toMatch(/line 2: not valid JSON/);
    expect(out).toMatch(/line 4: unknown event type "quote"/);
    expect(out).toMatch(/line 6: topics\[0\]: "Nope" is not a canonical topic name/);
    expect(out).toMatch(/6 lines, 3 events produced, 0 already imported before, 3 bad lines/);
    // The same file again: its chunk is already committed, so nothing is produced twice.
    const again = await run();
    expect(again.out).toMatch(/6 lines, 0 events produced, 3 already imported before, 3 bad lines/);
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));

    const projector = pipe.newProjector();
    await projector.start();
    await pipe.waitCaughtUp(1);
    await projector.stop();
    const { rows } = await readTablePage(pipe.redis, config.keyPrefix, {
      layout: NEWS_LAYOUT,
      version: 1,
      partitions: news.partitions,
      segments: [''],
      window: null,
      after: null,
      predicate: () => true,
      sort: { suffix: 'time', descending: true, value: (r) => r.publishedTime },
      size: 10,
    });
    expect(rows.map((r) => r.id).sort()).toEqual([9001, 9002, 9004]);
  });
});

describe('simulated news feed', () => {
  it('catches up from its marker without repeating a minute, and a re-run leaves the view unchanged', async () => {
    const cfg = testConfig('feed');
    const p = await openPipeline(cfg);
    try {
      let now = Date.UTC(2024, 4, 1, 14, 0, 30);
      const feed = new NewsFeed({
        producer: p.producer,
        redis: p.redis,
        keyPrefix: cfg.keyPrefix,
        log: createLogger('t', 'silent'),
        seed: 7,
        backfillDays: 1,
        now: () => now,
      });
      const first = await feed.catchUp();
      const startMinute = Math.floor((Date.UTC(2024, 4, 1, 14, 0, 30) - 86_400_000) / 60_000);
      expect(first).toBe(newsBetween(7, startMinute, Math.floor(now / 60_000)).length);
      expect(await feed.catchUp()).toBe(0); // nothing new: the marker holds
      now += 10 * 60_000;
      const later = await feed.catchUp();
      expect(later).toBe(newsBetween(7, Math.floor((now - 10 * 60_000) / 60_000), Math.floor(now / 60_000)).length);

      const projector = p.newProjector();
      await projector.start();
      await p.waitCaughtUp(1);
      const before = await snapshotView(p.redis, cfg.keyPrefix, 'news', 1);
      // A crash between producing and saving the marker: the same minutes are sent again.
      await p.redis.del(`${cfg.keyPrefix}:ingest:news:through-minute`);
      expect(await feed.catchUp()).toBe(newsBetween(7, Math.floor((now - 86_400_000) / 60_000), Math.floor(now / 60_000)).length);
      await p.waitCaughtUp(1);
      const after = await snapshotView(p.redis, cfg.keyPrefix, 'news', 1);
      // Same articles and indexes; only the applied offsets moved on.
      const strip = (s: Record<string, unknown>) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.endsWith(':offsets')));
      expect(strip(after)).toEqual(strip(before));
      await projector.stop();
    } finally {
      await p.close();
    }
  });
});
