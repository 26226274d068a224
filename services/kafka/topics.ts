import type { Admin } from 'kafkajs';
import { SchemaRegistry, SchemaType, COMPATIBILITY } from '@kafkajs/confluent-schema-registry';
import { TOPICS, TopicSpec, schemaText, subjectName, topicName } from '../../schemas/catalog';

/** Creates every catalog topic that is missing; checks the partition count of existing ones. */
export async function ensureTopics(admin: Admin, prefix: string, topics: readonly TopicSpec[] = TOPICS): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(topicName(t, prefix)));
  if (missing.length) {
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({
        topic: topicName(t, prefix),
        numPartitions: t.partitions,
        replicationFactor: -1, // the broker default: 1 locally, the cluster's setting elsewhere
        configEntries: [
          { name: 'cleanup.policy', value: t.cleanupPolicy },
          { name: 'retention.ms', value: String(t.retentionMs) },
        ],
      })),
    });
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
  }
}

/**
 * Registers each catalog schema under its subject with BACKWARD compatibility (idempotent: the
 * registry returns the existing id for an identical schema). Returns subject -> schema id.
 */
export async function ensureSchemas(
  registry: SchemaRegistry,
  prefix: string,
  topics: readonly TopicSpec[] = TOPICS,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const t of topics) {
    const subject = subjectName(t, prefix);
    const { id } = await registry.register(
      { type: SchemaType.AVRO, schema: schemaText(t) },
      { subject, compatibility: COMPATIBILITY.BACKWARD },
    );
    ids.set(subject, id);
  }
  return ids;
}
