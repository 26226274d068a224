import type avro from 'avsc';
import { SchemaType, type SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { TopicSpec, avroTypeOf, schemaText, subjectName } from '../../schemas/catalog';

/**
 * Confluent wire format (magic byte 0, 4-byte big-endian schema id, Avro binary) written with a
 * locally compiled avsc type. The schema id is the registry's id of exactly this schema text, so
 * the bytes are what the registry client would produce, without its per-message overhead — the
 * simulator's throughput depends on it.
 */
export class WireEncoder {
  private readonly ids = new Map<string, number>();
  private readonly types = new Map<string, avro.Type>();
  private scratch = Buffer.allocUnsafe(64 * 1024);

  constructor(
    private readonly registry: SchemaRegistry,
    private readonly prefix: string,
  ) {}

  /** Looks up the schema ids of the given topics (they must be registered already). */
  async prepare(specs: readonly TopicSpec[]): Promise<void> {
    for (const spec of specs) {
      if (this.ids.has(spec.name)) continue;
      const id = await this.registry.getRegistryIdBySchema(subjectName(spec, this.prefix), { type: SchemaType.AVRO, schema: schemaText(spec) });
      this.ids.set(spec.name, id);
      this.types.set(spec.name, avroTypeOf(spec));
    }
  }

  encode(spec: TopicSpec, data: Record<string, unknown>): Buffer {
    const id = this.ids.get(spec.name);
    const type = this.types.get(spec.name);
    if (id === undefined || !type) throw new Error(`encoder not prepared for ${spec.name}`);
    // Encode straight after the 5-byte header in a reused scratch buffer, then copy out once.
    let end = type.encode(data, this.scratch, 5);
    while (end < 0) {
      // avsc reports a too-small buffer with a negative position; grow and retry.
      this.scratch = Buffer.allocUnsafe(this.scratch.length * 2);
      end = type.encode(data, this.scratch, 5);
    }
    this.scratch[0] = 0;
    this.scratch.writeUInt32BE(id, 1);
    return Buffer.from(this.scratch.subarray(0, end));
  }
}
