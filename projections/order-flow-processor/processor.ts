import { CompressionTypes, Partitioners, type Admin, type Consumer, type EachBatchPayload, type Kafka, type Message, type Producer } from 'kafkajs';
import type { RedisClient as Redis } from '../../services/redis/client';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { MARKET_PARTITIONS, topicFor, topicName } from '../../schemas/catalog';
import type { OptionPrint } from '../../services/domain/order-flow';
import { MessageArena, WireDecoder, WireEncoder } from '../../services/kafka/encoding';
import type { Logger } from '../../services/log';
import { ProcessorMetrics } from '../../services/metrics/processor';
import { InstrumentBook } from './instruments';
import { OrderFlowPartition, UNKNOWN_REFERENCE, type ReferenceData } from './partition-state';
import { StateStore } from './state-store';

/**
 * The order-flow processor: market.option-prints (+ reference.instruments) ->
 * derived.order-flow.prints and derived.order-flow.consolidated, exactly once.
 *
 * WHY THIS IS EXACTLY ONCE
 *
 * 1. Outputs and input progress commit together. For each chunk of a partition, the derived
 *    events and the consumer group's offset for the source partition are written in ONE Kafka
 *    transaction (sendOffsets). Readers use read_committed, so a chunk's events are visible if and
 *    only if the group's committed offset C has moved past the chunk. Whatever happens, the input
 *    offsets below C have had their events committed exactly once, and those at or above C none.
 *
 * 2. Zombies are fenced. Each input partition has its own transactional id (…p07). Whoever takes a
 *    partition first initialises a producer with that id, which bumps the producer epoch: an older
 *    instance still working on the partition (paused by GC, partitioned from the group, or killed
 *    mid-transaction) can no longer commit, and its open transaction is aborted. Only then is C
 *    read, so C is final for as long as we own the partition.
 *
 * 3. State is a function of the input prefix. The cumulative volumes and open trades are a pure
 *    fold over the partition in offset order (OrderFlowPartition). They are kept in memory and,
 *    only AFTER a Kafka commit, the entries changed since the last write are written to Redis
 *    together with the offset S they correspond to, in one atomic compare-and-set script
 *    (state-store.ts). Redis therefore never runs ahead of Kafka: S <= C - 1 always (except after
 *    the group's offsets were reset or expired, handled in 4). Not every commit is followed by a
 *    write: one happens once `stateSaveIntervalMs` has passed since the partition's last write,
 *    when a commit reaches the partition's end (caught up: in live mode nearly every chunk), and
 *    at a graceful stop. Between writes the changed entries accumulate (each key once, with its
 *    latest value), so a contract that prints a hundred times in the interval is written once.
 *    The price is a longer replay into state after a crash or a rebalance (at most the
 *    interval's prints); 4 makes any S <= C - 1 correct.
 *
 * 4. On taking a partition (start, rebalance, or after any error): fence, read C, load the state
 *    and S. If S < C - 1 — a crash between a Kafka commit and its state write, or Redis lost — the
 *    messages S+1 … C-1 are REPLAYED into the state without producing anything (their events are
 *    already committed), giving exactly the state the crashed instance had at C - 1; production
 *    resumes at C. If S >= C (the group's offsets were deleted or reset while the state survived),
 *    production resumes at S + 1: the state is only ever written after its events committed.
 *    Hence every input message's events are committed once, computed from the same state a
 *    single uninterrupted run would have had — the derived topics equal the pure fold.
 *
 * 5. A failure anywhere in a chunk (Kafka, Redis, a compare-and-set that finds another writer)
 *    invalidates the partition's in-memory state, which may be ahead of what committed; the next
 *    batch of the partition goes through 4 again.
 *
 * Limits: if both the Redis state and the group's offsets are lost, the processor starts over and
 * the derived topics receive the events a second time (a rebuild then needs fresh topics).
 * Reference data joined from reference.instruments is read as it is at processing time, so a
 * replay after an instrument changed can differ in sector/industry (never in counts or grouping).
 */

export const PROCESSOR = 'order-flow-processor';

export function processorGroupId(topicPrefix: string): string {
  return `${topicPrefix}mdq.order-flow-processor`;
}

export function transactionalIdOf(topicPrefix: string, partition: number): string {
  return `${topicPrefix}mdq.order-flow-processor.p${String(partition).padStart(2, '0')}`;
}

export interface ProcessorOptions {
  kafka: Kafka;
  registry: SchemaRegistry;
  redis: Redis;
  topicPrefix: string;
  keyPrefix: string;
  log: Logger;
  /** risk-free rate for implied volatility and greeks */
  rate: number;
  /** input messages per Kafka transaction (default 2000) */
  chunkSize?: number;
  /**
   * Longest time between two writes of a partition's state to Redis while it is behind its end
   * (default 5 s; 0 writes after every commit). A longer one writes less, replays more after a crash.
   */
  stateSaveIntervalMs?: number;
  /** consumer group session timeout (default 30 s; the broker's minimum is 6 s) */
  sessionTimeoutMs?: number;
  /** partitions processed at once (default: all market partitions) */
  concurrency?: number;
  /** bytes fetched per partition and request (bounds a batch; default 1 MiB) */
  fetchBytesPerPartition?: number;
  metrics?: ProcessorMetrics;
  /**
   * Test hook: the process kills itself (SIGKILL) right after its Nth Kafka commit, before the
   * state write — the crash window the replay in (4) exists for.
   */
  crashAfterCommits?: number;
}

interface PartitionContext {
  partition: number;
  producer: Producer;
  state: OrderFlowPartition;
  /** last input offset folded into `state` */
  folded: number;
  /** offset of the state stored in Redis: the compare-and-set expectation */
  persisted: number;
  /** when the state was last written (or loaded), ms since the epoch */
  savedAt: number;
  /** first input offset whose events are not committed yet (C) */
  produceFrom: number;
  /** the first batch after loading has been checked against the state offset */
  checked: boolean;
  valid: boolean;
}

const printSpec = topicFor('option-print')!;
const enrichedSpec = topicFor('enriched-print')!;
const consolidatedSpec = topicFor('consolidated-trade')!;

export class OrderFlowProcessor {
  private consumer: Consumer | null = null;
  private readonly admin: Admin;
  private readonly book: InstrumentBook;
  private readonly store: StateStore;
  private readonly decoder: WireDecoder<OptionPrint>;
  private readonly encoder: WireEncoder;
  private readonly contexts = new Map<number, PartitionContext>();
  private readonly loading = new Map<number, Promise<PartitionContext>>();
  /** tickers already re-read for once (unknown to reference.instruments at the time) */
  private readonly reread = new Set<string>();
  private readonly metrics: ProcessorMetrics;
  private readonly chunkSize: number;
  private readonly stateSaveIntervalMs: number;
  private commits = 0;
  private processedSinceReport = 0;
  private reportTimer: NodeJS.Timeout | null = null;
  readonly groupId: string;
  readonly sourceTopic: string;
  readonly enrichedTopic: string;
  readonly consolidatedTopic: string;

  constructor(private readonly o: ProcessorOptions) {
    this.admin = o.kafka.admin();
    this.book = new InstrumentBook(o.kafka, o.registry, this.admin, o.topicPrefix, o.log);
    this.store = new StateStore(o.redis, o.keyPrefix);
    this.decoder = new WireDecoder(o.registry, printSpec);
    this.encoder = new WireEncoder(o.registry, o.topicPrefix);
    this.metrics = o.metrics ?? ProcessorMetrics.for();
    this.chunkSize = o.chunkSize ?? 2_000;
    this.stateSaveIntervalMs = o.stateSaveIntervalMs ?? 5_000;
    this.groupId = processorGroupId(o.topicPrefix);
    this.sourceTopic = topicName(printSpec, o.topicPrefix);
    this.enrichedTopic = topicName(enrichedSpec, o.topicPrefix);
    this.consolidatedTopic = topicName(consolidatedSpec, o.topicPrefix);
  }

  async start(): Promise<void> {
    const { kafka, log } = this.o;
    await this.admin.connect();
    await this.encoder.prepare([enrichedSpec, consolidatedSpec]);
    await this.book.start();
    const consumer = kafka.consumer({
      groupId: this.groupId,
      readUncommitted: false,
      sessionTimeout: this.o.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: 3_000,
      // Bounds a batch (~8,000 prints per MiB): the decoded batch is what every young-generation
      // collection copies while it is processed, so larger fetches cost GC time, not just memory.
      maxBytesPerPartition: this.o.fetchBytesPerPartition ?? 1024 * 1024,
      maxBytes: 32 * 1024 * 1024,
    });
    this.consumer = consumer;
    // A (re)join may hand partitions to or take them from this instance: every partition's state
    // is reloaded (and its producer re-fenced) on its next batch; lost partitions free their producer.
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      const assigned = new Set(e.payload.memberAssignment[this.sourceTopic] ?? []);
      for (const [p, ctx] of this.contexts) {
        ctx.valid = false;
        if (!assigned.has(p)) {
          this.contexts.delete(p);
          void ctx.producer.disconnect().catch(() => {});
          this.metrics.forget(PROCESSOR, p);
        }
      }
      log.info({ partitions: [...assigned].sort((a, b) => a - b) }, 'joined the group');
      // Take the partitions now rather than on their next batch: a partition whose state is
      // behind its committed output must be replayed even if no new print ever arrives on it.
      for (const p of assigned) {
        this.context(p)
          .then((ctx) => {
            if (ctx.valid && !ctx.checked && ctx.folded + 1 < ctx.produceFrom) {
              ctx.checked = true;
              this.consumer?.seek({ topic: this.sourceTopic, partition: p, offset: String(ctx.folded + 1) });
            }
          })
          .catch((err) => log.warn({ partition: p, err: (err as Error).message }, 'taking the partition failed; retried on its next batch'));
      }
    });
    consumer.on(consumer.events.CRASH, (e) => {
      log.error({ err: e.payload.error?.message, restart: e.payload.restart }, 'consumer crashed');
      // Without a restart nothing more would be processed: let the supervisor start a new process.
      if (!e.payload.restart) process.exit(1);
    });
    await consumer.connect();
    await consumer.subscribe({ topic: this.sourceTopic, fromBeginning: true });
    this.reportTimer = setInterval(() => {
      if (this.processedSinceReport) log.info({ prints: this.processedSinceReport, perSecond: Math.round(this.processedSinceReport / 10) }, 'processed');
      this.processedSinceReport = 0;
    }, 10_000);
    this.reportTimer.unref();
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.o.concurrency ?? MARKET_PARTITIONS,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  /** Graceful stop: the running chunks finish and commit, then the group is left. */
  async stop(): Promise<void> {
    if (this.reportTimer) clearInterval(this.reportTimer);
    const c = this.consumer;
    this.consumer = null;
    if (c) await c.disconnect();
    // The running chunks have finished: a valid state is exactly what committed. Writing it now
    // spares whoever takes the partitions next the replay of the last interval.
    await Promise.all(
      [...this.contexts.values()]
        .filter((ctx) => ctx.valid && ctx.folded > ctx.persisted)
        .map((ctx) =>
          this.save(ctx).catch((err) =>
            this.o.log.warn({ partition: ctx.partition, err: (err as Error).message }, 'state not written at stop; the next owner replays it'),
          ),
        ),
    );
    await Promise.all([...this.contexts.values()].map((ctx) => ctx.producer.disconnect().catch(() => {})));
    this.contexts.clear();
    await this.book.stop();
    await this.admin.disconnect();
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, isStale } = payload;
    if (!batch.messages.length || isStale()) return;
    const ctx = await this.context(batch.partition);
    try {
      await this.process(ctx, payload);
    } catch (err) {
      // The in-memory state may be ahead of what committed: reload before the next batch.
      ctx.valid = false;
      // A rebalance interrupting a batch (heartbeat) is routine: every partition is reloaded anyway.
      const routine = /rebalanc/i.test((err as Error).message);
      this.o.log[routine ? 'debug' : 'warn']({ partition: ctx.partition, err: (err as Error).message }, 'batch interrupted; the partition is reloaded');
      throw err;
    }
  }

  /** The partition's valid context, loading it (once, however many callers wait) if needed. */
  private context(partition: number): Promise<PartitionContext> {
    const ctx = this.contexts.get(partition);
    if (ctx?.valid) return Promise.resolve(ctx);
    let loading = this.loading.get(partition);
    if (!loading) {
      loading = this.load(partition).finally(() => this.loading.delete(partition));
      this.loading.set(partition, loading);
    }
    return loading;
  }

  /** Takes a partition: fence, read the committed offset, load the state (module comment, 2 and 4). */
  private async load(partition: number): Promise<PartitionContext> {
    const { kafka, topicPrefix, log } = this.o;
    const old = this.contexts.get(partition);
    if (old) {
      old.valid = false;
      this.contexts.delete(partition);
      await old.producer.disconnect().catch(() => {});
    }
    const producer = kafka.producer({
      transactionalId: transactionalIdOf(topicPrefix, partition),
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: 60_000,
      // Like every idempotent producer here: a broker restart delays a send, it never fails it
      // half-way (a failure would only abort the transaction, but retrying is cheaper).
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5_000 },
      // Messages carry their partition explicitly (the source's); the partitioner is never asked.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    // kafkajs initialises the transactional producer id on the first transaction: that
    // InitProducerId is the fence (the epoch bump aborts a zombie's open transaction).
    const fence = await producer.transaction();
    await fence.abort();
    const [{ partitions }] = await this.admin.fetchOffsets({ groupId: this.groupId, topics: [this.sourceTopic] });
    const committed = Number(partitions.find((p) => p.partition === partition)?.offset ?? -1);
    const stored = await this.store.load(partition);
    if (stored.discarded) log.warn({ partition }, 'processor state in another format discarded; rebuilding it by replay');
    let produceFrom = committed < 0 ? stored.offset + 1 : committed;
    if (produceFrom < stored.offset + 1) {
      log.warn({ partition, committed, stateOffset: stored.offset }, 'group offset behind the state (offsets reset or expired); resuming after the state');
      produceFrom = stored.offset + 1;
    }
    if (stored.offset + 1 < produceFrom)
      log.info({ partition, from: stored.offset + 1, to: produceFrom - 1 }, 'state behind the committed output; replaying into state only');
    const ctx: PartitionContext = {
      partition,
      producer,
      state: new OrderFlowPartition(partition, this.o.rate, { volumes: stored.volumes, consolidator: stored.consolidator }),
      folded: stored.offset,
      persisted: stored.offset,
      savedAt: Date.now(),
      produceFrom,
      checked: false,
      valid: true,
    };
    this.contexts.set(partition, ctx);
    return ctx;
  }

  private async process(ctx: PartitionContext, payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { partition } = ctx;
    // Loading the partition may have sought it (GROUP_JOIN): this batch is then from before the seek.
    if (isStale()) return;
    const first = Number(batch.messages[0].offset);
    if (!ctx.checked) {
      ctx.checked = true;
      // The consumer fetches from the group's committed offset (or its own last position); the
      // state needs every message after S. Seek back once; a later gap is transaction markers.
      if (first > ctx.folded + 1) {
        this.consumer?.seek({ topic: batch.topic, partition, offset: String(ctx.folded + 1) });
        return;
      }
    }
    // Messages already in the state are skipped, and so is a message without a value (no print:
    // a tombstone would otherwise stop the partition for good).
    const msgs = batch.messages.filter((m) => m.value !== null && (first > ctx.folded || Number(m.offset) > ctx.folded));
    const batchEnd = Number(batch.lastOffset());
    if (!msgs.length) {
      resolveOffset(batch.lastOffset());
      return;
    }
    const n = msgs.length;
    const offsets = new Array<number>(n);
    const prints = new Array<OptionPrint>(n);
    await this.decoder.prepare(msgs.map((m) => m.value));
    for (let i = 0; i < n; i++) {
      offsets[i] = Number(msgs[i].offset);
      prints[i] = this.decoder.decode(msgs[i].value!);
    }
    await this.ensureReference(prints);

    // Replay: events of offsets below C are committed already; rebuild the state only.
    let i = 0;
    while (i < n && offsets[i] < ctx.produceFrom) {
      ctx.state.apply(prints[i], offsets[i], this.referenceOf(prints[i].ticker));
      i++;
    }
    if (i > 0) {
      // Offsets between the last replayed print and C (or the batch's end) are transaction
      // markers: the state covers them too, so it ends exactly at C - 1 once the replay is over.
      ctx.folded = i < n ? ctx.produceFrom - 1 : Math.max(offsets[n - 1], Math.min(batchEnd, ctx.produceFrom - 1));
      await this.save(ctx);
      this.metrics.replayed.inc({ processor: PROCESSOR, partition: String(partition) }, i);
      resolveOffset(String(ctx.folded));
    }

    for (let start = i; start < n; start += this.chunkSize) {
      // Stop between chunks: on shutdown, on a seek, or when a rebalance invalidated the partition.
      if (!isRunning() || isStale() || !ctx.valid) return;
      const end = Math.min(n, start + this.chunkSize);
      const enriched: Message[] = new Array(end - start);
      const consolidated: Message[] = new Array(end - start);
      const arena = new MessageArena();
      for (let k = start; k < end; k++) {
        const p = prints[k];
        const out = ctx.state.apply(p, offsets[k], this.referenceOf(p.ticker));
        const timestamp = String(p.time);
        const key = msgs[k].key;
        // Same key and same partition as the source print (co-partitioning). The consolidated
        // version is already Avro-encoded by the consolidator (its state is those bytes).
        enriched[k - start] = {
          key,
          partition,
          timestamp,
          value: this.encoder.encodeIn(arena, enrichedSpec, out.enriched as unknown as Record<string, unknown>),
        };
        consolidated[k - start] = { key, partition, timestamp, value: this.encoder.wrapIn(arena, consolidatedSpec, out.consolidatedBody) };
      }
      // The last chunk of a batch also covers the batch's trailing transaction markers, so the
      // committed offset (and the lag) reach the partition's end.
      const last = end === n ? Math.max(offsets[n - 1], batchEnd) : offsets[end - 1];
      ctx.folded = last;
      await this.commit(ctx, enriched, consolidated, last);
      ctx.produceFrom = last + 1;
      if (this.o.crashAfterCommits && ++this.commits >= this.o.crashAfterCommits) process.kill(process.pid, 'SIGKILL');
      // Write the state when the interval is over or the partition is caught up: the commit
      // covers the partition's end as fetched, or all but one offset of it — a transaction's
      // marker that the fetch cut off arrives alone and kafkajs never hands such a batch to
      // eachBatch, so an idle partition would otherwise keep its last interval unwritten.
      if (last + 2 >= Number(batch.highWatermark) || Date.now() - ctx.savedAt >= this.stateSaveIntervalMs) await this.save(ctx);
      resolveOffset(String(last));
      this.metrics.processed.inc({ processor: PROCESSOR, partition: String(partition) }, end - start);
      this.metrics.observe(PROCESSOR, partition, last, Number(batch.highWatermark));
      this.processedSinceReport += end - start;
      await heartbeat();
    }
  }

  /** One Kafka transaction: both outputs and the source offset after `last`. */
  private async commit(ctx: PartitionContext, enriched: Message[], consolidated: Message[], last: number): Promise<void> {
    const tx = await ctx.producer.transaction();
    try {
      await tx.sendBatch({
        topicMessages: [
          { topic: this.enrichedTopic, messages: enriched },
          { topic: this.consolidatedTopic, messages: consolidated },
        ],
        acks: -1,
        compression: CompressionTypes.None,
      });
      await tx.sendOffsets({
        consumerGroupId: this.groupId,
        topics: [{ topic: this.sourceTopic, partitions: [{ partition: ctx.partition, offset: String(last + 1) }] }],
      });
      await tx.commit();
    } catch (err) {
      await tx.abort().catch(() => {});
      throw err;
    }
  }

  /** Writes the state changed since the last save (after the Kafka commit that covers it). */
  private async save(ctx: PartitionContext): Promise<void> {
    const ok = await this.store.save(ctx.partition, ctx.persisted, ctx.folded, ctx.state.takeTouched());
    if (!ok) throw new Error(`partition ${ctx.partition}: processor state was written by another instance`);
    ctx.persisted = ctx.folded;
    ctx.savedAt = Date.now();
  }

  /** Unknown tickers: read reference.instruments to its end once before enriching their prints. */
  private async ensureReference(prints: readonly OptionPrint[]): Promise<void> {
    let unknown: Set<string> | null = null;
    for (const p of prints) if (!this.book.lookup(p.ticker) && !this.reread.has(p.ticker)) (unknown ??= new Set()).add(p.ticker);
    if (!unknown) return;
    await this.book.catchUp();
    for (const t of unknown) {
      this.reread.add(t);
      if (!this.book.lookup(t))
        this.o.log.warn({ ticker: t }, 'ticker not in reference.instruments: sector and industry NOT_APPLICABLE, isETF and isIndex false');
    }
  }

  private referenceOf(ticker: string): ReferenceData {
    return this.book.lookup(ticker) ?? UNKNOWN_REFERENCE;
  }
}
