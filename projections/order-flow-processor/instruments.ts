import crypto from 'crypto';
import os from 'os';
import type { Admin, Consumer, Kafka } from 'kafkajs';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { topicFor, topicName } from '../../schemas/catalog';
import { WireDecoder } from '../../services/kafka/encoding';
import type { Logger } from '../../services/log';
import type { ReferenceData } from './partition-state';

interface InstrumentRecord extends ReferenceData {
  symbol: string;
}

/**
 * reference.instruments (compacted, keyed by symbol) held in memory: read to its end at start,
 * then followed by a background consumer, so listings and corrections arrive within moments.
 * `catchUp()` waits until everything committed on the topic at the time of the call has been
 * read — what the processor does once before enriching a print of a ticker it does not know.
 *
 * The consumer is in a group of its own (unique per process, never committed: each processor
 * needs the whole topic, and an empty group without offsets is removed by the broker).
 */
export class InstrumentBook {
  private readonly byTicker = new Map<string, ReferenceData>();
  /** partition -> last offset read past (transaction markers included) */
  private readonly readTo = new Map<number, number>();
  private readonly topic: string;
  private readonly decoder: WireDecoder<InstrumentRecord>;
  private readonly groupId: string;
  private consumer: Consumer | null = null;

  constructor(
    private readonly kafka: Kafka,
    registry: SchemaRegistry,
    private readonly admin: Admin,
    topicPrefix: string,
    private readonly log: Logger,
  ) {
    const spec = topicFor('instrument')!;
    this.topic = topicName(spec, topicPrefix);
    this.decoder = new WireDecoder(registry, spec);
    this.groupId = `${topicPrefix}mdq.order-flow-processor.instruments.${os.hostname()}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  }

  get size(): number {
    return this.byTicker.size;
  }

  lookup(ticker: string): ReferenceData | undefined {
    return this.byTicker.get(ticker);
  }

  /** Starts following the topic and resolves once it is read to its end. */
  async start(timeoutMs = 60_000): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: this.groupId, readUncommitted: false, sessionTimeout: 30_000, maxWaitTimeInMs: 500 });
    this.consumer = consumer;
    consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
      const { partition, lastOffset } = e.payload;
      this.readTo.set(partition, Math.max(this.readTo.get(partition) ?? -1, Number(lastOffset)));
    });
    await consumer.connect();
    await consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        await this.decoder.prepare(batch.messages.map((m) => m.value));
        for (const m of batch.messages) {
          const symbol = m.key?.toString();
          if (!m.value) {
            if (symbol) this.byTicker.delete(symbol); // a tombstone: the instrument was delisted
            continue;
          }
          const i = this.decoder.decode(m.value);
          this.byTicker.set(i.symbol, { sector: i.sector, industry: i.industry, isETF: i.isETF, isIndex: i.isIndex });
        }
      },
    });
    await this.catchUp(timeoutMs);
    this.log.info({ instruments: this.byTicker.size }, 'reference.instruments loaded');
  }

  /** Waits until every message committed on the topic now has been read. */
  async catchUp(timeoutMs = 30_000): Promise<void> {
    // ListOffsets with read_committed isolation: the last stable offset, so an open transaction
    // on the topic is not waited for.
    const ends = await this.admin.fetchTopicOffsets(this.topic);
    const deadline = Date.now() + timeoutMs;
    const done = () => ends.every((p) => Number(p.high) === 0 || (this.readTo.get(p.partition) ?? -1) >= Number(p.high) - 1);
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`${this.topic} not read to its end within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<void> {
    const c = this.consumer;
    this.consumer = null;
    if (c) await c.disconnect();
  }
}
