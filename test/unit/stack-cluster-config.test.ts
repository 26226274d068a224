import fs from 'fs';
import os from 'os';
import path from 'path';
import { topicReplication } from '../../services/kafka/replication';
import { parseRedisClusterUrl } from '../../services/redis/cluster-url';
import { tiedToParent } from '../../services/stack/parent-death';
import { defaultDataDir, repoRoot } from '../../services/stack/paths';
import { stackProfile } from '../../services/stack/profile';
import { perNodeMaxmemory } from '../../services/stack/redis-memory';
import { CLUSTER_DEV_PORTS, DEV_PORTS, stackStatus } from '../../services/stack/stack';

/** The cluster profile's configuration; nothing here starts a process (stackStatus reads pid files, and a fresh folder has none). */
const given = { SCHEMA_REGISTRY_URL: 'http://r/apis/ccompat/v7' };

describe('the cluster profile of the stack', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-stack-cluster-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names three brokers and one Redis Cluster that is both REDIS_URL and VIEWS_REDIS_URL', async () => {
    const s = await stackStatus({ dataDir: dir, profile: 'cluster', env: given });
    expect(s.components.map((c) => c.name)).toEqual(['kafka', 'redis-cluster']);
    expect(s.env.KAFKA_BROKERS).toBe(`127.0.0.1:${CLUSTER_DEV_PORTS.kafka1},127.0.0.1:${CLUSTER_DEV_PORTS.kafka2},127.0.0.1:${CLUSTER_DEV_PORTS.kafka3}`);
    expect(s.env.VIEWS_REDIS_URL).toBe(s.env.REDIS_URL);
    expect(parseRedisClusterUrl(s.env.REDIS_URL)).toEqual([1, 2, 3].map((i) => ({ host: '127.0.0.1', port: CLUSTER_DEV_PORTS[`redis${i}`] })));
    // stack status lists every node of each; none runs in a fresh folder.
    expect(s.components.map((c) => c.nodes.map((n) => n.name))).toEqual([
      ['kafka-1', 'kafka-2', 'kafka-3'],
      ['redis-1', 'redis-2', 'redis-3', 'redis-4', 'redis-5', 'redis-6'],
    ]);
    expect(s.components.flatMap((c) => c.nodes).every((n) => n.pid === null)).toBe(true);
  });

  it('takes 19 free ports for a test cluster, all different, and keeps them in stack.json', async () => {
    const s = await stackStatus({ dataDir: dir, profile: 'cluster', env: given, freePorts: true });
    const ports = JSON.parse(fs.readFileSync(path.join(dir, 'stack.json'), 'utf8')).ports as Record<string, number>;
    expect(Object.keys(ports).sort()).toEqual(Object.keys(CLUSTER_DEV_PORTS).sort());
    expect(new Set(Object.values(ports)).size).toBe(19);
    const again = await stackStatus({ dataDir: dir, profile: 'cluster', env: given, freePorts: true });
    expect(again.env).toEqual(s.env);
  });

  it('a given REDIS_URL leaves the Redis Cluster out, and the views go there too', async () => {
    const s = await stackStatus({ dataDir: dir, profile: 'cluster', env: { ...given, REDIS_URL: 'redis+cluster://h:1' } });
    expect(s.components.map((c) => c.name)).toEqual(['kafka']);
    expect(s.env.VIEWS_REDIS_URL).toBe('redis+cluster://h:1');
  });

  it('has development ports of its own, below the ephemeral range clients take ports from', () => {
    const ports = Object.values(CLUSTER_DEV_PORTS);
    expect(new Set([...ports, ...Object.values(DEV_PORTS)]).size).toBe(ports.length + Object.values(DEV_PORTS).length);
    expect(Math.max(...ports)).toBeLessThan(32768);
  });
});

describe('MDQ_STACK_PROFILE', () => {
  it('is single by default, cluster on request, and refuses anything else', () => {
    expect(stackProfile({})).toBe('single');
    expect(stackProfile({ MDQ_STACK_PROFILE: ' cluster ' })).toBe('cluster');
    expect(() => stackProfile({ MDQ_STACK_PROFILE: 'clustered' })).toThrow("MDQ_STACK_PROFILE must be single or cluster; got 'clustered'");
  });
  it('gives the cluster a data folder of its own beside the single stack', () => {
    const saved = process.env.MDQ_DATA_DIR;
    delete process.env.MDQ_DATA_DIR;
    try {
      expect(defaultDataDir('single')).toBe(path.join(repoRoot, '.data'));
      expect(defaultDataDir('cluster')).toBe(path.join(repoRoot, '.data', 'cluster'));
    } finally {
      if (saved !== undefined) process.env.MDQ_DATA_DIR = saved;
    }
  });
});

describe('topic replication follows the broker count', () => {
  it('one copy on one broker, three copies with two in sync from three brokers on', () => {
    expect(topicReplication(1, {})).toEqual({ factor: 1, minInsync: 1 });
    expect(topicReplication(2, {})).toEqual({ factor: 2, minInsync: 1 });
    expect(topicReplication(3, {})).toEqual({ factor: 3, minInsync: 2 });
    expect(topicReplication(9, {})).toEqual({ factor: 3, minInsync: 2 });
  });
  it('takes MDQ_TOPIC_REPLICATION_FACTOR and MDQ_TOPIC_MIN_INSYNC_REPLICAS', () => {
    expect(topicReplication(5, { MDQ_TOPIC_REPLICATION_FACTOR: '5' })).toEqual({ factor: 5, minInsync: 4 });
    expect(topicReplication(5, { MDQ_TOPIC_REPLICATION_FACTOR: '5', MDQ_TOPIC_MIN_INSYNC_REPLICAS: '3' })).toEqual({ factor: 5, minInsync: 3 });
    expect(topicReplication(3, { MDQ_TOPIC_REPLICATION_FACTOR: '', MDQ_TOPIC_MIN_INSYNC_REPLICAS: '1' })).toEqual({ factor: 3, minInsync: 1 });
  });
  it('refuses what the cluster cannot do, saying why', () => {
    expect(() => topicReplication(1, { MDQ_TOPIC_REPLICATION_FACTOR: '3' })).toThrow('MDQ_TOPIC_REPLICATION_FACTOR=3 needs as many brokers; the cluster has 1');
    expect(() => topicReplication(3, { MDQ_TOPIC_MIN_INSYNC_REPLICAS: '4' })).toThrow(/exceeds the replication factor 3/);
    expect(() => topicReplication(3, { MDQ_TOPIC_REPLICATION_FACTOR: '0' })).toThrow(/at least 1; got '0'/);
    expect(() => topicReplication(3, { MDQ_TOPIC_REPLICATION_FACTOR: 'three' })).toThrow(/whole number/);
    expect(() => topicReplication(0, {})).toThrow(/at least one broker/);
  });
});

describe('the Redis Cluster memory ceiling', () => {
  it('spreads the views ceiling evenly over the nodes', () => {
    expect(perNodeMaxmemory('18432mb', 6)).toBe('3072mb');
    expect(perNodeMaxmemory('18gb', 6)).toBe('3072mb');
    expect(perNodeMaxmemory(String(6 * 2 ** 20), 6)).toBe('1mb');
    expect(perNodeMaxmemory(null, 6)).toBeNull();
  });
});

describe('processes tied to their parent', () => {
  it('are started through setpriv with the parent-death signal', () => {
    expect(tiedToParent('java', ['-jar', 'x.jar'], 'TERM')).toEqual(['setpriv', ['--pdeathsig', 'TERM', '--', 'java', '-jar', 'x.jar']]);
    expect(tiedToParent('redis-server', [])).toEqual(['setpriv', ['--pdeathsig', 'KILL', '--', 'redis-server']]);
  });
});
