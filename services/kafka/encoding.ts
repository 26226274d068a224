import avro from 'avsc';
import { SchemaType, type SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { TopicSpec, schemaText, subjectName } from '../../schemas/catalog';

/**
 * Confluent wire format (magic byte 0, 4-byte big-endian schema id, Avro binary) written with a
 * locally compiled avsc type. The schema id is the registry's id of exactly this schema text, so
 * the bytes are what the registry client would produce, without its per-message overhead — the
 * simulator's throughput depends on it.
 */
export class WireEncoder {
  private readonly ids = new Map<string, number>();
  private readonly types = new Map<string, avro.Type>();

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
      this.types.set(spec.name, avro.Type.forSchema(JSON.parse(schemaText(spec))));
    }
  }

  encode(spec: TopicSpec, data: Record<string, unknown>): Buffer {
    const id = this.ids.get(spec.name);
    const type = this.types.get(spec.name);
    if (id === undefined || !type) throw new Error(`encoder not prepared for ${spec.name}`);
    const body = type.toBuffer(data);
    const out = Buffer.allocUnsafe(body.length + 5);
    out[0] = 0;
    out.writeUInt32BE(id, 1);
    body.copy(out, 5);
    return out;
  }
}
