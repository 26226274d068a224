import type { Admin, Consumer, Kafka } from 'kafkajs';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { topicFor, topicName } from '../../schemas/catalog';
import type { ProgressRecord } from './chunk-writer';

/**
 * Knows how far every ingest stream has been committed, by tailing the compacted progress topic
 * with a read-committed consumer. `get` first waits until the tail has reached the topic's end
 * as of the call, so the answer includes every transaction committed before it — also those of
 * other workers and of a previous, killed run.
 */
export class ProgressTracker {
  private readonly latest = new Map<string, ProgressRecord>();
  /** partition -> last offset seen (including transaction markers) */
  private readonly seen = new Map<number, number>();
  private consumer: Consumer | null = null;
  private admin: Admin | null = null;
  private readonly topic: string;

  constructor(
    private readonly kafka: Kafka,
    private readonly registry: SchemaRegistry,
    prefix: string,
  ) {
    this.topic = topicName(topicFor('ingest-progress')!, prefix);
  }

  async start(): Promise<void> {
    this.admin = this.kafka.admin();
    await this.admin.connect();
    // A private group with no commits: every start reads the whole (compacted, small) topic.
    this.consumer = this.kafka.consumer({ groupId: `${this.topic}.reader.${process.pid}.${Date.now()}`, readUncommitted: false });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    this.consumer.on(this.consumer.events.END_BATCH_PROCESS, (e) => {
      const last = Number(e.payload.lastOffset);
      if (last > (this.seen.get(e.payload.partition) ?? -1)) this.seen.set(e.payload.partition, last);
    });
    await this.consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => {
        if (!message.value) return;
        this.note((await this.registry.decode(message.value)) as ProgressRecord);
      },
    });
  }

  /** Waits until everything committed so far has been read. */
  async caughtUp(timeoutMs = 60_000): Promise<void> {
    if (!this.admin) throw new Error('progress tracker not started');
    const ends = await this.admin.fetchTopicOffsets(this.topic);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const behind = ends.filter((p) => Number(p.high) > Number(p.low) && (this.seen.get(p.partition) ?? -1) < Number(p.high) - 1);
      if (!behind.length) return;
      if (Date.now() > deadline) throw new Error(`progress topic ${this.topic} not read to its end within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Last committed chunk of a stream, or -1 when nothing of it was committed. */
  async lastChunk(stream: string): Promise<number> {
    return (await this.get(stream))?.chunk ?? -1;
  }

  async get(stream: string): Promise<ProgressRecord | undefined> {
    await this.caughtUp();
    return this.peek(stream);
  }

  /** What is known now, without reading to the end first (call caughtUp once before a batch of peeks). */
  peek(stream: string): ProgressRecord | undefined {
    return this.latest.get(stream);
  }

  /** Records a commit this process made (the tail will confirm it shortly). */
  note(rec: ProgressRecord): void {
    const prev = this.latest.get(rec.stream);
    if (!prev || prev.chunk <= rec.chunk) this.latest.set(rec.stream, rec);
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect().catch(() => {});
    await this.admin?.disconnect().catch(() => {});
    this.consumer = null;
    this.admin = null;
  }
}
