import crypto from 'crypto';

/**
 * The kafkajs hot-path patches (patches/kafkajs+2.2.4.patch) change how bytes are produced, never
 * which: checked here against straightforward reference implementations and kafkajs's own
 * decoders; the one-buffer produce request byte for byte against the upstream composition.
 */
const Encoder = require('kafkajs/src/protocol/encoder');
const Decoder = require('kafkajs/src/protocol/decoder');
const crc32C: (b: Buffer) => number = require('kafkajs/src/protocol/recordBatch/crc32C');
const Record = require('kafkajs/src/protocol/recordBatch/record/v0');
const RecordDecoder = require('kafkajs/src/protocol/recordBatch/record/v0/decoder');
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0');
const RecordBatchDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder');
const ProduceV3 = require('kafkajs/src/protocol/requests/produce/v3/request');
const encodeRequest = require('kafkajs/src/protocol/request');
const Long = require('kafkajs/src/utils/long');

/** CRC-32C (Castagnoli), one byte at a time from the reflected polynomial. */
const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function referenceCrc32C(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const b of buf) crc = TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Zigzag LEB128 of a safe integer, with BigInt arithmetic. */
function referenceVarLong(v: number): Buffer {
  let z = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
  const out: number[] = [];
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
  return Buffer.from(out);
}

describe('kafkajs patches', () => {
  it('crc32C (slicing-by-8) equals the bytewise checksum, and the standard check value', () => {
    expect(crc32C(Buffer.from('123456789'))).toBe(0xe3069283);
    for (let len = 0; len < 70; len++) {
      const b = crypto.randomBytes(len);
      expect(crc32C(b)).toBe(referenceCrc32C(b));
    }
    const big = crypto.randomBytes(1_000_003);
    expect(crc32C(big)).toBe(referenceCrc32C(big));
  });

  it('varints and varlongs are the zigzag LEB128 bytes and decode back', () => {
    const values = [
      0,
      1,
      -1,
      63,
      64,
      -64,
      -65,
      127,
      128,
      8191,
      8192,
      2 ** 20,
      -(2 ** 20),
      2 ** 29 - 1,
      2 ** 29,
      -(2 ** 30) + 1,
      2 ** 30,
      -(2 ** 30),
      2 ** 31 - 1,
      -(2 ** 31),
      2 ** 40,
      -(2 ** 40),
      2 ** 53 - 1,
      -(2 ** 53 - 1),
    ];
    for (const v of values) {
      const long = new Encoder().writeVarLong(v).buffer as Buffer;
      expect(long.equals(referenceVarLong(v))).toBe(true);
      expect(Number(new Decoder(long).readVarLong().toString())).toBe(v);
      if (v >= -(2 ** 31) && v < 2 ** 31) {
        const int = new Encoder().writeVarInt(v).buffer as Buffer;
        expect(int.equals(referenceVarLong(v))).toBe(true);
        expect(new Decoder(int).readVarInt()).toBe(v);
      }
    }
  });

  it('a record encodes to exactly its size and decodes to what was given', () => {
    for (let i = 0; i < 200; i++) {
      const key = i % 7 ? Buffer.from(`K${i}`) : null;
      const value = i % 11 ? crypto.randomBytes(i * 37) : null;
      const headers = i % 5 ? {} : { h: `v${i}`, x: ['1', '2'] };
      const enc = Record({ offsetDelta: i, timestampDelta: (i - 50) * 1_000_003, key, value, headers });
      const bytes = enc.buffer as Buffer;
      const d = new Decoder(bytes);
      const length = d.readVarInt();
      expect(d.offset + length).toBe(bytes.length);
      const r = RecordDecoder(d, { firstOffset: '1000', firstTimestamp: '1795200000000', magicByte: 2 });
      expect(r.offset).toBe(String(1000 + i));
      expect(r.timestamp).toBe(String(1795200000000 + (i - 50) * 1_000_003));
      expect(r.key === null ? null : r.key.toString()).toBe(key === null ? null : key.toString());
      expect(r.value === null ? null : (r.value as Buffer).equals(value!)).toBe(value === null ? null : true);
      expect(Object.keys(r.headers).sort()).toEqual(Object.keys(headers).sort());
    }
  });

  it('decoded offsets and timestamps: added as Numbers where exact, by the Long path beyond', () => {
    const TimestampTypes = require('kafkajs/src/protocol/timestampTypes');
    const Batch = require('kafkajs/src/consumer/batch');
    const bases = ['0', '1795200000000', '-1', String(2 ** 53 - 5), String(2n ** 53n + 11n), '9223372036854775000', '-9223372036854775000'];
    const deltas = [0, 1, -1, 127, 128, -129, 2 ** 31 - 1, -(2 ** 31), 2 ** 45, -(2 ** 45), 2 ** 48 + 3, 2 ** 53 - 1, -(2 ** 53 - 1)];
    for (const base of bases) {
      for (const delta of deltas) {
        const offsetDelta = Math.abs(delta) < 2 ** 31 ? delta : 7;
        const bytes = Record({ offsetDelta, timestampDelta: delta, key: null, value: Buffer.from('v') }).buffer as Buffer;
        const d = new Decoder(bytes);
        d.readVarInt();
        const context = { firstOffset: base, firstTimestamp: base, magicByte: 2 };
        const r = RecordDecoder(d, context);
        expect({ base, delta, offset: r.offset, timestamp: r.timestamp }).toEqual({
          base,
          delta,
          offset: String(BigInt(base) + BigInt(offsetDelta)),
          timestamp: String(BigInt(base) + BigInt(delta)),
        });
        expect(r.value.toString()).toBe('v');
        expect(Object.keys(r.batchContext)).toEqual(['firstOffset', 'firstTimestamp', 'magicByte']); // nothing visible added
      }
    }
    // A varlong too long for a Number is left to readVarLong, with nothing consumed.
    for (const v of [0, -1, 2 ** 48 - 1, -(2 ** 48), 2 ** 48, 2 ** 53 - 1, -(2 ** 53 - 1)]) {
      const bytes = new Encoder().writeVarLong(v).buffer as Buffer;
      const d = new Decoder(bytes);
      const n = d.readVarLongNumber();
      if (bytes.length <= 7) expect({ v, n, read: d.offset }).toEqual({ v, n: v, read: bytes.length });
      else expect({ v, n, read: d.offset }).toEqual({ v, n: null, read: 0 });
    }
    // Log-append time: the batch's max timestamp, the delta still read past.
    const bytes = Record({ offsetDelta: 3, timestampDelta: 99, key: null, value: null }).buffer as Buffer;
    const d = new Decoder(bytes);
    d.readVarInt();
    const r = RecordDecoder(d, { firstOffset: '10', firstTimestamp: '5', maxTimestamp: '1795200000123', timestampType: TimestampTypes.LOG_APPEND_TIME });
    expect([r.offset, r.timestamp]).toEqual(['13', '1795200000123']);
    // The consumer's batch keeps the messages at or after the fetched offset, beyond 2^53 too.
    for (const [fetched, offsets, kept] of [
      ['5', ['3', '4', '5', '6'], ['5', '6']],
      [String(2n ** 53n + 1n), [String(2n ** 53n), String(2n ** 53n + 1n), String(2n ** 53n + 2n)], [String(2n ** 53n + 1n), String(2n ** 53n + 2n)]],
      ['9223372036854775806', ['9223372036854775805', '9223372036854775806'], ['9223372036854775806']],
    ] as const) {
      const messages = offsets.map((offset) => ({ offset, key: null, value: null, batchContext: {}, isControlRecord: false }));
      const batch = new Batch('t', fetched, { partition: 0, highWatermark: '0', messages });
      expect(batch.messages.map((m: { offset: string }) => m.offset)).toEqual(kept);
    }
  });

  /** A produce request as upstream kafkajs 2.2.4 composes it: Record, RecordBatch, then one encoder per level. */
  async function referenceProduce(r: ProduceArgs): Promise<Buffer> {
    const topics = [];
    for (const { topic, partitions } of r.topicData) {
      const encodedPartitions = [];
      for (const { partition, messages, firstSequence } of partitions) {
        const now = Date.now();
        const ts = messages
          .filter((m) => m.timestamp != null)
          .map((m) => Number(m.timestamp))
          .sort((a, b) => a - b);
        const firstTimestamp = ts.length ? ts[0] : now;
        const maxTimestamp = ts.length ? ts[ts.length - 1] : now;
        const records = messages.map((m, i) =>
          Record({ key: m.key, value: m.value, headers: m.headers, offsetDelta: i, timestampDelta: Number(m.timestamp || now) - firstTimestamp }),
        );
        const batch = await RecordBatch({
          records,
          firstTimestamp,
          maxTimestamp,
          producerId: r.producerId,
          producerEpoch: r.producerEpoch,
          firstSequence,
          transactional: !!r.transactionalId,
          lastOffsetDelta: records.length - 1,
        });
        encodedPartitions.push(new Encoder().writeInt32(partition).writeInt32(batch.size()).writeEncoder(batch));
      }
      topics.push(new Encoder().writeString(topic).writeArray(encodedPartitions));
    }
    const payload = new Encoder().writeString(r.transactionalId).writeInt16(r.acks).writeInt32(r.timeout).writeArray(topics);
    const header = new Encoder().writeInt16(0).writeInt16(3).writeInt32(r.correlationId).writeString(r.clientId).writeEncoder(payload);
    return new Encoder().writeInt32(header.size()).writeEncoder(header).buffer;
  }

  interface Message {
    key: Buffer | string | null;
    value: Buffer | string | null;
    timestamp?: number | string;
    headers?: Record<string, string | string[]>;
  }
  interface ProduceArgs {
    acks: number;
    timeout: number;
    transactionalId: string | null;
    producerId: unknown;
    producerEpoch: number;
    clientId: string | null;
    correlationId: number;
    topicData: { topic: string; partitions: { partition: number; firstSequence?: number; messages: Message[] }[] }[];
  }

  function randomMessages(n: number, withTimestamps: boolean): Message[] {
    return Array.from({ length: n }, (_, i) => ({
      key: i % 9 === 0 ? null : i % 4 === 0 ? `key-${i}` : Buffer.from(`k${i}`),
      value: i % 13 === 0 ? null : i % 3 === 0 ? `value é ${i}` : crypto.randomBytes((i * 53) % 700),
      ...(withTimestamps ? { timestamp: i % 2 ? 1795200000000 + ((i * 7919) % 100_000) : String(1795200000000 + i) } : {}),
      ...(i % 10 === 0 ? { headers: { h: `v${i}`, multi: ['a', 'b'] } } : {}),
    }));
  }

  /** A produce v3 request's payload read up to its first record batch, which kafkajs's own decoder decodes. */
  async function readFirstBatch(request: { encode(): Promise<{ buffer: Buffer }> }) {
    const d = new Decoder((await request.encode()).buffer);
    const transactionalId: string | null = d.readString();
    d.readInt16(); // acks
    d.readInt32(); // timeout
    const topics: number = d.readInt32();
    const topic: string = d.readString();
    const partitions: number = d.readInt32();
    const partition: number = d.readInt32();
    const batch = await RecordBatchDecoder(new Decoder(d.readBytes()));
    return { transactionalId, topics, topic, partitions, partition, batch };
  }

  it('the one-buffer produce request is byte for byte the upstream encoding, and its batches decode', async () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(1795300000000);
    try {
      const cases: ProduceArgs[] = [
        {
          acks: -1,
          timeout: 30000,
          transactionalId: 'tx-processor-7',
          producerId: Long.fromNumber(4242),
          producerEpoch: 3,
          clientId: 'mdq-processor',
          correlationId: 77,
          topicData: [
            {
              topic: 'enriched',
              partitions: [
                { partition: 0, firstSequence: 1200, messages: randomMessages(500, true) },
                { partition: 5, firstSequence: 0, messages: randomMessages(1, true) },
              ],
            },
            { topic: 'consolidated-é', partitions: [{ partition: 11, messages: randomMessages(37, false) }] },
          ],
        },
        {
          acks: 1,
          timeout: 1000,
          transactionalId: null,
          producerId: Long.fromNumber(-1),
          producerEpoch: 0,
          clientId: null,
          correlationId: 1,
          topicData: [{ topic: 't', partitions: [{ partition: 2, messages: randomMessages(3, false) }] }],
        },
      ];
      for (const c of cases) {
        const request = ProduceV3(c);
        const patched: Buffer = (await encodeRequest({ correlationId: c.correlationId, clientId: c.clientId, request })).buffer;
        const reference = await referenceProduce(c);
        expect(patched.length).toBe(reference.length);
        expect(patched.equals(reference)).toBe(true);
      }

      // And the batch reads back through kafkajs's own decoder: CRC, offsets, timestamps, values.
      const c = cases[0];
      const { batch, ...head } = await readFirstBatch(ProduceV3(c));
      expect(head).toEqual({ transactionalId: 'tx-processor-7', topics: 2, topic: 'enriched', partitions: 2, partition: 0 });
      const messages = c.topicData[0].partitions[0].messages;
      expect(batch.inTransaction).toBe(true);
      expect(batch.records).toHaveLength(messages.length);
      batch.records.forEach((r: { offset: string; timestamp: string; value: Buffer | null }, i: number) => {
        expect(r.offset).toBe(String(i));
        expect(r.timestamp).toBe(String(Number(messages[i].timestamp)));
        const v = messages[i].value;
        expect(v === null ? r.value === null : r.value!.equals(Buffer.from(v))).toBe(true);
      });
    } finally {
      now.mockRestore();
    }
  });

  it('a compressed produce request (the upstream path, records planned as above) decodes to its messages', async () => {
    const messages = randomMessages(120, true);
    const request = ProduceV3({
      acks: -1,
      timeout: 30000,
      transactionalId: null,
      producerId: Long.fromNumber(-1),
      producerEpoch: 0,
      compression: 1, // GZIP
      topicData: [{ topic: 'gz', partitions: [{ partition: 3, messages }] }],
    });
    const { batch, ...head } = await readFirstBatch(request);
    expect(head).toEqual({ transactionalId: null, topics: 1, topic: 'gz', partitions: 1, partition: 3 });
    expect(batch.records).toHaveLength(messages.length);
    batch.records.forEach((r: { offset: string; timestamp: string; key: Buffer | null; value: Buffer | null; headers: Record<string, unknown> }, i: number) => {
      const m = messages[i];
      expect(r.offset).toBe(String(i));
      expect(r.timestamp).toBe(String(Number(m.timestamp)));
      expect(m.key === null ? r.key === null : r.key!.equals(Buffer.from(m.key))).toBe(true);
      expect(m.value === null ? r.value === null : r.value!.equals(Buffer.from(m.value))).toBe(true);
      expect(Object.keys(r.headers).sort()).toEqual(Object.keys(m.headers ?? {}).sort());
    });
  });

  it('fetchTopicOffsets waits for a leader of every partition instead of answering for some', async () => {
    const createAdmin = require('kafkajs/src/admin');
    const { createLogger, LEVELS } = require('kafkajs/src/loggers');
    const InstrumentationEventEmitter = require('kafkajs/src/instrumentation/emitter');
    // A freshly created topic on a cluster: partition 2 has no leader at first (left out of the
    // offsets answer), then none of them (an election), then all three.
    const answers = [[0, 1], [], [0, 1, 2]];
    let call = 0;
    let refreshes = 0;
    const cluster = {
      addTargetTopic: async () => undefined,
      refreshMetadataIfNecessary: async () => undefined,
      refreshMetadata: async () => void refreshes++,
      findTopicPartitionMetadata: () => [0, 1, 2].map((partitionId) => ({ partitionId })),
      fetchTopicsOffset: async ([{ topic, fromBeginning }]: { topic: string; fromBeginning: boolean }[]) => {
        const present = answers[Math.min(Math.floor(call++ / 2), answers.length - 1)];
        return present.length ? [{ topic, partitions: present.map((partition) => ({ partition, offset: fromBeginning ? '0' : String(10 + partition) })) }] : [];
      },
    };
    const admin = createAdmin({
      logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => undefined }),
      instrumentationEmitter: new InstrumentationEventEmitter(),
      retry: { initialRetryTime: 1, retries: 5 },
      cluster,
    });
    expect(await admin.fetchTopicOffsets('t')).toEqual(
      [0, 1, 2].map((partition) => ({ partition, offset: String(10 + partition), high: String(10 + partition), low: '0' })),
    );
    expect(refreshes).toBe(2);
  });
});

/**
 * A stand-in of a three-partition topic for kafkajs's sendMessages: brokers that keep a log per
 * partition with the broker's duplicate check (a batch whose first sequence is below the next
 * expected one is acknowledged again, not appended), and leaders that move when metadata is
 * refreshed after a failure.
 */
function sendMessagesStandIn(firstFailure: Error, lookupFailure?: Error, node1DelayMs = 0) {
  const sendMessages = require('kafkajs/src/producer/sendMessages');
  const createRetry = require('kafkajs/src/retry');
  const { createLogger, LEVELS } = require('kafkajs/src/loggers');
  const logs = new Map<string, string[]>(); // partition -> values, shared by every broker object
  const expected = new Map<string, number>(); // partition -> next sequence
  const sent: { node: number; partition: string; firstSequence: number }[] = [];
  let failNext = true;
  const broker = (node: number) => ({
    nodeId: node,
    produce: async ({
      topicData,
    }: {
      topicData: { topic: string; partitions: { partition: string; firstSequence: number; messages: { value: string }[] }[] }[];
    }) => {
      const partitions = topicData[0].partitions;
      if (node === 1 && node1DelayMs) await new Promise((r) => setTimeout(r, node1DelayMs));
      for (const p of partitions) sent.push({ node, partition: String(p.partition), firstSequence: p.firstSequence });
      // Broker 2's first request fails before it is written.
      if (node === 2 && failNext) {
        failNext = false;
        throw firstFailure;
      }
      for (const p of partitions) {
        const key = String(p.partition);
        const next = expected.get(key) ?? 0;
        if (p.firstSequence < next) continue; // a retried batch already in the log
        if (p.firstSequence !== next) throw new Error(`out of order sequence on ${key}: ${p.firstSequence}, expected ${next}`);
        logs.set(key, [...(logs.get(key) ?? []), ...p.messages.map((m) => m.value)]);
        expected.set(key, next + p.messages.length);
      }
      return {
        topics: [{ topicName: topicData[0].topic, partitions: partitions.map((p) => ({ partition: Number(p.partition), errorCode: 0, baseOffset: '0' })) }],
      };
    },
  });
  // Partitions 0 and 1 on broker 1, 2 on broker 2; after the failure 0 moves to 2 and 2 to 1.
  let leaders: Record<string, number> = { 0: 1, 1: 1, 2: 2 };
  let generation = 0;
  const brokers = new Map<string, ReturnType<typeof broker>>();
  const cluster = {
    targetTopics: new Set(['t']),
    addMultipleTargetTopics: async () => undefined,
    refreshMetadataIfNecessary: async () => undefined,
    refreshMetadata: async () => {
      leaders = { 0: 2, 1: 1, 2: 1 };
    },
    isConnected: () => true,
    connect: async () => undefined,
    // A closed connection replaces the broker objects, as kafkajs's broker pool does.
    removeBroker: () => void generation++,
    findTopicPartitionMetadata: () => [0, 1, 2].map((partitionId) => ({ partitionId })),
    findLeaderForPartitions: (_topic: string, partitions: string[]) => {
      const out: Record<string, number[]> = {};
      for (const p of partitions) (out[leaders[p]] ??= []).push(Number(p));
      return out;
    },
    findBroker: async ({ nodeId }: { nodeId: string }) => {
      if (lookupFailure && Number(nodeId) === 2) {
        const err = lookupFailure;
        lookupFailure = undefined;
        throw err;
      }
      const key = `${generation}/${nodeId}`;
      if (!brokers.has(key)) brokers.set(key, broker(Number(nodeId)));
      return brokers.get(key)!;
    },
  };
  const sequences = new Map<string, number>();
  const eosManager = {
    acquireBrokerLock: async () => undefined,
    releaseBrokerLock: async () => undefined,
    isTransactional: () => false,
    getProducerId: () => 1,
    getProducerEpoch: () => 0,
    getSequence: (_t: string, p: string) => sequences.get(String(p)) ?? 0,
    updateSequence: (_t: string, p: string, n: number) => sequences.set(String(p), (sequences.get(String(p)) ?? 0) + n),
  };
  const send = sendMessages({
    logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => undefined }),
    cluster,
    partitioner: ({ message }: { message: { key: string } }) => Number(message.key),
    eosManager,
    retrier: createRetry({ retries: 3, initialRetryTime: 1 }),
  });
  const messages = [0, 1, 2].flatMap((p) => [0, 1, 2].map((i) => ({ key: String(p), value: `${p}-${i}` })));
  return { logs, sent, brokerObjects: () => brokers.size, send: () => send({ acks: -1, timeout: 1000, topicMessages: [{ topic: 't', messages }] }) };
}

describe('kafkajs patches: produce retries', () => {
  const { createErrorFromCode } = require('kafkajs/src/protocol/error');
  const { KafkaJSConnectionClosedError } = require('kafkajs/src/errors');
  const failures: [string, () => Error][] = [
    ['a leader moved (NOT_LEADER_FOR_PARTITION)', () => createErrorFromCode(6)],
    ['a connection closed (new broker objects)', () => new KafkaJSConnectionClosedError('closed', { host: 'h', port: 2 })],
  ];
  it.each(failures)('after %s, every partition is written exactly once', async (_name, failure) => {
    const { logs, sent, send } = sendMessagesStandIn(failure());
    const answer = await send();
    for (const p of ['0', '1', '2']) expect(logs.get(p)).toEqual([0, 1, 2].map((i) => `${p}-${i}`));
    // Partition 0, acknowledged by broker 1, is not sent again to its new leader; partition 2
    // goes to its new leader with the sequence numbers it was first given.
    expect(sent.filter((s) => s.partition === '0')).toEqual([{ node: 1, partition: '0', firstSequence: 0 }]);
    expect(sent.filter((s) => s.partition === '2')).toEqual([
      { node: 2, partition: '2', firstSequence: 0 },
      { node: 1, partition: '2', firstSequence: 0 },
    ]);
    expect(answer.map((a: { partition: number }) => a.partition).sort()).toEqual([0, 1, 2]);
  });
});

it('kafkajs patches: a broker lookup that fails starts no request of that attempt; every partition written once', async () => {
  const { createErrorFromCode } = require('kafkajs/src/protocol/error');
  const { KafkaJSBrokerNotFound } = require('kafkajs/src/errors');
  const { logs, sent, send } = sendMessagesStandIn(createErrorFromCode(6), new KafkaJSBrokerNotFound('not found'), 50);
  await send();
  for (const p of ['0', '1', '2']) expect(logs.get(p)).toEqual([0, 1, 2].map((i) => `${p}-${i}`));
  // Nothing went to broker 1 in the attempt whose lookup of broker 2 failed: its first request
  // carries partitions 0 and 1 at sequence 0, once.
  expect(sent.filter((s) => s.node === 1 && s.partition === '0')).toEqual([{ node: 1, partition: '0', firstSequence: 0 }]);
});
