import type { Kafka } from 'kafkajs';

/**
 * Counts the committed messages of topics (read_committed, from the beginning) and optionally
 * collects their raw values. Reading is complete when every partition's tail has been reached as
 * of the call (transaction markers included), so the count is exact, not a timeout guess.
 */
export async function readCommitted(kafka: Kafka, topics: string[], keep?: (topic: string, value: Buffer) => void): Promise<Record<string, number>> {
  const admin = kafka.admin();
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
