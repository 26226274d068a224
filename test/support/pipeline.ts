import { ChildProcess, spawn } from 'child_process';
import type { Config } from '../../services/config';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { EventProducer } from '../../services/kafka/producer';
import { provisionTopicsAndSchemas } from '../../services/kafka/provision';
import { tiedToParent } from '../../services/stack/parent-death';
import { createLogger, type Logger } from '../../services/log';
import { createRedis, type RedisClient as Redis } from '../../services/redis/client';
import { nodeArgv } from '../../services/node-args';
import { repoRoot } from '../../services/stack/paths';
import { TopicSpec, topicFor, topicName } from '../../schemas/catalog';
import { newsProjection } from '../../projections/news/projection';
import { ViewProjector } from '../../projections/runtime/view-projector';
import type { Projection } from '../../projections/runtime/projection';
import { caughtUp, viewLag } from '../../projections/runtime/versions';
import { waitFor } from './env';
import { logEndAdmin } from './kafka-count';
import type { NewsArticle } from '../../ingest/sources/news-simulator';
import { phase } from './phase-profile';
import { keysMatching } from './redis-keys';

export interface TestPipeline {
  config: Config;
  /** the views' Redis (config.viewsRedisUrl); API keys and quotas are in config.redisUrl's, a separate server in the test stack */
  redis: Redis;
  producer: EventProducer;
  newsTopic: string;
  newsSpec: TopicSpec;
  /** A projector of `projection` (news by default) into `keyPrefix`, applying chunks of `chunkSize` messages (100 by default). */
  newProjector(keyPrefix?: string, projection?: Projection, log?: Logger, chunkSize?: number): ViewProjector;
  /** Waits until `projection`'s view (news by default) has applied everything on its topics. */
  waitCaughtUp(version: number, keyPrefix?: string, timeoutMs?: number, projection?: Projection): Promise<void>;
  /** Starts a projector of each projection into the test's key prefix and waits until each has applied everything. */
  projectAll(projections: readonly Projection[], timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The catalog's topics and schemas in a test's namespace, timed as its `topics` phase (phase-profile.ts). */
export function provisionTestTopics(config: Config): Promise<void> {
  return phase('topics', () => provisionTopicsAndSchemas(config));
}

/** Topics, schemas, a producer and a Redis client in the test's own namespace. */
export async function openPipeline(config: Config): Promise<TestPipeline> {
  await provisionTestTopics(config);
  const log = createLogger('test', 'silent');
  const kafka = createKafka(config, 'mdq-test');
  const registry = createRegistry(config);
  // The views' Redis: what the projectors write and the tests read back.
  const redis = createRedis(config.viewsRedisUrl);
  const producer = new EventProducer(kafka, registry, config.topicPrefix);
  await producer.connect();
  // The log end with in-flight transactions counted: a wait right after a commit must not see a
  // projector that has not read the transaction as caught up (logEndAdmin).
  const admin = logEndAdmin(kafka);
  await admin.connect();
  const projectors: ViewProjector[] = [];
  const newsSpec = topicFor('news')!;
  const newsTopic = topicName(newsSpec, config.topicPrefix);
  const pipeline: TestPipeline = {
    config,
    redis,
    producer,
    newsTopic,
    newsSpec,
    newProjector(keyPrefix = config.keyPrefix, projection = newsProjection, projectorLog = log, chunkSize = 100) {
      // Small chunks, so that the tests' batches (far below the default's 3,000 messages) are split
      // into several atomic applies, as a replay's are. No test reads a replaced version after a
      // rebuild, so it is dropped at once.
      const p = new ViewProjector({
        kafka,
        registry,
        redis,
        projection,
        topicPrefix: config.topicPrefix,
        keyPrefix,
        log: projectorLog,
        chunkSize,
        rebuildGraceMs: 100,
      });
      projectors.push(p);
      return p;
    },
    async waitCaughtUp(version, keyPrefix = config.keyPrefix, timeoutMs = 60_000, projection = newsProjection) {
      const topics = projection.topics.map((t) => topicName(t, config.topicPrefix));
      await phase('projection wait', () =>
        waitFor('projector to catch up', async () => caughtUp(await viewLag(admin, redis, topics, keyPrefix, projection.view, version)), timeoutMs, 200),
      );
    },
    async projectAll(projections, timeoutMs = 60_000) {
      for (const projection of projections) await pipeline.newProjector(config.keyPrefix, projection).start();
      for (const projection of projections) await pipeline.waitCaughtUp(1, config.keyPrefix, timeoutMs, projection);
    },
    async close() {
      for (const p of projectors) await p.stop();
      await producer.disconnect();
      await admin.disconnect();
      redis.disconnect();
    },
  };
  return pipeline;
}

/**
 * Every key of one view version with its content, key names relative to the version. Hash values
 * are read as bytes and given as latin1 text (one character per byte), so that binary values
 * (stored order-flow rows) compare exactly; ASCII values read as themselves.
 */
export async function snapshotView(redis: Redis, prefix: string, view: string, version: number): Promise<Record<string, unknown>> {
  const base = `${prefix}:${view}:v${version}:`;
  const keys = (await keysMatching(redis, `${base}*`)).sort();
  // Pipelined in batches: one round trip per thousand keys rather than two per key.
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    const types = ((await batch.reduce((p, k) => p.type(k), redis.pipeline()).exec()) ?? []).map(([err, t]) => {
      if (err) throw err;
      return t as string;
    });
    const reads = redis.pipeline();
    batch.forEach((k, j) => {
      if (types[j] === 'hash') reads.hgetallBuffer(k);
      else if (types[j] === 'zset') reads.zrange(k, 0, -1, 'WITHSCORES');
      else if (types[j] === 'string') reads.getBuffer(k);
      else if (types[j] === 'set') reads.smembers(k);
      else reads.echo('');
    });
    const values = (await reads.exec()) ?? [];
    batch.forEach((k, j) => {
      const [err, v] = values[j];
      if (err) throw err;
      const rel = k.slice(base.length);
      if (types[j] === 'hash')
        out[rel] = Object.fromEntries(
          Object.entries(v as Record<string, Buffer>)
            .map(([f, b]) => [f, b.toString('latin1')])
            .sort(([a], [b]) => (a < b ? -1 : 1)),
        );
      else if (types[j] === 'zset') out[rel] = v;
      // Byte for byte, like hash values: a string may be binary (the dark-pool level tables).
      else if (types[j] === 'string') out[rel] = (v as Buffer | null)?.toString('latin1');
      else if (types[j] === 'set') out[rel] = (v as string[]).sort();
      else out[rel] = `<${types[j]}>`;
    });
  }
  return out;
}

/**
 * A view version's data keys and contents without the bookkeeping (offsets, layout format,
 * hot-session count) and without the push streams' feeds, as snapshotView gives them. A feed is a
 * log of rows as they were applied (an order-flow row before its open interest arrived differs
 * from the row after), so it is no function of the events alone; e2e/live-streams checks feeds
 * against the endpoints.
 */
export async function viewContents(redis: Redis, prefix: string, view: string, version: number): Promise<Record<string, unknown>> {
  const snap = await snapshotView(redis, prefix, view, version);
  return Object.fromEntries(Object.entries(snap).filter(([k]) => !k.endsWith(':offsets') && !k.endsWith(':feed') && k !== 'format' && k !== 'hot-sessions'));
}

/** The news view built from scratch into another key namespace, in chunks of its own: what every recovery must equal. */
export async function cleanNewsBuild(p: TestPipeline, keyPrefix: string, timeoutMs = 120_000): Promise<Record<string, unknown>> {
  const clean = p.newProjector(keyPrefix, newsProjection, undefined, 1_000);
  await clean.start();
  await p.waitCaughtUp(1, keyPrefix, timeoutMs);
  await clean.stop();
  return snapshotView(p.redis, keyPrefix, 'news', 1);
}

/** Messages of `topic` a view version has applied (offsets + 1, summed over partitions). */
export async function appliedCount(redis: Redis, prefix: string, view: string, version: number, topic: string, partitions = 12): Promise<number> {
  let sum = 0;
  for (let p = 0; p < partitions; p++) {
    const v = await redis.hget(`${prefix}:${view}:v${version}:{p${String(p).padStart(2, '0')}}:offsets`, topic);
    sum += v === null ? 0 : Number(v) + 1;
  }
  return sum;
}

/**
 * A TypeScript entry point as its own node process (one process: signals reach it), started with
 * the flags production starts it with (node-args.ts); `nodeArgs` go after them (e.g. `--cpu-prof`).
 * It gets SIGTERM when the test's jest worker dies (parent-death.ts), so a killed run leaves no API
 * or projector behind.
 */
export function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[] = []): ChildProcess & { output: () => string } {
  const child = spawn(...tiedToParent(process.execPath, nodeArgv(script, args, nodeArgs), 'TERM'), {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return Object.assign(child, { output: () => out });
}

export function configEnv(config: Config): NodeJS.ProcessEnv {
  return {
    KAFKA_BROKERS: config.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: config.schemaRegistryUrl,
    REDIS_URL: config.redisUrl,
    VIEWS_REDIS_URL: config.viewsRedisUrl,
    MDQ_TOPIC_PREFIX: config.topicPrefix,
    MDQ_KEY_PREFIX: config.keyPrefix,
    LOG_LEVEL: 'warn',
  };
}

const TICKERS = ['AAPL', 'MSFT', 'NVDA', 'TSLA', 'AMZN', 'META', 'GOOGL', 'JPM'];
const TOPIC_POOL = ['EARNINGS', 'M_AND_A', 'ECON_NUMBERS', 'MOVERS_AND_SHAKERS', 'ANALYST_RATINGS', 'FDA'];
const SENT = ['EXTREMELY_BEARISH', 'MODERATELY_BEARISH', 'SLIGHTLY_BEARISH', 'NEUTRAL', 'SLIGHTLY_BULLISH', 'MODERATELY_BULLISH', 'EXTREMELY_BULLISH'];

/**
 * A fixed article set for tests: ids 1..n, publishedTime stepping so that groups of three share
 * one millisecond (tie-breaks are exercised), tickers/topics/sentiments cycling.
 */
export function syntheticArticles(n: number, t0 = Date.UTC(2024, 4, 1, 13, 30)): NewsArticle[] {
  const out: NewsArticle[] = [];
  for (let i = 1; i <= n; i++) {
    const tickers = [{ ticker: TICKERS[i % TICKERS.length], sentiment: SENT[i % 7] }];
    if (i % 4 === 0) tickers.push({ ticker: TICKERS[(i + 3) % TICKERS.length], sentiment: SENT[(i + 2) % 7] });
    out.push({
      id: i,
      publishedTime: t0 + Math.floor(i / 3) * 1000,
      title: `Article ${i} about ${tickers[0].ticker}`,
      body: i % 5 === 0 ? null : `Body of article ${i}. ${i % 2 ? 'Guidance raised.' : 'Shares fell.'}`,
      topics: i % 6 === 0 ? [] : [TOPIC_POOL[i % TOPIC_POOL.length], ...(i % 3 === 0 ? [TOPIC_POOL[(i + 1) % TOPIC_POOL.length]] : [])],
      tickers,
    });
  }
  return out;
}
