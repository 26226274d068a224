import type { Admin, EachBatchPayload, Kafka } from 'kafkajs';
import { phase } from './phase-profile';

/**
 * An admin whose offsets are the log end with in-flight transactions counted (the high
 * watermark). A transaction's commit returns before its markers are written, and until then the
 * last stable offset (kafkajs's default) still stops short of it: a read "to the end" started
 * right after a commit would end before the transaction and miss it.
 */
export function logEndAdmin(kafka: Kafka): Admin {
  return kafka.admin({ readUncommitted: true });
}

type Batch = EachBatchPayload['batch'];

/**
 * Reads topics from the beginning (read_committed) with a throwaway group and hands each batch to
 * `onBatch`, until every partition's tail as of the call has been passed (transactions in flight
 * and markers included, see logEndAdmin), so the read is complete, not a timeout guess. Returns
 * the partitions of each topic.
 */
function readToEnd(kafka: Kafka, topics: string[], onBatch: (batch: Batch) => void): Promise<Map<string, number[]>> {
  return phase('read topics', () => readAll(kafka, topics, onBatch));
}

async function readAll(kafka: Kafka, topics: string[], onBatch: (batch: Batch) => void): Promise<Map<string, number[]>> {
  const admin = logEndAdmin(kafka);
  await admin.connect();
  const ends = new Map(
    await Promise.all(topics.map(async (t) => [t, (await admin.fetchTopicOffsets(t)).map((p) => [p.partition, Number(p.high)] as const)] as const)),
  );
  await admin.disconnect();
  const seen = new Map<string, number>();
  // A short fetch wait: the tail of a transactional partition is a commit marker that comes in a
  // fetch of its own, and kafkajs's default would hold that fetch for 5 s.
  const consumer = kafka.consumer({
    groupId: `read-${Date.now()}-${Math.random()}`,
    readUncommitted: false,
    maxBytes: 50 * 1024 * 1024,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
    const k = `${e.payload.topic}/${e.payload.partition}`;
    seen.set(k, Math.max(seen.get(k) ?? -1, Number(e.payload.lastOffset)));
  });
  await consumer.run({ autoCommit: false, eachBatch: async ({ batch }) => onBatch(batch) });
  const done = () => [...ends].every(([t, parts]) => parts.every(([p, high]) => high === 0 || (seen.get(`${t}/${p}`) ?? -1) >= high - 1));
  const deadline = Date.now() + 120_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${topics.join(', ')} not read to the end within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await consumer.disconnect();
  return new Map([...ends].map(([t, parts]) => [t, parts.map(([p]) => p)]));
}

/** Counts the committed messages of topics (read to their end) and optionally collects their raw values. */
export async function readCommitted(kafka: Kafka, topics: string[], keep?: (topic: string, value: Buffer) => void): Promise<Record<string, number>> {
  const counts: Record<string, number> = Object.fromEntries(topics.map((t) => [t, 0]));
  await readToEnd(kafka, topics, (batch) => {
    counts[batch.topic] += batch.messages.length;
    if (keep) for (const m of batch.messages) if (m.value) keep(batch.topic, m.value);
  });
  return counts;
}

export interface CommittedRecord {
  partition: number;
  offset: number;
  key: string | null;
  value: Buffer | null;
  timestamp: number;
}

/**
 * Every committed record of one topic (read to its end), per partition in offset order.
 */
export async function readCommittedRecords(kafka: Kafka, topic: string): Promise<Map<number, CommittedRecord[]>> {
  const read = new Map<number, CommittedRecord[]>();
  const partitions = await readToEnd(kafka, [topic], (batch) => {
    let list = read.get(batch.partition);
    if (!list) read.set(batch.partition, (list = []));
    for (const m of batch.messages) {
      const offset = Number(m.offset);
      // A rebalance can redeliver a range; keep each offset once, in order.
      if (list.length && list[list.length - 1].offset >= offset) continue;
      list.push({ partition: batch.partition, offset, key: m.key ? m.key.toString() : null, value: m.value, timestamp: Number(m.timestamp) });
    }
  });
  // Every partition present (empty when it holds nothing), in partition order.
  return new Map(partitions.get(topic)!.map((p) => [p, read.get(p) ?? []]));
}
