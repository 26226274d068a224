import { CompressionTypes, Kafka, Producer, ProducerConfig, TopicMessages, Transaction } from 'kafkajs';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { TOPICS, TopicSpec, topicFor, topicName } from '../../schemas/catalog';
import { WireEncoder } from '../../services/kafka/encoding';
import type { SimEvent } from '../simulator/events';

export interface ProgressRecord {
  stream: string;
  chunk: number;
  chunks: number;
  events: number;
}

/** Messages per produce call: keeps every partition's record batch well under the broker's 1 MB. */
const SEND_BATCH = 20_000;

function writerOptions(prefix: string, transactionalId: string): ProducerConfig {
  return {
    transactionalId: `${prefix}${transactionalId}`,
    idempotent: true,
    maxInFlightRequests: 1,
    transactionTimeout: 60_000,
    retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 5_000 },
  };
}

/**
 * Starting a transaction registers the writer's transactional id with a new epoch, which settles
 * what an earlier writer of the id left: a transaction whose commit was sent is completed (also
 * when the sender saw a time-out), any other is aborted, and that writer can commit nothing more.
 * Only then is the progress topic final for the id's streams; read before, it could miss a commit
 * in flight, and the chunk would be written twice.
 */
async function fence(producer: Producer): Promise<void> {
  const tx = await producer.transaction();
  await tx.abort(); // nothing was added: ends the transaction locally, sends nothing
}

/** Fences writers of other threads or processes (by transactional id) before their streams' progress is read. */
export async function fenceWriters(kafka: Kafka, prefix: string, transactionalIds: readonly string[]): Promise<void> {
  await Promise.all(
    transactionalIds.map(async (id) => {
      const producer = kafka.producer(writerOptions(prefix, id));
      await producer.connect();
      try {
        await fence(producer);
      } finally {
        await producer.disconnect();
      }
    }),
  );
}

/**
 * Writes chunks of a stream to Kafka exactly once: each chunk's events and the stream's progress
 * record go out in one Kafka transaction, so a consumer reading committed data sees a chunk
 * completely or not at all, and the progress topic says exactly which chunks are in. The
 * transactional id names the stream's writer; a restarted writer for the same stream fences the
 * old one (its open transaction is aborted), so two writers can never both append a chunk.
 */
export class ChunkWriter {
  private readonly producer: Producer;
  private readonly encoder: WireEncoder;
  private readonly progressSpec = topicFor('ingest-progress')!;

  constructor(
    kafka: Kafka,
    registry: SchemaRegistry,
    private readonly prefix: string,
    transactionalId: string,
  ) {
    this.producer = kafka.producer(writerOptions(prefix, transactionalId));
    this.encoder = new WireEncoder(registry, prefix);
  }

  /** Connects and fences (see fence): read the stream's progress after this, not before. */
  async connect(): Promise<void> {
    await this.encoder.prepare(TOPICS);
    await this.producer.connect();
    await fence(this.producer);
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  /** Encodes events into per-topic message lists (message timestamp = event time). */
  private messages(events: readonly SimEvent[], progress: readonly ProgressRecord[]): TopicMessages[] {
    const byTopic = new Map<TopicSpec, TopicMessages>();
    const add = (spec: TopicSpec, data: Record<string, unknown>, time: number) => {
      let tm = byTopic.get(spec);
      if (!tm) {
        tm = { topic: topicName(spec, this.prefix), messages: [] };
        byTopic.set(spec, tm);
      }
      tm.messages.push({ key: spec.key(data), value: this.encoder.encode(spec, data), timestamp: String(time) });
    };
    for (const e of events) {
      const spec = topicFor(e.type);
      if (!spec) throw new Error(`no topic for event type ${e.type}`);
      add(spec, e.data, e.time);
    }
    for (const p of progress) add(this.progressSpec, p as unknown as Record<string, unknown>, events.length ? events[events.length - 1].time : 0);
    return [...byTopic.values()];
  }

  /** Commits events and progress records in one transaction; on any failure nothing is visible. */
  async commit(events: readonly SimEvent[], progress: readonly ProgressRecord[]): Promise<void> {
    const tx = await this.open(events, progress);
    try {
      await tx.commit();
    } catch (err) {
      await tx.abort().catch(() => {});
      throw err;
    }
  }

  /** Sends events and progress records in a new transaction and leaves it open for the caller to end. */
  async open(events: readonly SimEvent[], progress: readonly ProgressRecord[]): Promise<Transaction> {
    const topicMessages = this.messages(events, progress);
    const tx = await this.producer.transaction();
    try {
      // Several produce calls inside one transaction keep each request a bounded size. A call
      // never holds two slices of one topic: kafkajs keys a call's messages by topic, so a second
      // slice would replace the first.
      let batch: TopicMessages[] = [];
      let size = 0;
      const flush = async () => {
        if (batch.length) await tx.sendBatch({ topicMessages: batch, acks: -1, compression: CompressionTypes.None });
        batch = [];
        size = 0;
      };
      for (const tm of topicMessages) {
        for (let i = 0; i < tm.messages.length; i += SEND_BATCH) {
          if (batch.some((b) => b.topic === tm.topic)) await flush();
          const part = tm.messages.slice(i, i + SEND_BATCH);
          batch.push({ topic: tm.topic, messages: part });
          size += part.length;
          if (size >= SEND_BATCH) await flush();
        }
      }
      await flush();
      return tx;
    } catch (err) {
      await tx.abort().catch(() => {});
      throw err;
    }
  }
}
