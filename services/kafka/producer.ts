import { CompressionTypes, Kafka, Partitioners, Producer } from 'kafkajs';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { TopicSpec, subjectName, topicName } from '../../schemas/catalog';

/**
 * Produces catalog events in the registry's wire format (magic byte + schema id + Avro).
 * Idempotent producer (acks=all, one in-flight request): a retried send is never written twice.
 * The Java-compatible murmur2 partitioner keeps co-partitioning identical to any JVM producer.
 */
export class EventProducer {
  private readonly producer: Producer;
  private readonly schemaIds = new Map<string, number>();

  constructor(
    kafka: Kafka,
    private readonly registry: SchemaRegistry,
    private readonly prefix: string,
  ) {
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      // An idempotent producer retries without limit (kafkajs warns otherwise): a broker restart
      // delays a send, it never drops one.
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5_000 },
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  private async schemaId(spec: TopicSpec): Promise<number> {
    const subject = subjectName(spec, this.prefix);
    let id = this.schemaIds.get(subject);
    if (id === undefined) {
      id = await this.registry.getLatestSchemaId(subject);
      this.schemaIds.set(subject, id);
    }
    return id;
  }

  /** Encodes and sends events of one topic; resolves once the broker has acknowledged all. */
  async send(spec: TopicSpec, events: readonly Record<string, unknown>[]): Promise<void> {
    if (!events.length) return;
    const id = await this.schemaId(spec);
    const messages = await Promise.all(
      events.map(async (e) => ({ key: spec.key(e), value: await this.registry.encode(id, e) })),
    );
    await this.producer.send({ topic: topicName(spec, this.prefix), messages, acks: -1, compression: CompressionTypes.None });
  }
}
