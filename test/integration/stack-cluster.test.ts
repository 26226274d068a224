import fs from 'fs';
import os from 'os';
import path from 'path';
import Redis from 'ioredis';
import { ConfigResourceTypes, Kafka, logLevel, type Admin } from 'kafkajs';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { TOPICS, topicName } from '../../schemas/catalog';
import { ensureSchemas, ensureTopics } from '../../services/kafka/topics';
import { parseRedisClusterUrl } from '../../services/redis/cluster-url';
import { isAlive, portOpen } from '../../services/stack/process';
import { StackEnv, stackDown, stackStatus, stackUp } from '../../services/stack/stack';
import { waitFor } from '../support/env';

/**
 * The cluster profile of the stack, brought up on free ports in a folder of its own: three KRaft
 * brokers that replicate every partition three times, the registry on them, a Redis Cluster of
 * three masters with a replica each; then `down`, which must leave no process and no port behind.
 * It is tied to this test's process (dieWithParent), as the tests' stacks are.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-cluster-stack-'));
const opts = { dataDir, profile: 'cluster' as const, freePorts: true, dieWithParent: true, env: {} };
let env: StackEnv;
let admin: Admin;
let upSeconds = 0;

beforeAll(async () => {
  const t0 = Date.now();
  env = await stackUp(opts);
  upSeconds = (Date.now() - t0) / 1000;
  admin = new Kafka({ brokers: env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
}, 300_000);

afterAll(async () => {
  await admin?.disconnect();
  await stackDown(opts);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const brokerConfig = async (names: string[]) => {
  const r = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configNames: names }] });
  return Object.fromEntries(r.resources[0].configEntries.map((e) => [e.configName, e.configValue]));
};

describe('the cluster profile', () => {
  it('starts (and says how long it took)', () => {
    process.stdout.write(`cluster profile up in ${upSeconds.toFixed(1)} s\n`);
    expect(env.KAFKA_BROKERS.split(',')).toHaveLength(3);
    expect(env.VIEWS_REDIS_URL).toBe(env.REDIS_URL);
  });

  it('has three brokers, and a created topic keeps three replicas in sync, two required', async () => {
    const cluster = await admin.describeCluster();
    expect(cluster.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    expect(
      await brokerConfig([
        'default.replication.factor',
        'min.insync.replicas',
        'offsets.topic.replication.factor',
        'transaction.state.log.replication.factor',
        'transaction.state.log.min.isr',
      ]),
    ).toEqual({
      'default.replication.factor': '3',
      'min.insync.replicas': '2',
      'offsets.topic.replication.factor': '3',
      'transaction.state.log.replication.factor': '3',
      'transaction.state.log.min.isr': '2',
    });
    const spec = TOPICS.find((t) => t.partitions > 1)!;
    await ensureTopics(admin, 'cluster-check.', [spec]);
    const name = topicName(spec, 'cluster-check.');
    // A broker learns of a new topic shortly after the controller, and a follower joins the ISR
    // once it has fetched: under load the first answers can say "unknown topic" or show an ISR of 2.
    const partitions = await waitFor(
      'every partition of the new topic in sync on three brokers',
      async () => {
        const meta = await admin.fetchTopicMetadata({ topics: [name] }).catch(() => null);
        const ps = meta?.topics[0].partitions;
        return ps?.length === spec.partitions && ps.every((p) => p.isr.length === 3) && ps;
      },
      60_000,
      250,
    );
    expect(partitions).toHaveLength(spec.partitions);
    for (const p of partitions) {
      expect(p.replicas.sort()).toEqual([1, 2, 3]);
      expect(p.isr.sort()).toEqual([1, 2, 3]);
    }
    // Leaders spread over the brokers, not all on one.
    expect(new Set(partitions.map((p) => p.leader)).size).toBe(3);
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name, configNames: ['min.insync.replicas'] }],
    });
    expect(described.resources[0].configEntries[0].configValue).toBe('2');
  });

  it('runs the registry on the cluster, its journal replicated three times', async () => {
    const spec = TOPICS[0];
    const ids = await ensureSchemas(new SchemaRegistry({ host: env.SCHEMA_REGISTRY_URL }), 'cluster-check.', [spec]);
    expect([...ids.values()][0]).toBeGreaterThan(0);
    const journal = await waitFor(
      "the registry's journal in sync on three brokers",
      async () => (await admin.fetchTopicMetadata({ topics: ['kafkasql-journal'] }).catch(() => null))?.topics[0].partitions,
      30_000,
      250,
    );
    expect(journal.map((p) => [p.replicas.length, p.isr.length])).toEqual([[3, 3]]);
  });

  it('runs a Redis Cluster of three masters with a connected replica each, reachable from its URL', async () => {
    const seeds = parseRedisClusterUrl(env.REDIS_URL)!;
    expect(seeds).toHaveLength(3);
    const node = new Redis(seeds[0].port, seeds[0].host);
    try {
      const info = String(await node.call('CLUSTER', 'INFO'));
      expect(info).toMatch(/cluster_state:ok/);
      expect(info).toMatch(/cluster_slots_assigned:16384/);
      expect(info).toMatch(/cluster_known_nodes:6/);
      expect(info).toMatch(/cluster_size:3/);
      const lines = String(await node.call('CLUSTER', 'NODES'))
        .trim()
        .split('\n');
      const flags = lines.map((l) => l.split(' ')[2]);
      expect(flags.filter((f) => f.includes('master'))).toHaveLength(3);
      expect(flags.filter((f) => f.includes('slave'))).toHaveLength(3);
      expect(lines.every((l) => l.split(' ')[7] === 'connected')).toBe(true);
    } finally {
      node.disconnect();
    }
    // A cluster client started from the URL's seeds writes and reads keys in every master's slots.
    const cluster = new Redis.Cluster(seeds);
    try {
      const keys = Array.from({ length: 30 }, (_, i) => `cluster-check:{k${i}}`);
      for (const k of keys) await cluster.set(k, k);
      for (const k of keys) expect(await cluster.get(k)).toBe(k);
      const masters = cluster.nodes('master');
      expect(masters).toHaveLength(3);
      for (const m of masters) expect(await m.dbsize()).toBeGreaterThan(0);
    } finally {
      cluster.disconnect();
    }
  });

  it('shows every node in stack status, with its role', async () => {
    const { components } = await stackStatus(opts);
    expect(components.map((c) => [c.name, c.ready])).toEqual([
      ['kafka', true],
      ['registry', true],
      ['redis-cluster', true],
    ]);
    const kafka = components[0].nodes;
    expect(kafka.map((n) => n.role.replace(' (quorum leader)', ''))).toEqual(['broker 1, controller', 'broker 2, controller', 'broker 3, controller']);
    expect(kafka.filter((n) => n.role.endsWith('(quorum leader)'))).toHaveLength(1);
    const redis = components[2].nodes;
    expect(redis.every((n) => n.pid !== null)).toBe(true);
    expect(redis.filter((n) => /^master, slots \d+-\d+$/.test(n.role))).toHaveLength(3);
    expect(redis.filter((n) => /^replica of 127\.0\.0\.1:\d+ \(connected\)$/.test(n.role))).toHaveLength(3);
  });

  it('stops with down, leaving no process and no port open', async () => {
    const { components } = await stackStatus(opts);
    const pids = components.flatMap((c) => (c.nodes.length ? c.nodes.map((n) => n.pid) : [c.pid])).filter((p): p is number => p !== null);
    expect(pids).toHaveLength(10);
    const ports = Object.values(JSON.parse(fs.readFileSync(path.join(dataDir, 'stack.json'), 'utf8')).ports as Record<string, number>);
    await admin.disconnect();
    const t0 = Date.now();
    await stackDown(opts);
    process.stdout.write(`cluster profile down in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    expect(pids.filter((p) => isAlive(p))).toEqual([]);
    expect((await Promise.all(ports.map((p) => portOpen(p)))).filter(Boolean)).toEqual([]);
  });
});
