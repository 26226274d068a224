import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { topicFor, avroTypeOf } from '../../schemas/catalog';
import { WireEncoder } from '../../services/kafka/encoding';
import { partitionOf } from '../../services/kafka/partition';

const spec = topicFor('option-print')!;
const type = avroTypeOf(topicFor('option-print')!);
const registry = { getRegistryIdBySchema: async () => 1234 } as unknown as SchemaRegistry;
const print = {
  id: 'p1',
  osi: 'SPY   261120C00600000',
  ticker: 'SPY',
  time: 1795200000000,
  price: 2.15,
  size: 10,
  exchange: 'CBOE',
  conditions: ['AUTO'],
  bidPrice: 2.1,
  askPrice: 2.2,
  underlyingPrice: 598.4,
};

describe('wire encoder', () => {
  it('writes the Confluent wire format: magic 0, the schema id, then the Avro body', async () => {
    const enc = new WireEncoder(registry, '');
    await enc.prepare([spec]);
    const b = enc.encode(spec, print);
    expect(b[0]).toBe(0);
    expect(b.readUInt32BE(1)).toBe(1234);
    expect(type.fromBuffer(b.subarray(5))).toEqual(print);
  });

  it('returns independent buffers and grows for large values', async () => {
    const enc = new WireEncoder(registry, '');
    await enc.prepare([spec]);
    const a = enc.encode(spec, print);
    const big = enc.encode(spec, { ...print, id: 'x'.repeat(200_000) });
    const c = enc.encode(spec, { ...print, id: 'p2' });
    expect(type.fromBuffer(a.subarray(5)).id).toBe('p1');
    expect(type.fromBuffer(big.subarray(5)).id).toHaveLength(200_000);
    expect(type.fromBuffer(c.subarray(5)).id).toBe('p2');
  });

  it('refuses a topic it was not prepared for', () => {
    expect(() => new WireEncoder(registry, '').encode(spec, print)).toThrow(/not prepared/);
  });
});

describe('partitionOf', () => {
  // murmur2 values of Kafka's Java client (Utils.murmur2), as published with other clients' tests;
  // the Java DefaultPartitioner takes (hash & 0x7fffffff) % partitions.
  const javaMurmur2: Record<string, number> = { '1': -1993445489, '12': 126087238, '123': -267702483, '21': -973932308, foobar: -790332482 };
  it.each(Object.entries(javaMurmur2))('puts key %j where a Java producer would', (key, hash) => {
    // Each count twice: the second answer comes from the memo.
    for (const n of [12, 7, 1, 12, 7, 1]) expect(partitionOf(key, n)).toBe((hash & 0x7fffffff) % n);
  });
});
