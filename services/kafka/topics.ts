import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { SchemaRegistry, SchemaType, COMPATIBILITY } from '@kafkajs/confluent-schema-registry';
import { TOPICS, TopicSpec, schemaText, subjectName, topicName } from '../../schemas/catalog';
import { Replication, topicReplication } from './replication';

/**
 * Per-topic configuration. Record batches may reach 16 MiB: a producer's batch for one partition
 * (a busy ticker in a bulk backfill) easily passes the broker's 1 MB default.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
function topicConfig(t: TopicSpec, replication: Replication): { name: string; value: string }[] {
  return [
    { name: 'cleanup.policy', value: t.cleanupPolicy },
    { name: 'retention.ms', value: String(t.retentionMs) },
    { name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) },
    { name: 'min.insync.replicas', value: String(replication.minInsync) },
  ];
}

/** Settings compared on existing topics; one that differs has the catalog's set applied again. */
const CHECKED_CONFIG = ['max.message.bytes', 'min.insync.replicas'];

/**
 * Creates every catalog topic that is missing, with the replication the cluster's broker count
 * calls for (replication.ts); checks the partition count of existing ones and brings their
 * configuration to the catalog's (topics created by an older version). The replication factor
 * of an existing topic is left as it is: changing it is a partition reassignment, not a setting.
 */
export async function ensureTopics(admin: Admin, prefix: string, topics: readonly TopicSpec[] = TOPICS, replication?: Replication): Promise<void> {
  const rep = replication ?? topicReplication((await admin.describeCluster()).brokers.length);
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(topicName(t, prefix)));
  if (missing.length) {
    // Not kafkajs's waitForLeaders: it gives up on a broker that has not heard of the topic yet
    // ("does not host this topic-partition"); untilServed waits that out.
    await admin.createTopics({
      waitForLeaders: false,
      topics: missing.map((t) => ({
        topic: topicName(t, prefix),
        numPartitions: t.partitions,
        replicationFactor: rep.factor,
        configEntries: topicConfig(t, rep),
      })),
    });
    await untilServed(
      admin,
      missing.map((t) => [topicName(t, prefix), t.partitions]),
    );
  }
  const present = topics.filter((t) => existing.has(topicName(t, prefix)));
  if (present.length) {
    const meta = await admin.fetchTopicMetadata({ topics: present.map((t) => topicName(t, prefix)) });
    for (const t of present) {
      const m = meta.topics.find((x) => x.name === topicName(t, prefix));
      // Co-partitioning depends on equal partition counts; silently differing would misroute keys.
      if (m && m.partitions.length !== t.partitions) {
        throw new Error(`topic ${m.name} has ${m.partitions.length} partitions, the catalog says ${t.partitions}`);
      }
    }
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: present.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: topicName(t, prefix), configNames: CHECKED_CONFIG })),
    });
    const stale = present.filter((t) => {
      const r = described.resources.find((x) => x.resourceName === topicName(t, prefix));
      const want = new Map(topicConfig(t, rep).map((e) => [e.name, e.value]));
      return CHECKED_CONFIG.some((name) => r?.configEntries.find((e) => e.configName === name)?.configValue !== want.get(name));
    });
    if (stale.length) {
      // alterConfigs replaces a topic's whole override set, so it is given every catalog setting.
      await admin.alterConfigs({
        validateOnly: false,
        resources: stale.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: topicName(t, prefix), configEntries: topicConfig(t, rep) })),
      });
    }
  }
}

/**
 * Waits until the leader of every partition of new topics answers for it. On a cluster, metadata
 * reaches the brokers one by one after a creation: a leader that has not heard yet refuses
 * requests for its partition ("does not host this topic-partition"), which kafkajs's admin does
 * not retry.
 */
async function untilServed(admin: Admin, topics: readonly [name: string, partitions: number][], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending = [...topics];
  for (;;) {
    const served = await Promise.all(
      pending.map(([name, n]) =>
        admin.fetchTopicOffsets(name).then(
          (ps) => ps.length === n,
          () => false,
        ),
      ),
    );
    pending = pending.filter((_, i) => !served[i]);
    if (!pending.length) return;
    if (Date.now() > deadline) throw new Error(`topics not served by their leaders after ${timeoutMs} ms: ${pending.map(([n]) => n).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Registers each catalog schema under its subject with BACKWARD compatibility (idempotent: the
 * registry returns the existing id for an identical schema). Returns subject -> schema id.
 */
export async function ensureSchemas(registry: SchemaRegistry, prefix: string, topics: readonly TopicSpec[] = TOPICS): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const t of topics) {
    const subject = subjectName(t, prefix);
    const { id } = await registry.register({ type: SchemaType.AVRO, schema: schemaText(t) }, { subject, compatibility: COMPATIBILITY.BACKWARD });
    ids.set(subject, id);
  }
  return ids;
}
