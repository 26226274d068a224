import type { default as IORedis, NodeRole } from 'ioredis';
import { idField } from '../../services/views/news';
import { ALL_SUFFIX, DOC_SUFFIX, indexMember, newsKeys } from '../support/news-layout';
import { PartitionKeys, formatKey, pointerKey } from '../../services/views/keys';
import { groupId } from '../../projections/runtime/runner';
import { dropVersion } from '../../projections/runtime/versions';
import pino from 'pino';
import { isCluster, type RedisClient as Redis } from '../../services/redis/client';
import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { ViewProjector } from '../../projections/runtime/view-projector';
import { newsProjection } from '../../projections/news/projection';
import type { Projection } from '../../projections/runtime/projection';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { testConfig, waitFor } from '../support/env';
import { TestPipeline, appliedCount, cleanNewsBuild, configEnv, openPipeline, snapshotView, spawnTs, syntheticArticles } from '../support/pipeline';
import { expectEqual } from '../support/expect-equal';

/**
 * The projector runtime against the real stack: produce -> project -> read, redelivery, a
 * kill -9 in the middle of a large stream, and a rebuild with the pointer flip.
 */

let pipe: TestPipeline;

/** Messages of the news topic applied to a view (offsets + 1, summed over partitions). */
const appliedMessages = (p: TestPipeline, keyPrefix: string) => appliedCount(p.redis, keyPrefix, 'news', 1, p.newsTopic);
const cleanBuild = (p: TestPipeline, keyPrefix: string) => cleanNewsBuild(p, keyPrefix);
const config = testConfig('proj');

beforeAll(async () => {
  pipe = await openPipeline(config);
});
afterAll(async () => {
  await pipe.close();
});

describe('produce -> project -> read', () => {
  const articles = syntheticArticles(300);

  it('materializes every article with its indexes, exactly once', async () => {
    await pipe.producer.send(pipe.newsSpec, articles as never);
    const projector = pipe.newProjector();
    await projector.start();
    await pipe.waitCaughtUp(1);
    const snap = await snapshotView(pipe.redis, config.keyPrefix, 'news', 1);
    const docs = Object.entries(snap).filter(([k]) => k.endsWith(DOC_SUFFIX));
    const ids = docs.flatMap(([, h]) => Object.keys(h as object));
    expect(ids.sort()).toEqual(articles.map((a) => idField(a.id)).sort());
    // The all-articles index holds each article once, in some partition.
    const all = indexMembers(snap, ALL_SUFFIX);
    expect(all.sort()).toEqual(articles.map((a) => indexMember(a.publishedTime, a.id)).sort());
    // An article is in the ticker index of each of its tickers, in the partition holding its doc.
    const a = articles[3]; // id 4: two tickers
    const p = Number(docs.find(([, h]) => idField(a.id) in (h as object))![0].match(/\{p(\d+)\}/)![1]);
    const k = newsKeys(new PartitionKeys(config.keyPrefix, 'news', 1, p));
    for (const t of a.tickers) expect(await pipe.redis.zscore(k.ticker(t.ticker), indexMember(a.publishedTime, a.id))).toBe('0');
    expect(await pipe.redis.hget(k.body, idField(a.id))).toBe(a.body);
    expect(await pipe.redis.get(pointerKey(config.keyPrefix, 'news'))).toBe('1');
    await projector.stop();
  });

  it('a redelivered range of applied messages changes nothing', async () => {
    const before = await snapshotView(pipe.redis, config.keyPrefix, 'news', 1);
    // Rewind the consumer group to the start: every message is delivered again.
    const admin = createKafka(config, 'test-admin').admin();
    await admin.connect();
    const group = groupId(config.topicPrefix, config.keyPrefix, 'news', 1);
    await admin.resetOffsets({ groupId: group, topic: pipe.newsTopic, earliest: true });
    const projector = pipe.newProjector();
    await projector.start();
    const high = (await admin.fetchTopicOffsets(pipe.newsTopic)).reduce((s, p) => s + Number(p.high), 0);
    await waitFor('group to consume the redelivered range', async () => {
      const [{ partitions }] = await admin.fetchOffsets({ groupId: group, topics: [pipe.newsTopic] });
      return partitions.reduce((s, p) => s + Math.max(0, Number(p.offset)), 0) === high;
    });
    await admin.disconnect();
    expect(await snapshotView(pipe.redis, config.keyPrefix, 'news', 1)).toEqual(before);
    await projector.stop();
  });

  it('a correction (same id published again) replaces the article and its index entries', async () => {
    const a = articles[10];
    const corrected = { ...a, title: 'Corrected', publishedTime: a.publishedTime + 5, tickers: [{ ticker: 'IBM', sentiment: 'NEUTRAL' }] };
    await pipe.producer.send(pipe.newsSpec, [corrected] as never);
    const projector = pipe.newProjector();
    await projector.start();
    await pipe.waitCaughtUp(1);
    await projector.stop();
    const snap = await snapshotView(pipe.redis, config.keyPrefix, 'news', 1);
    const all = indexMembers(snap, ALL_SUFFIX);
    expect(all).toContain(indexMember(corrected.publishedTime, a.id));
    expect(all).not.toContain(indexMember(a.publishedTime, a.id));
    const oldTicker = indexMembers(snap, `:tk:${a.tickers[0].ticker}`);
    expect(oldTicker).not.toContain(indexMember(a.publishedTime, a.id));
    const ibm = indexMembers(snap, ':tk:IBM');
    expect(ibm).toContain(indexMember(corrected.publishedTime, a.id));
  });

  it('a rebuild replays into version 2, flips the pointer, and drops version 1', async () => {
    const v1 = await snapshotView(pipe.redis, config.keyPrefix, 'news', 1);
    const projector = pipe.newProjector();
    const { from, to } = await projector.rebuild({ graceMs: 100 });
    expect([from, to]).toEqual([1, 2]);
    expect(await pipe.redis.get(pointerKey(config.keyPrefix, 'news'))).toBe('2');
    expectEqual(await snapshotView(pipe.redis, config.keyPrefix, 'news', 2), v1);
    expect(await snapshotView(pipe.redis, config.keyPrefix, 'news', 1)).toEqual({});
    await projector.stop();
  });
});

describe('transactional topics', () => {
  it('a fetch that starts after a commit marker is applied as it comes: no seek, nothing lost', async () => {
    // Each committed transaction ends with a marker that is never delivered. Once a transaction
    // is applied, the next fetch starts past its marker, two offsets after the applied one; the
    // runner must not take that for a group ahead of the view (a seek and a refetch each time).
    const prefix = `${config.keyPrefix}-tx`;
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
    const projector = pipe.newProjector(prefix, undefined, log);
    await projector.start();
    await pipe.waitCaughtUp(1, prefix);
    const writer = new ChunkWriter(createKafka(config, 'test-tx'), createRegistry(config), config.topicPrefix, 'projector-markers');
    await writer.connect();
    const added: number[] = [];
    try {
      for (let t = 0; t < 5; t++) {
        const batch = syntheticArticles(24).map((a) => ({ ...a, id: 100_000 + t * 100 + a.id }));
        await writer.commit(
          batch.map((a) => ({ type: 'news' as const, time: a.publishedTime, data: a as unknown as Record<string, unknown> })),
          [],
        );
        added.push(...batch.map((a) => a.id));
        await pipe.waitCaughtUp(1, prefix);
      }
    } finally {
      await writer.disconnect();
    }
    await projector.stop();
    const snap = await snapshotView(pipe.redis, prefix, 'news', 1);
    const ids = new Set(
      Object.entries(snap)
        .filter(([k]) => k.endsWith(DOC_SUFFIX))
        .flatMap(([, h]) => Object.keys(h as object)),
    );
    expect(added.filter((id) => !ids.has(idField(id)))).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe('a view lost from Redis', () => {
  it('is projected again on restart although the group is at the end and nothing new arrives', async () => {
    const prefix = `${config.keyPrefix}-lost`;
    await pipe.producer.send(pipe.newsSpec, syntheticArticles(50).map((a) => ({ ...a, id: 900_000 + a.id })) as never);
    const first = pipe.newProjector(prefix);
    await first.start();
    await pipe.waitCaughtUp(1, prefix);
    await first.stop();
    const built = await snapshotView(pipe.redis, prefix, 'news', 1);
    expect(Object.keys(built).length).toBeGreaterThan(0);
    // The data goes (a flushed or replaced Redis); the group's committed offsets stay at the end.
    await dropVersion(pipe.redis, prefix, 'news', 1);
    expect(await snapshotView(pipe.redis, prefix, 'news', 1)).toEqual({});
    const again = pipe.newProjector(prefix);
    await again.start();
    await pipe.waitCaughtUp(1, prefix, 30_000);
    await again.stop();
    expect(await snapshotView(pipe.redis, prefix, 'news', 1)).toEqual(built);
  });
});

describe('a batch whose apply fails', () => {
  it('is applied again in its lane, once when the transaction did not run and once when it ran but its reply was lost: the view equals a clean build', async () => {
    const prefix = `${config.keyPrefix}-retry`;
    await pipe.producer.send(pipe.newsSpec, syntheticArticles(3_000).map((a) => ({ ...a, id: 700_000 + a.id })) as never);
    // Applies run WATCH ... EXEC on connections duplicated from the client they are given: here
    // connections whose EXEC fails twice, before the 2nd one reaches Redis and after the 4th one
    // has run in Redis (its reply lost).
    let calls = 0;
    const failures: string[] = [];
    const flakyExec = (real: { exec(): Promise<unknown> }) => async () => {
      const n = ++calls; // applies overlap (one lane per partition): `calls` moves on meanwhile
      if (n === 2) {
        failures.push('before the transaction');
        throw new Error('connection lost before the transaction');
      }
      const res = await real.exec();
      if (n === 4) {
        failures.push('after the transaction');
        throw new Error('connection lost after the transaction');
      }
      return res;
    };
    const passThrough = <T extends object>(target: T, override: (prop: string | symbol) => unknown): T =>
      new Proxy(target, {
        get(t, prop) {
          const o = override(prop);
          if (o !== undefined) return o;
          const v = Reflect.get(t, prop, t);
          return typeof v === 'function' ? v.bind(t) : v;
        },
      });
    const flakyConnection = (c: IORedis): IORedis =>
      passThrough(c, (prop) =>
        prop === 'multi'
          ? () => {
              const tx = c.multi();
              return passThrough(tx, (q) => (q === 'exec' ? flakyExec(tx) : undefined));
            }
          : undefined,
      );
    const flakyDuplicates = (server: IORedis): IORedis =>
      passThrough(server, (prop) =>
        prop === 'duplicate' ? (...args: Parameters<IORedis['duplicate']>) => flakyConnection(server.duplicate(...args)) : undefined,
      );
    // On a Redis Cluster, transaction connections are duplicated from the master of their slot.
    const cluster = pipe.redis;
    const flaky: Redis = isCluster(cluster)
      ? passThrough(cluster, (prop) => (prop === 'nodes' ? (role?: NodeRole) => cluster.nodes(role).map(flakyDuplicates) : undefined))
      : flakyDuplicates(cluster);
    const errors: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void errors.push(JSON.parse(line).msg) });
    const projector = new ViewProjector({
      kafka: createKafka(config, 'test-retry'),
      registry: createRegistry(config),
      redis: flaky,
      projection: newsProjection,
      topicPrefix: config.topicPrefix,
      keyPrefix: prefix,
      log,
    });
    await projector.start();
    try {
      await pipe.waitCaughtUp(1, prefix, 60_000);
    } finally {
      await projector.stop();
    }
    expect(failures).toEqual(['before the transaction', 'after the transaction']);
    expect(errors.filter((m) => m === 'could not apply a batch; retrying')).toHaveLength(2);

    const built = await snapshotView(pipe.redis, prefix, 'news', 1);
    expect(Object.keys(built).length).toBeGreaterThan(12);
    expectEqual(built, await cleanBuild(pipe, `${config.keyPrefix}-retry-clean`));
  });
});

describe('a projector stopped gracefully mid-stream', () => {
  it('leaves the group with batches read ahead of the view; the restart applies the rest exactly once, equal to a clean build', async () => {
    const cfg = testConfig('stop');
    const p = await openPipeline(cfg);
    try {
      const articles = syntheticArticles(12_000);
      for (let i = 0; i < articles.length; i += 5_000) await p.producer.send(p.newsSpec, articles.slice(i, i + 5_000) as never);
      // After three chunks every chunk waits at a gate, so the stop lands mid-stream whatever the
      // machine's speed: the lanes hold batches the consumer has already moved past.
      let chunks = 0;
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const gated: Projection = {
        ...newsProjection,
        async project(events, keys, redis) {
          if (++chunks > 3) await gate;
          return newsProjection.project(events, keys, redis);
        },
      };
      const first = p.newProjector(cfg.keyPrefix, gated);
      await first.start();
      await waitFor('chunks to wait at the gate', async () => chunks >= 6, 60_000, 20);
      const stopped = first.stop();
      open(); // the chunks being computed are applied; the lanes then drop what they hold
      await stopped;
      const atStop = await appliedMessages(p, cfg.keyPrefix);
      expect(atStop).toBeLessThan(articles.length);
      const admin = createKafka(cfg, 'test-admin').admin();
      await admin.connect();
      try {
        const [{ partitions }] = await admin.fetchOffsets({ groupId: groupId(cfg.topicPrefix, cfg.keyPrefix, 'news', 1), topics: [p.newsTopic] });
        // The group committed past what the view holds: only a hint, the restart seeks back.
        expect(partitions.reduce((sum, q) => sum + Math.max(0, Number(q.offset)), 0)).toBeGreaterThan(atStop);
      } finally {
        await admin.disconnect();
      }

      const second = p.newProjector(cfg.keyPrefix);
      await second.start();
      await p.waitCaughtUp(1, cfg.keyPrefix, 120_000);
      await second.stop();
      expect(await appliedMessages(p, cfg.keyPrefix)).toBe(articles.length);
      const resumed = await snapshotView(p.redis, cfg.keyPrefix, 'news', 1);
      expect(Object.keys(resumed).length).toBeGreaterThan(12);
      expectEqual(resumed, await cleanBuild(p, `${cfg.keyPrefix}-clean`));
    } finally {
      await p.close();
    }
  }, 300_000);
});

describe('a projector killed with SIGKILL mid-stream', () => {
  it('resumes (in two threads) and ends equal, key for key, to a clean build', async () => {
    const cfg = testConfig('kill');
    const p = await openPipeline(cfg);
    try {
      const articles = syntheticArticles(20_000);
      for (let i = 0; i < articles.length; i += 5_000) await p.producer.send(p.newsSpec, articles.slice(i, i + 5_000) as never);

      // The broker's shortest session: the killed member's partitions move on in 6 s, not 30.
      const env = { ...configEnv(cfg), MDQ_PROJECTOR_SESSION_TIMEOUT_MS: '6000' };
      // Chunks of 100 (about 17 a partition), so the kill lands mid-stream: with the default 3,000 a
      // partition's whole share is one chunk, and the view can go from a quarter to all between polls.
      const first = spawnTs('projections/main.ts', [], { ...env, MDQ_PROJECTOR_CHUNK: '100' });
      // Kill once a good part, but not all, of the stream is applied.
      const appliedSum = () => appliedMessages(p, cfg.keyPrefix);
      await waitFor('projector to apply part of the stream', async () => (await appliedSum()) >= 3_000, 60_000, 20);
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      const atKill = await appliedSum();
      expect(atKill).toBeLessThan(articles.length);

      // Resumed by a process of two projecting threads: two members of the view's group.
      const second = spawnTs('projections/main.ts', [], { ...env, MDQ_PROJECTOR_THREADS: '2', LOG_LEVEL: 'info' });
      await p.waitCaughtUp(1, cfg.keyPrefix, 120_000);
      second.kill('SIGTERM');
      const code = await new Promise((r) => second.once('exit', r));
      expect(code).toBe(0); // graceful stop on SIGTERM, every thread stopped
      for (const thread of [0, 1]) expect(second.output()).toMatch(new RegExp(`"thread":${thread}[^\n]*"msg":"projecting"`));

      const recovered = await snapshotView(p.redis, cfg.keyPrefix, 'news', 1);
      // A clean build of the same topics into another key namespace.
      const rebuilt = await cleanBuild(p, `${cfg.keyPrefix}-clean`);
      expect(Object.keys(recovered).length).toBeGreaterThan(12);
      expectEqual(recovered, rebuilt);
    } finally {
      await p.close();
    }
  }, 300_000);
});

/** Members of every partition's index zset with this key suffix (':t', ':tk:AAPL', ...). */
function indexMembers(snap: Record<string, unknown>, suffix: string): string[] {
  return Object.entries(snap)
    .filter(([k]) => k.endsWith(suffix))
    .flatMap(([, z]) => (z as string[]).filter((_, i) => i % 2 === 0));
}

describe('a view stored under an older layout', () => {
  it('is rebuilt into a new version when a projector of the new layout starts, and the pointer flips to it', async () => {
    const prefix = `${config.keyPrefix}-layout`;
    await pipe.producer.send(pipe.newsSpec, syntheticArticles(40).map((a) => ({ ...a, id: 800_000 + a.id })) as never);
    // Version 1 written by a projector of layout 1 (what a deployment before the change ran).
    const old = pipe.newProjector(prefix, { ...newsProjection, format: undefined });
    await old.start();
    await pipe.waitCaughtUp(1, prefix);
    await old.stop();
    expect(await pipe.redis.get(formatKey(prefix, 'news', 1))).toBe('1');
    const built = await snapshotView(pipe.redis, prefix, 'news', 1);

    const current = pipe.newProjector(prefix, newsProjection);
    await current.start();
    expect(await pipe.redis.get(pointerKey(prefix, 'news'))).toBe('2');
    expect(await pipe.redis.get(formatKey(prefix, 'news', 2))).toBe(String(newsProjection.format));
    expect(current.version).toBe(2);
    // The same events give the same rows in the new version; the old version is gone.
    expect(await snapshotView(pipe.redis, prefix, 'news', 2)).toEqual({ ...built, format: String(newsProjection.format) });
    expect(await snapshotView(pipe.redis, prefix, 'news', 1)).toEqual({});
    await current.stop();
  });
});
