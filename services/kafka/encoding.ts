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

  /**
   * Like encode, but into `arena`: the message is a view of the arena's buffer, so a batch of
   * messages costs one allocation instead of one (and a copy) per message.
   */
  encodeIn(arena: MessageArena, spec: TopicSpec, data: Record<string, unknown>): Buffer {
    const id = this.ids.get(spec.name);
    const type = this.types.get(spec.name);
    if (id === undefined || !type) throw new Error(`encoder not prepared for ${spec.name}`);
    let start = arena.pos;
    let end = type.encode(data, arena.buf, start + 5);
    if (end < 0) {
      // Not enough room left: continue in a fresh buffer (the old one stays with its messages).
      arena.renew();
      start = 0;
      end = type.encode(data, arena.buf, 5);
      while (end < 0) {
        arena.renew(arena.buf.length * 2);
        end = type.encode(data, arena.buf, 5);
      }
    }
    arena.buf[start] = 0;
    arena.buf.writeUInt32BE(id, start + 1);
    arena.pos = end;
    return arena.buf.subarray(start, end);
  }

  /** The wire format of an already Avro-encoded body of this topic's schema, in `arena`. */
  wrapIn(arena: MessageArena, spec: TopicSpec, body: Buffer): Buffer {
    const id = this.ids.get(spec.name);
    if (id === undefined) throw new Error(`encoder not prepared for ${spec.name}`);
    const size = 5 + body.length;
    if (arena.pos + size > arena.buf.length) arena.renew(size);
    const start = arena.pos;
    arena.buf[start] = 0;
    arena.buf.writeUInt32BE(id, start + 1);
    body.copy(arena.buf, start + 5);
    arena.pos = start + size;
    return arena.buf.subarray(start, start + size);
  }
}

/**
 * Space for the messages of one batch: encoded one after another into large buffers. A message
 * returned from it is a view that keeps its buffer alive; start a new arena for each batch rather
 * than reusing one whose messages may still be referenced.
 */
export class MessageArena {
  buf: Buffer;
  pos = 0;

  constructor(private readonly chunkBytes = 1024 * 1024) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
  }

  /** Continues in a new buffer of at least `atLeast` bytes. */
  renew(atLeast = 0): void {
    this.buf = Buffer.allocUnsafe(Math.max(this.chunkBytes, atLeast));
    this.pos = 0;
  }
}

/**
 * Decodes registry wire-format messages synchronously with locally compiled types: the schema of
 * each writer id is fetched once (`prepare`), and messages written with another schema version
 * than the reader's are resolved to the reader's shape (BACKWARD evolution). Lets a consumer
 * decode a whole batch without an await per message (the registry client's decode is async).
 */
export class WireDecoder<T = Record<string, unknown>> {
  private readonly resolvers = new Map<number, ReturnType<avro.Type['createResolver']> | null>();
  private readonly reader: avro.Type;

  constructor(
    private readonly registry: SchemaRegistry,
    spec: TopicSpec,
  ) {
    this.reader = avroTypeOf(spec);
  }

  /** Fetches the writer schemas of these messages that are not known yet. */
  async prepare(values: readonly (Buffer | null)[]): Promise<void> {
    for (const v of values) {
      if (!v || v.length < 5) continue;
      const id = v.readUInt32BE(1);
      if (this.resolvers.has(id)) continue;
      const writer = (await this.registry.getSchema(id)) as unknown as avro.Type;
      // null: the writer's schema is the reader's, no resolution needed.
      this.resolvers.set(id, writer.equals(this.reader) ? null : this.reader.createResolver(writer));
    }
  }

  decode(value: Buffer): T {
    if (value.length < 5 || value[0] !== 0) throw new Error('not a schema-registry wire-format message');
    const resolver = this.resolvers.get(value.readUInt32BE(1));
    if (resolver === undefined) throw new Error(`schema id ${value.readUInt32BE(1)} not prepared`);
    return (resolver ? this.reader.decode(value, 5, resolver) : this.reader.decode(value, 5)).value as T;
  }
}
