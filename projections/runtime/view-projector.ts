import type { Kafka } from 'kafkajs';
import type { RedisClient as Redis } from '../../services/redis/client';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { Logger } from '../../services/log';
import { PartitionKeys, formatKey, pointerKey } from '../../services/views/keys';
import { sleep } from '../../services/stack/process';
import type { Projection } from './projection';
import { ProjectionRunner } from './runner';
import { caughtUp, dropVersion, flipVersion, servedVersion, viewLag } from './versions';

export interface ViewProjectorDeps {
  kafka: Kafka;
  registry: SchemaRegistry;
  redis: Redis;
  projection: Projection;
  topicPrefix: string;
  keyPrefix: string;
  log: Logger;
  /** See RunnerOptions.chunkSize. */
  chunkSize?: number;
  /** See RunnerOptions.partitionsConcurrently. */
  partitionsConcurrently?: number;
  /** See RunnerOptions.sessionTimeoutMs. */
  sessionTimeoutMs?: number;
  /**
   * How long a replaced version is kept after a rebuild flips the pointer (default 5 s: longer
   * than the API's pointer cache, so reads in flight finish). Tests that read no old version set
   * it short.
   */
  rebuildGraceMs?: number;
}

/**
 * Keeps one view family current: runs the served version's runner, follows the pointer when a
 * rebuild elsewhere flips it, and performs rebuilds (replay into N+1 while the API reads N,
 * flip, then drop N after a grace period longer than the API's pointer cache).
 */
export class ViewProjector {
  private runner: ProjectionRunner | null = null;
  private watch: NodeJS.Timeout | null = null;
  private switching = false;

  constructor(private readonly d: ViewProjectorDeps) {}

  private newRunner(version: number): ProjectionRunner {
    const d = this.d;
    return new ProjectionRunner({
      kafka: d.kafka,
      registry: d.registry,
      redis: d.redis,
      projection: d.projection,
      version,
      topicPrefix: d.topicPrefix,
      keyPrefix: d.keyPrefix,
      log: d.log.child({ view: d.projection.view, version }),
      chunkSize: d.chunkSize,
      partitionsConcurrently: d.partitionsConcurrently,
      sessionTimeoutMs: d.sessionTimeoutMs,
    });
  }

  get version(): number | null {
    return this.runner?.version ?? null;
  }

  async start(): Promise<void> {
    const { redis, keyPrefix, projection, log } = this.d;
    let version = await servedVersion(redis, keyPrefix, projection.view);
    const want = projection.format ?? 1;
    const stored = await redis.get(formatKey(keyPrefix, projection.view, version));
    // A version holding data without a format mark was written before marks existed: layout 1.
    const have = stored !== null ? Number(stored) : (await this.holdsData(version)) ? 1 : null;
    if (have === null) await redis.set(formatKey(keyPrefix, projection.view, version), String(want), 'NX');
    else if (have !== want) {
      log.info({ view: projection.view, version, from: have, to: want }, 'the view is stored under an older layout; rebuilding it');
      version = (await this.rebuild()).to;
    }
    if (this.runner?.version === version) {
      this.startWatch();
      return;
    }
    this.runner = this.newRunner(version);
    await this.runner.start();
    log.info({ view: projection.view, version }, 'projecting');
    this.startWatch();
  }

  /** Whether any partition of a version has applied a message (its offsets hash exists). */
  private async holdsData(version: number): Promise<boolean> {
    const { redis, keyPrefix, projection } = this.d;
    const partitions = Math.max(...projection.topics.map((t) => t.partitions));
    const pipe = redis.pipeline();
    for (let p = 0; p < partitions; p++) pipe.exists(new PartitionKeys(keyPrefix, projection.view, version, p).offsets);
    return ((await pipe.exec()) ?? []).some(([err, n]) => !err && n === 1);
  }

  private startWatch(): void {
    this.watch = setInterval(() => void this.followPointer(), 2_000);
    this.watch.unref();
  }

  private async followPointer(): Promise<void> {
    const current = this.runner;
    if (this.switching || !current) return;
    const served = Number(await this.d.redis.get(pointerKey(this.d.keyPrefix, this.d.projection.view)).catch(() => null));
    // stop() or a rebuild may have run while the pointer was read: then this runner is no longer ours to replace.
    if (!served || served <= current.version || this.runner !== current || this.switching) return;
    this.switching = true;
    try {
      this.d.log.info({ from: current.version, to: served }, 'view rebuilt elsewhere; following the new version');
      await current.stop();
      const next = this.newRunner(served);
      this.runner = next;
      await next.start();
      if (this.runner !== next) await next.stop(); // stopped while starting
    } finally {
      this.switching = false;
    }
  }

  /** Replays the topics into a new version, flips the pointer when caught up, drops the old one. */
  async rebuild(opts: { graceMs?: number; pollMs?: number } = {}): Promise<{ from: number; to: number }> {
    const { redis, keyPrefix, projection, log } = this.d;
    const from = await servedVersion(redis, keyPrefix, projection.view);
    const to = from + 1;
    this.switching = true; // the pointer watcher must not race the flip below
    await redis.set(formatKey(keyPrefix, projection.view, to), String(projection.format ?? 1));
    const next = this.newRunner(to);
    await next.start();
    const admin = this.d.kafka.admin();
    await admin.connect();
    try {
      for (;;) {
        const lag = await viewLag(admin, redis, next.topics, keyPrefix, projection.view, to);
        if (caughtUp(lag)) break;
        await sleep(opts.pollMs ?? 500);
      }
    } finally {
      await admin.disconnect();
    }
    if (!(await flipVersion(redis, keyPrefix, projection.view, from, to))) {
      await next.stop();
      this.switching = false;
      throw new Error(`the ${projection.view} view moved past version ${from} during the rebuild`);
    }
    log.info({ view: projection.view, from, to }, 'view rebuilt; pointer flipped');
    const old = this.runner;
    this.runner = next;
    this.switching = false;
    if (old) await old.stop();
    await sleep(opts.graceMs ?? this.d.rebuildGraceMs ?? 5_000);
    const dropped = await dropVersion(redis, keyPrefix, projection.view, from);
    log.info({ view: projection.view, version: from, keys: dropped }, 'old version dropped');
    return { from, to };
  }

  async stop(): Promise<void> {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    const r = this.runner;
    this.runner = null;
    if (r) await r.stop();
  }
}
