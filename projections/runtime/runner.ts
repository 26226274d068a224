import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type Redis from 'ioredis';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { topicName } from '../../schemas/catalog';
import { WireDecoder } from '../../services/kafka/encoding';
import { PartitionKeys } from '../../services/views/keys';
import type { Logger } from '../../services/log';
import { ProjectorMetrics } from '../../services/metrics/projector';
import { applyAtomically, readAppliedOffset, readAppliedOffsets, recordSeenOffset } from './atomic-apply';
import type { Projection, SourceEvent } from './projection';

export interface RunnerOptions {
  kafka: Kafka;
  registry: SchemaRegistry;
  redis: Redis;
  projection: Projection;
  version: number;
  topicPrefix: string;
  keyPrefix: string;
  log: Logger;
  /** Messages per atomic apply; bounds the size of one Lua call. */
  chunkSize?: number;
  /**
   * Partitions whose batches are projected at the same time (DEFAULT_PARTITIONS_CONCURRENTLY when
   * absent). Batches of one partition stay serial; those of different partitions overlap, so the
   * process computes one chunk while Redis applies another instead of waiting for each in turn.
   */
  partitionsConcurrently?: number;
  /** Where applied offsets and lag are reported; the process registry's by default. */
  metrics?: ProjectorMetrics;
}

/**
 * Measured on the order-flow replay (2 cores): serial partitions left the projector's main thread
 * idle about 45 % of the time, waiting for Redis and Kafka round trips.
 */
export const DEFAULT_PARTITIONS_CONCURRENTLY = 4;

/** One consumer group per (view store, view, version): a rebuild or a second store never shares offsets. */
export function groupId(topicPrefix: string, keyPrefix: string, view: string, version: number): string {
  return `${topicPrefix}mdq.projector.${keyPrefix}.${view}.v${version}`;
}

/**
 * Runs one projection at one view version as a member of that version's consumer group.
 *
 * Exactly-once into Redis: each chunk's writes and the partition's applied offset commit in one
 * compare-and-apply script (atomic-apply.ts). The consumer group's committed offset is only a hint
 * for where to fetch: messages at or below the Redis offset are skipped, and when the group is
 * ahead of Redis (a view that was dropped or lost), the runner seeks back to the Redis offset.
 */
export class ProjectionRunner {
  private consumer: Consumer | null = null;
  private readonly applied = new Map<string, number>();
  /** partition -> every delivered message is applied (see recordSeenOffset) */
  private readonly settled = new Map<string, boolean>();
  private readonly sought = new Map<string, number>();
  /**
   * Partitions delivered continuously since the last group join or seek: their batches follow
   * what was delivered before (transaction markers, never delivered, account for any gap), so
   * only the first batch after a join or seek is compared with the view's offset.
   */
  private readonly continuous = new Set<string>();
  private readonly chunkSize: number;
  private readonly metrics: ProjectorMetrics;
  /**
   * Per topic: decodes a chunk synchronously into the catalog's (reader) schema, older writer
   * schemas resolved to it. The registry client's own decode costs an await per message.
   */
  private readonly decoders = new Map<string, WireDecoder>();
  readonly topics: string[];

  constructor(private readonly o: RunnerOptions) {
    this.chunkSize = o.chunkSize ?? 500;
    this.metrics = o.metrics ?? ProjectorMetrics.for();
    this.topics = o.projection.topics.map((t) => topicName(t, o.topicPrefix));
    o.projection.topics.forEach((t, i) => this.decoders.set(this.topics[i], new WireDecoder(o.registry, t)));
  }

  get version(): number {
    return this.o.version;
  }

  keys(partition: number): PartitionKeys {
    return new PartitionKeys(this.o.keyPrefix, this.o.projection.view, this.o.version, partition);
  }

  async start(): Promise<void> {
    const { kafka, projection, version, topicPrefix } = this.o;
    const consumer = kafka.consumer({
      groupId: groupId(topicPrefix, this.o.keyPrefix, projection.view, version),
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
      maxBytesPerPartition: 2 * 1024 * 1024,
    });
    this.consumer = consumer;
    // After a rebalance another instance may have advanced a partition: forget cached offsets.
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      this.applied.clear();
      this.sought.clear();
      this.settled.clear();
      this.continuous.clear();
      void this.startFromView(e.payload.memberAssignment).catch((err) => this.o.log.error({ err }, 'could not start the assigned partitions from the view offsets'));
    });
    // Transactional topics end each transaction with a marker that is never delivered as a
    // message, so the applied offset stops short of the high watermark. The offset the consumer
    // has moved past (markers included) is recorded beside it, as a hint that lag ends there.
    // It is recorded only while every message delivered so far on the partition is applied
    // (`settled`), so a batch skipped for a seek-back is never taken as consumed.
    consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
      const { topic, partition, lastOffset } = e.payload;
      if (!this.settled.get(`${topic}/${partition}`)) return;
      void recordSeenOffset(this.o.redis, this.keys(partition).offsets, topic, Number(lastOffset)).catch(() => {});
    });
    await consumer.connect();
    await consumer.subscribe({ topics: this.topics, fromBeginning: true });
    await consumer.run({
      autoCommit: true,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.o.partitionsConcurrently ?? DEFAULT_PARTITIONS_CONCURRENTLY,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  /** Graceful stop: kafkajs lets the running batch finish, commits, and leaves the group. */
  async stop(): Promise<void> {
    const c = this.consumer;
    this.consumer = null;
    if (c) await c.disconnect();
    // A stopped version (superseded by a rebuild) no longer has a lag worth reporting.
    this.metrics.forget(this.o.projection.view, this.o.version);
  }

  /**
   * Points each assigned partition at the view's own offset. A batch past it is caught in onBatch,
   * but a view that lost its data (or was dropped) while the group's offsets ran to the end of the
   * topics gets no batch to compare with until a new message arrives: it would stay empty. Not
   * recorded in `sought`: a batch fetched from the group offset before this seek lands must still
   * be taken for a gap (and seek again), never applied.
   */
  private async startFromView(assignment: Record<string, number[]>): Promise<void> {
    // Read concurrently: one round trip after another per partition and topic delayed the start.
    const starts = Object.entries(assignment).flatMap(([topic, partitions]) =>
      partitions.map(async (partition) => ({ topic, partition, offset: String((await this.appliedOffset(topic, partition)) + 1) })),
    );
    for (const start of await Promise.all(starts)) this.consumer?.seek(start);
  }

  private async appliedOffset(topic: string, partition: number): Promise<number> {
    const id = `${topic}/${partition}`;
    let v = this.applied.get(id);
    if (v === undefined) {
      v = await readAppliedOffset(this.o.redis, this.keys(partition).offsets, topic);
      this.applied.set(id, v);
    }
    return v;
  }

  /** Applied offsets of these topics of a partition as last seen by this runner; null if one is unknown. */
  private knownOffsets(topics: readonly string[], partition: number): [string, number][] | null {
    const out: [string, number][] = [];
    for (const t of topics) {
      const v = this.applied.get(`${t}/${partition}`);
      if (v === undefined) return null;
      out.push([t, v]);
    }
    return out;
  }

  private async onBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const { topic, partition } = batch;
    const id = `${topic}/${partition}`;
    if (!batch.messages.length) return;
    let applied = await this.appliedOffset(topic, partition);
    // Lag is measured against the batch's high watermark: no extra Kafka calls.
    const labels = { view: this.o.projection.view, version: this.o.version, topic, partition };
    const highWatermark = Number(batch.highWatermark);
    this.metrics.observe(labels, applied, highWatermark);
    const first = Number(batch.messages[0].offset);
    // After a commit marker the next message is two offsets on: not a gap, while continuous.
    if (first > applied + 1 && !this.continuous.has(id) && this.sought.get(id) !== applied + 1) {
      // The group's position is past what the view holds: replay from the view's own offset.
      this.o.log.warn({ topic, partition, first, applied }, 'group offset ahead of view; seeking to view offset');
      this.sought.set(id, applied + 1);
      this.settled.set(id, false);
      this.continuous.delete(id);
      this.consumer?.seek({ topic, partition, offset: String(applied + 1) });
      return;
    }
    this.continuous.add(id);
    const keys = this.keys(partition);
    const pending = batch.messages.filter((m) => Number(m.offset) > applied);
    if (!pending.length) {
      // A redelivery of messages the view already holds: nothing to write, only move the group on.
      resolveOffset(batch.lastOffset());
      this.settled.set(id, true);
      await commitOffsetsIfNecessary();
      return;
    }
    this.settled.set(id, false);
    for (let i = 0; i < pending.length; i += this.chunkSize) {
      if (!isRunning() || isStale()) return;
      const chunk = pending.slice(i, i + this.chunkSize);
      const decoder = this.decoders.get(topic)!;
      await decoder.prepare(chunk.map((m) => m.value));
      const events: SourceEvent[] = chunk.map((m) => ({
        topic,
        partition,
        offset: Number(m.offset),
        key: m.key ? m.key.toString() : null,
        value: m.value ? decoder.decode(m.value) : null,
      }));
      const last = events[events.length - 1].offset;
      // A multi-topic projection reads what its other topics wrote: the chunk is applied only if
      // none of them moved since (else computed again on the new state; atomic-apply.ts).
      const otherTopics = this.topics.filter((t) => t !== topic);
      let res;
      // First try with the other topics' offsets as this runner last applied or read them (no
      // round trip): if one moved meanwhile, the script refuses and they are read from Redis.
      let others = this.knownOffsets(otherTopics, partition);
      for (;;) {
        others ??= await readAppliedOffsets(this.o.redis, keys.offsets, otherTopics);
        const ops = await this.o.projection.project(events, keys, this.o.redis);
        res = await applyAtomically(this.o.redis, keys.offsets, topic, applied, last, ops, others);
        if (!res.conflict) break;
        if (!isRunning() || isStale()) return;
        others = null;
      }
      if (!res.applied) {
        // Someone else moved this partition's view on (a redelivery after a rebalance): take its
        // offset and let the next fetch continue from there.
        this.o.log.warn({ topic, partition, expected: applied, found: res.offset }, 'applied offset moved; skipping chunk');
        this.applied.set(id, res.offset);
        if (res.offset >= Number(chunk[0].offset)) resolveOffset(String(Math.min(res.offset, Number(batch.lastOffset()))));
        this.settled.set(id, res.offset >= Number(batch.lastOffset()));
        return;
      }
      applied = last;
      this.applied.set(id, applied);
      this.metrics.observe(labels, applied, highWatermark);
      resolveOffset(String(last));
      await heartbeat();
    }
    this.settled.set(id, true);
    await commitOffsetsIfNecessary();
  }
}
