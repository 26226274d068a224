import type { Admin, Kafka } from 'kafkajs';

/**
 * An admin whose offsets are the log end with in-flight transactions counted (the high
 * watermark). A transaction's commit returns before its markers are written, and until then the
 * last stable offset (kafkajs's default) still stops short of it: a read "to the end" started
 * right after a commit would end before the transaction and miss it.
 */
export function logEndAdmin(kafka: Kafka): Admin {
  return kafka.admin({ readUncommitted: true });
}

/**
 * Counts the committed messages of topics (read_committed, from the beginning) and optionally
 * collects their raw values. Reading is complete when every partition's tail has been reached as
 * of the call (transaction markers included), so the count is exact, not a timeout guess.
 */
export async function readCommitted(kafka: Kafka, topics: string[], keep?: (topic: string, value: Buffer) => void): Promise<Record<string, number>> {
  const admin = logEndAdmin(kafka);
  await admin.connect();
  const ends = new Map<string, Map<number, number>>();
  for (const t of topics) ends.set(t, new Map((await admin.fetchTopicOffsets(t)).map((p) => [p.partition, Number(p.high)])));
  await admin.disconnect();
  const counts: Record<string, number> = Object.fromEntries(topics.map((t) => [t, 0]));
  const seen = new Map<string, number>();
  const consumer = kafka.consumer({ groupId: `count-${Date.now()}-${Math.random()}`, readUncommitted: false, maxBytes: 50 * 1024 * 1024 });
  await consumer.connect();
  for (const t of topics) await consumer.subscribe({ topic: t, fromBeginning: true });
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
    const k = `${e.payload.topic}/${e.payload.partition}`;
    seen.set(k, Math.max(seen.get(k) ?? -1, Number(e.payload.lastOffset)));
  });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      counts[batch.topic] += batch.messages.length;
      if (keep) for (const m of batch.messages) if (m.value) keep(batch.topic, m.value);
    },
  });
  const done = () => [...ends].every(([t, parts]) => [...parts].every(([p, high]) => high === 0 || (seen.get(`${t}/${p}`) ?? -1) >= high - 1));
  const deadline = Date.now() + 120_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('topics not read to their end within 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  await consumer.disconnect();
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
 * Every committed record of one topic (read_committed, from the beginning, to the tail as of the
 * call), per partition in offset order.
 */
export async function readCommittedRecords(kafka: Kafka, topic: string): Promise<Map<number, CommittedRecord[]>> {
  const admin = logEndAdmin(kafka);
  await admin.connect();
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  await admin.disconnect();
  const out = new Map<number, CommittedRecord[]>([...ends.keys()].map((p) => [p, []]));
  const seen = new Map<number, number>();
  const consumer = kafka.consumer({ groupId: `records-${Date.now()}-${Math.random()}`, readUncommitted: false, maxBytes: 50 * 1024 * 1024 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) => seen.set(e.payload.partition, Math.max(seen.get(e.payload.partition) ?? -1, Number(e.payload.lastOffset))));
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      const list = out.get(batch.partition)!;
      for (const m of batch.messages) {
        const offset = Number(m.offset);
        // A rebalance can redeliver a range; keep each offset once, in order.
        if (list.length && list[list.length - 1].offset >= offset) continue;
        list.push({ partition: batch.partition, offset, key: m.key ? m.key.toString() : null, value: m.value, timestamp: Number(m.timestamp) });
      }
    },
  });
  const done = () => [...ends].every(([p, high]) => high === 0 || (seen.get(p) ?? -1) >= high - 1);
  const deadline = Date.now() + 120_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${topic} not read to its end within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await consumer.disconnect();
  return out;
}
