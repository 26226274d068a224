import type { Batch, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { RedisClient as Redis } from '../../services/redis/client';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { topicName } from '../../schemas/catalog';
import { WireDecoder } from '../../services/kafka/encoding';
import { PartitionKeys } from '../../services/views/keys';
import type { Logger } from '../../services/log';
import { sleep } from '../../services/stack/process';
import { ProjectorMetrics } from '../../services/metrics/projector';
import { applyAtomically, readAppliedOffset, readAppliedOffsets, readConsumedOffset, recordSeenOffset } from './atomic-apply';
import { LeadGate } from './lead-gate';
import { PartitionLane } from './partition-lane';
import type { Projection, SourceEvent } from './projection';
import { errorSummary } from '../../services/redis/errors';

export interface RunnerOptions {
  kafka: Kafka;
  registry: SchemaRegistry;
  redis: Redis;
  projection: Projection;
  version: number;
  topicPrefix: string;
  keyPrefix: string;
  log: Logger;
  /** Messages per atomic apply (DEFAULT_CHUNK_ROWS when absent); bounds the size of one transaction. */
  chunkSize?: number;
  /**
   * Batches kafkajs hands to the partition lanes at the same time (DEFAULT_PARTITIONS_CONCURRENTLY
   * when absent). The lanes then apply them, every partition's lane at once, each in order.
   */
  partitionsConcurrently?: number;
  /** Where applied offsets and lag are reported; the process registry's by default. */
  metrics?: ProjectorMetrics;
  /**
   * The consumer group's session timeout (DEFAULT_SESSION_TIMEOUT_MS when absent): how long a
   * member that stopped heartbeating (a killed process) holds its partitions before the group
   * hands them on.
   */
  sessionTimeoutMs?: number;
}

export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;

/**
 * Measured on the order-flow replay (2 cores): serial partitions left the projector's main thread
 * idle about 45 % of the time, waiting for Redis and Kafka round trips.
 */
export const DEFAULT_PARTITIONS_CONCURRENTLY = 4;

/**
 * Batches a partition's lane holds (the one being applied included) before onBatch waits. One is
 * enough for the overlap: the next fetch runs while the lanes apply. On the order-flow replay one
 * was faster than applying inside the handler, and two no faster than one.
 */
export const LANE_DEPTH = 1;
/**
 * Messages per atomic apply when a batch holds more (a replay or a catch-up; live batches are far
 * smaller). Larger chunks cost less per row on both sides: one set of round trips and one
 * transaction per chunk, and the coalesced writes (atomic-apply.ts) make one call per index key
 * for the whole chunk, so the more rows a chunk has, the fewer calls per row (the replay rates by
 * chunk size are in docs/benchmarks.md). The price: a chunk's EXEC blocks that Redis for its
 * duration (tens of ms at 3,000 rows), so during a catch-up a query on the same Redis can wait
 * that long. MDQ_PROJECTOR_CHUNK sets it per process.
 */
export const DEFAULT_CHUNK_ROWS = 3_000;
/** Longest the other topics wait for a lead topic (Projection.lead) that does not move before they are consumed anyway. */
export const LEAD_WAIT_MS = 60_000;
/** How often the lead topic's progress is read while others wait for it, and while none does. */
const LEAD_POLL_MS = 100;
const LEAD_POLL_IDLE_MS = 1_000;
/** Waits before applying a batch again after an error, by attempt (the last one repeats). */
const RETRY_MS = [250, 500, 1_000, 2_000, 5_000];

/** One consumer group per (view store, view, version): a rebuild or a second store never shares offsets. */
export function groupId(topicPrefix: string, keyPrefix: string, view: string, version: number): string {
  return `${topicPrefix}mdq.projector.${keyPrefix}.${view}.v${version}`;
}

/**
 * Runs one projection at one view version as a member of that version's consumer group.
 *
 * Exactly-once into Redis: each chunk's writes and the partition's applied offset commit in one
 * compare-and-apply transaction (atomic-apply.ts). The consumer group's committed offset is only a hint
 * for where to fetch: messages at or below the Redis offset are skipped, and when the group is
 * ahead of Redis (a view that was dropped or lost, or batches read ahead and not applied before a
 * stop), the runner seeks back to the Redis offset.
 *
 * Read-ahead: kafkajs fetches again only when every batch of the previous fetch has been handled,
 * so applying batches inside its handler left Redis and this process idle during each fetch and
 * while the last batch of a fetch ran alone (measured: each about half busy on the order-flow
 * replay). The handler therefore only queues a batch on its partition's lane (partition-lane.ts)
 * and moves the fetch position past it; each lane applies its batches in order, the lanes of all
 * partitions at once, while kafkajs fetches the next ones.
 */
export class ProjectionRunner {
  private consumer: Consumer | null = null;
  private readonly applied = new Map<string, number>();
  /** `topic/partition` -> its delivered batches, applied in order. */
  private readonly lanes = new Map<string, PartitionLane>();
  private stopping = false;
  private readonly sought = new Map<string, number>();
  /**
   * Partitions delivered continuously since the last group join or seek: their batches follow
   * what was delivered before (transaction markers, never delivered, account for any gap), so
   * only the first batch after a join or seek is compared with the view's offset.
   */
  private readonly continuous = new Set<string>();
  private readonly chunkSize: number;
  private readonly metrics: ProjectorMetrics;
  /** Per partition: the last chunk apply queued (oneAtATime). */
  private readonly partitionTurns = new Map<number, Promise<void>>();
  /**
   * Per topic: decodes a chunk synchronously into the catalog's (reader) schema, older writer
   * schemas resolved to it. The registry client's own decode costs an await per message.
   */
  private readonly decoders = new Map<string, WireDecoder>();
  readonly topics: string[];
  /** Projection.lead's topic name, if any. */
  private readonly leadTopic: string | null;
  /** Bumped by each group join: followLead of an earlier join no longer pauses or resumes anything. */
  private joins = 0;

  constructor(private readonly o: RunnerOptions) {
    this.chunkSize = o.chunkSize ?? DEFAULT_CHUNK_ROWS;
    this.metrics = o.metrics ?? ProjectorMetrics.for();
    this.topics = o.projection.topics.map((t) => topicName(t, o.topicPrefix));
    o.projection.topics.forEach((t, i) => this.decoders.set(this.topics[i], new WireDecoder(o.registry, t)));
    this.leadTopic = o.projection.lead ? topicName(o.projection.lead, o.topicPrefix) : null;
  }

  get version(): number {
    return this.o.version;
  }

  keys(partition: number): PartitionKeys {
    return new PartitionKeys(this.o.keyPrefix, this.o.projection.view, this.o.version, partition);
  }

  async start(): Promise<void> {
    const { kafka, projection, version, topicPrefix } = this.o;
    const sessionTimeout = this.o.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    const consumer = kafka.consumer({
      groupId: groupId(topicPrefix, this.o.keyPrefix, projection.view, version),
      sessionTimeout,
      // Kafka's rule of thumb: a third of the session timeout at most.
      heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeout / 3)),
      maxBytesPerPartition: 2 * 1024 * 1024,
      // A fetch of partitions with nothing new is held by the broker this long, and kafkajs sends
      // no other fetch meanwhile: with the default 5 s, partitions resumed after the lead topic
      // (or after a rebalance) started ~5 s late: the first prints of a replay were applied 8.8 s
      // after the spawn, 4.5 s with this. An idle consumer now polls twice a second, which costs nothing.
      maxWaitTimeInMs: 500,
    });
    this.consumer = consumer;
    // After a rebalance another instance may have advanced a partition: forget cached offsets.
    // startFromView seeks every assigned partition, so batches queued before the join are dropped
    // (they will be fetched again from the view's offsets).
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      this.applied.clear();
      this.sought.clear();
      this.continuous.clear();
      for (const lane of this.lanes.values()) lane.reset();
      const join = ++this.joins;
      const assignment = e.payload.memberAssignment;
      this.metrics.keepOnly(this.o.projection.view, this.o.version, assignment);
      // Paused before the first fetch of this generation; followLead resumes them.
      const followers = this.followersOf(assignment);
      if (followers.length) this.consumer?.pause(followers);
      void this.startFromView(assignment).catch((err) =>
        this.o.log.error({ err: errorSummary(err) }, 'could not start the assigned partitions from the view offsets'),
      );
      if (followers.length) void this.followLead(join, followers);
    });
    // Transactional topics end each transaction with a marker that is never delivered as a
    // message, so the applied offset stops short of the high watermark. A fetch that holds only
    // markers is never handed to onBatch; kafkajs reports it here (no messages), and it is queued
    // on the lane like a batch so that it is taken into `seen` in order (see acceptMarkers).
    consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
      const { topic, partition, batchSize, firstOffset, lastOffset } = e.payload;
      if (batchSize > 0 || this.stopping) return;
      const lane = this.lane(topic, partition);
      const epoch = lane.epoch;
      const first = Number(firstOffset ?? lastOffset);
      lane.push(() => this.acceptMarkers(topic, partition, lane, epoch, first, Number(lastOffset)));
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

  /**
   * Graceful stop: the lanes finish the chunk they are applying and drop what they hold queued;
   * then kafkajs commits (offsets read ahead included: the next start seeks back to the view's
   * offsets) and leaves the group.
   */
  async stop(): Promise<void> {
    const c = this.consumer;
    this.consumer = null;
    this.stopping = true;
    for (const lane of this.lanes.values()) lane.wake();
    await Promise.all([...this.lanes.values()].map((lane) => lane.idle()));
    if (c) await c.disconnect();
    // A stopped version (superseded by a rebuild) no longer has a lag worth reporting.
    this.metrics.forget(this.o.projection.view, this.o.version);
  }

  private lane(topic: string, partition: number): PartitionLane {
    const id = `${topic}/${partition}`;
    let lane = this.lanes.get(id);
    if (!lane) this.lanes.set(id, (lane = new PartitionLane()));
    return lane;
  }

  /** The assigned partitions of the topics other than the lead topic (none without a lead). */
  private followersOf(assignment: Record<string, number[]>): { topic: string; partitions: number[] }[] {
    if (!this.leadTopic) return [];
    return Object.entries(assignment)
      .filter(([topic, partitions]) => topic !== this.leadTopic && partitions.length > 0)
      .map(([topic, partitions]) => ({ topic, partitions }));
  }

  /**
   * Follows the lead topic for as long as this join lasts (lead-gate.ts): every LEAD_POLL_MS the
   * lead's ends and the view's lead offsets (whoever projects those partitions: they are read from
   * Redis) decide which followers wait. Followers start paused (the join handler) until their lead
   * partition is consumed to the end it had at the join (or stalls for LEAD_WAIT_MS); after that,
   * for a projection that sets waitForLeadAlways, they wait again while a backfill keeps it more
   * than a chunk behind. A later join or a stop takes over; an error leaves the followers consuming.
   */
  private async followLead(join: number, followers: { topic: string; partitions: number[] }[]): Promise<void> {
    const { kafka, redis, log } = this.o;
    const lead = this.leadTopic!;
    const partitions = new Set(followers.flatMap((f) => f.partitions));
    const gate = new LeadGate(LEAD_WAIT_MS);
    const joinEnds = new Map<number, number>();
    /** Partitions consumed once to their join end: they now wait only when more than a chunk behind. */
    const released = new Set<number>();
    let paused = new Set(partitions);
    const started = Date.now();
    const current = () => join === this.joins && !this.stopping;
    const admin = kafka.admin();
    let connected = false;
    try {
      while (current()) {
        try {
          if (!connected) await admin.connect();
          connected = true;
          const ends = (await admin.fetchTopicOffsets(lead)).filter((p) => partitions.has(p.partition));
          if (!joinEnds.size) for (const e of ends) joinEnds.set(e.partition, Number(e.high) - 1);
          const leadPartitions = await Promise.all(
            ends.map(async (e) => ({
              partition: e.partition,
              latest: released.has(e.partition) ? Number(e.high) - 1 : (joinEnds.get(e.partition) ?? Number(e.high) - 1),
              applied: await readConsumedOffset(redis, this.keys(e.partition).offsets, lead),
            })),
          );
          if (!current()) return;
          const always = this.o.projection.waitForLeadAlways === true;
          const { waiting, stalled } = gate.waiting(leadPartitions, (p) => (!released.has(p) ? 0 : always ? this.chunkSize : Infinity), Date.now());
          const resume = new Set([...paused].filter((p) => !waiting.has(p)));
          const pause = new Set([...waiting].filter((p) => !paused.has(p)));
          for (const p of partitions) if (!waiting.has(p)) released.add(p);
          if (resume.size) this.consumer?.resume(only(followers, resume));
          if (pause.size) this.consumer?.pause(only(followers, pause));
          const stalledNow = stalled.filter((p) => paused.has(p));
          if (stalledNow.length) log.warn({ lead, partitions: stalledNow }, 'lead topic not moving; consuming the others anyway');
          if (resume.size) log.info({ lead, waitedMs: Date.now() - started, partitions: [...resume] }, 'lead topic caught up; consuming the others');
          if (pause.size) log.info({ lead, partitions: [...pause] }, 'lead topic behind; the others wait for it');
          paused = waiting;
          // Without waitForLeadAlways there is nothing left to follow once every partition is released.
          if (!always && released.size === partitions.size) return;
        } catch (err) {
          // Kafka or Redis unavailable: nothing waits on a lead we cannot read; the next poll decides again.
          if (!current()) return;
          if (paused.size) log.warn({ err: errorSummary(err) }, 'could not follow the lead topic; consuming the others meanwhile');
          if (paused.size) this.consumer?.resume(only(followers, paused));
          paused = new Set();
          for (const p of partitions) released.add(p);
        }
        await sleep(paused.size ? LEAD_POLL_MS : LEAD_POLL_IDLE_MS);
      }
    } finally {
      await admin.disconnect().catch(() => {});
    }
  }

  /**
   * Points each assigned partition at the view's own offset. A batch past it is caught in projectBatch,
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

  /**
   * Queues the batch on its partition's lane and moves the fetch position past it. Waits while the
   * lane already holds LANE_DEPTH batches (heartbeating: kafkajs heartbeats between fetches), which
   * bounds what is read ahead.
   */
  private async onBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    if (!batch.messages.length) return;
    const lane = this.lane(batch.topic, batch.partition);
    while (lane.size >= LANE_DEPTH && isRunning() && !this.stopping) {
      await lane.room(LANE_DEPTH, 1_000);
      await heartbeat();
    }
    // A batch fetched before a seek is fetched again from the new position: never queue it.
    if (!isRunning() || isStale() || this.stopping) return;
    const epoch = lane.epoch;
    lane.push(() => this.applyBatch(batch, lane, epoch));
    resolveOffset(batch.lastOffset());
  }

  /**
   * Applies a queued batch, again after an error (Redis or the registry briefly gone) until it is
   * applied or dropped: compare-and-apply makes a retry safe whether or not the failed attempt's
   * transaction ran.
   */
  private async applyBatch(batch: Batch, lane: PartitionLane, epoch: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopping || lane.epoch !== epoch) return;
      try {
        await this.projectBatch(batch, lane, epoch);
        return;
      } catch (err) {
        const wait = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
        this.o.log.error({ err: errorSummary(err), topic: batch.topic, partition: batch.partition, retryInMs: wait }, 'could not apply a batch; retrying');
        // The failed attempt's transaction may have run: take the view's offset again.
        this.applied.delete(`${batch.topic}/${batch.partition}`);
        await sleep(wait);
      }
    }
  }

  /** Takes a fetch of transaction markers into `seen` if everything before it is applied. */
  private async acceptMarkers(topic: string, partition: number, lane: PartitionLane, epoch: number, first: number, last: number): Promise<void> {
    if (this.stopping || lane.epoch !== epoch) return;
    const applied = this.applied.get(`${topic}/${partition}`);
    if (applied === undefined || first - 1 > Math.max(applied, lane.seen)) return;
    await this.raiseSeen(topic, partition, lane, last);
  }

  /**
   * Records that every message of the partition up to `offset` is applied, when that is past the
   * applied offset (the partition ends with markers): lag reporting then takes it for caught up.
   */
  private async raiseSeen(topic: string, partition: number, lane: PartitionLane, offset: number): Promise<void> {
    if (offset <= lane.seen) return;
    lane.seen = offset;
    if (offset > (this.applied.get(`${topic}/${partition}`) ?? -1)) {
      await recordSeenOffset(this.o.redis, this.keys(partition).offsets, topic, offset).catch(() => {});
    }
  }

  private async projectBatch(batch: Batch, lane: PartitionLane, epoch: number): Promise<void> {
    const { topic, partition } = batch;
    const id = `${topic}/${partition}`;
    const dropped = () => this.stopping || lane.epoch !== epoch;
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
      this.seekTo(topic, partition, lane, applied + 1);
      return;
    }
    this.continuous.add(id);
    let pending = batch.messages.filter((m) => Number(m.offset) > applied);
    const decoder = this.decoders.get(topic)!;
    const keys = this.keys(partition);
    // A multi-topic projection reads what its other topics wrote: the chunk is applied only if
    // none of them moved since (else computed again on the new state; atomic-apply.ts).
    const otherTopics = this.topics.filter((t) => t !== topic);
    while (pending.length) {
      if (dropped()) return;
      const chunk = pending.slice(0, this.chunkSize);
      await decoder.prepare(chunk.map((m) => m.value));
      const events: SourceEvent[] = chunk.map((m) => ({
        topic,
        partition,
        offset: Number(m.offset),
        key: m.key ? m.key.toString() : null,
        value: m.value ? decoder.decode(m.value) : null,
      }));
      const last = events[events.length - 1].offset;
      // First try with the other topics' offsets as this runner last applied or read them (no
      // round trip): if one moved meanwhile, the apply refuses and they are read from Redis.
      const res = await this.oneAtATime(partition, otherTopics.length > 0, async () => {
        let others = this.knownOffsets(otherTopics, partition);
        for (;;) {
          others ??= await readAppliedOffsets(this.o.redis, keys.offsets, otherTopics);
          const ops = await this.o.projection.project(events, keys, this.o.redis);
          const r = await applyAtomically(this.o.redis, keys.offsets, topic, applied, last, ops, others);
          if (!r.conflict || dropped()) return r;
          others = null;
        }
      });
      if (res.conflict) return; // dropped meanwhile
      if (!res.applied) {
        // Someone else moved this partition's view (a redelivery after a rebalance): continue
        // after its offset.
        this.o.log.warn({ topic, partition, expected: applied, found: res.offset }, 'applied offset moved; continuing after it');
        applied = res.offset;
        this.applied.set(id, applied);
        pending = pending.filter((m) => Number(m.offset) > applied);
        // Its offset is before this batch (the view lost data meanwhile): replay from it.
        if (pending.length && Number(pending[0].offset) > applied + 1) this.seekTo(topic, partition, lane, applied + 1);
        continue;
      }
      applied = last;
      this.applied.set(id, applied);
      this.metrics.observe(labels, applied, highWatermark);
      pending = pending.slice(chunk.length);
    }
    // Every message of the batch is applied, and the markers it ends with are consumed.
    await this.raiseSeen(topic, partition, lane, Number(batch.lastOffset()));
  }

  /**
   * Runs a chunk's compute-and-apply alone among this runner's lanes of the same partition (the
   * other topics of a multi-topic projection). Concurrent, they refused each other's applies: a
   * slow chunk (a volatility price chunk re-pricing a day of surfaces) was computed again after
   * every quick chunk of another topic committed, and its topic stopped moving for minutes.
   */
  private async oneAtATime<T>(partition: number, shared: boolean, fn: () => Promise<T>): Promise<T> {
    if (!shared) return fn();
    const before = this.partitionTurns.get(partition) ?? Promise.resolve();
    let done!: () => void;
    const turn = before.then(() => new Promise<void>((r) => (done = r)));
    this.partitionTurns.set(partition, turn);
    await before;
    try {
      return await fn();
    } finally {
      done();
      if (this.partitionTurns.get(partition) === turn) this.partitionTurns.delete(partition);
    }
  }

  /** Fetches the partition again from `offset`, dropping what its lane holds queued. */
  private seekTo(topic: string, partition: number, lane: PartitionLane, offset: number): void {
    const id = `${topic}/${partition}`;
    this.sought.set(id, offset);
    this.continuous.delete(id);
    lane.reset();
    this.consumer?.seek({ topic, partition, offset: String(offset) });
  }
}

/** The topic partitions of `followers` whose partition number is in `numbers`. */
function only(followers: readonly { topic: string; partitions: number[] }[], numbers: ReadonlySet<number>): { topic: string; partitions: number[] }[] {
  return followers.map((f) => ({ topic: f.topic, partitions: f.partitions.filter((p) => numbers.has(p)) })).filter((f) => f.partitions.length > 0);
}
