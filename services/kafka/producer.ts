import { CompressionTypes, Kafka, Partitioners, Producer, RecordMetadata } from 'kafkajs';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { TopicSpec, topicName } from '../../schemas/catalog';
import { WireEncoder } from './encoding';

/**
 * Produces catalog events in the registry's wire format (magic byte + schema id + Avro), encoded
 * by the same WireEncoder as the transactional ingest writers.
 * Idempotent producer (acks=all, one in-flight request): a retried send is never written twice.
 * The Java-compatible murmur2 partitioner keeps co-partitioning identical to any JVM producer.
 */
export class EventProducer {
  private readonly producer: Producer;
  private readonly encoder: WireEncoder;

  constructor(
    kafka: Kafka,
    registry: SchemaRegistry,
    private readonly prefix: string,
  ) {
    this.encoder = new WireEncoder(registry, prefix);
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

  /** Encodes and sends events of one topic; resolves once the broker has acknowledged all (with where they went). */
  async send(spec: TopicSpec, events: readonly Record<string, unknown>[]): Promise<RecordMetadata[]> {
    if (!events.length) return [];
    await this.encoder.prepare([spec]);
    const messages = events.map((e) => ({ key: spec.key(e), value: this.encoder.encode(spec, e) }));
    return this.producer.send({ topic: topicName(spec, this.prefix), messages, acks: -1, compression: CompressionTypes.None });
  }
}
