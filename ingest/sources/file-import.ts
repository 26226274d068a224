import fs from 'fs';
import readline from 'readline';
import type { TopicSpec } from '../../schemas/catalog';
import type { EventProducer } from '../../services/kafka/producer';
import { validateEvent } from '../validate';

export interface ImportReport {
  lines: number;
  produced: number;
  bad: { line: number; reason: string }[];
}

/**
 * Imports a JSONL file whose lines are {"type": "<event type>", "data": {...}}. Every line is
 * validated; bad lines are reported with their number and reason while the valid ones still go
 * through, in file order, in batches per topic.
 */
export async function importFile(file: string, producer: EventProducer, batchSize = 500): Promise<ImportReport> {
  const report: ImportReport = { lines: 0, produced: 0, bad: [] };
  const pending = new Map<TopicSpec, Record<string, unknown>[]>();
  const flush = async () => {
    for (const [spec, events] of pending) {
      await producer.send(spec, events);
      report.produced += events.length;
    }
    pending.clear();
  };
  const rl = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  let queued = 0;
  for await (const raw of rl) {
    n++;
    if (!raw.trim()) continue;
    report.lines++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      report.bad.push({ line: n, reason: `not valid JSON (${(err as Error).message})` });
      continue;
    }
    const v = validateEvent(parsed);
    if (!v.ok) {
      report.bad.push({ line: n, reason: v.reason });
      continue;
    }
    const list = pending.get(v.spec) ?? [];
    list.push(v.data);
    pending.set(v.spec, list);
    if (++queued >= batchSize) {
      await flush();
      queued = 0;
    }
  }
  await flush();
  return report;
}
