import crypto from 'crypto';
import fs from 'fs';
import readline from 'readline';
import type { SimEvent } from '../simulator/events';
import { validateEvent } from '../validate';
import { ChunkWriter } from './chunk-writer';
import type { IngestDeps, Progress } from './session-producer';

export interface ImportReport {
  lines: number;
  produced: number;
  /** events of this file committed by an earlier run and therefore skipped now */
  alreadyProduced: number;
  bad: { line: number; reason: string }[];
}

const CHUNK_LINES = 10_000;

/**
 * Imports a JSONL file of {"type", "data"} lines exactly once. Every line is validated and bad
 * lines are reported with their number and reason; the valid ones are committed in chunks of
 * CHUNK_LINES lines, each in a Kafka transaction with the file's progress record. The progress
 * stream is named by the file's SHA-256, so importing the same content again (a retry, a re-run,
 * a copy under another name) adds nothing.
 */
export async function importFileOnce(deps: IngestDeps, file: string, onProgress?: (p: Progress) => void): Promise<ImportReport> {
  const hash = crypto
    .createHash('sha256')
    .update(await fs.promises.readFile(file))
    .digest('hex');
  const stream = `file/${hash}`;
  // The writer fences its predecessors before the progress is read (chunk-writer.ts).
  const writer = new ChunkWriter(deps.kafka, deps.registry, deps.topicPrefix, `ingest-${stream}`);
  await writer.connect();
  try {
    const committed = await deps.progress.get(stream);
    const total = Math.max(1, Math.ceil((await countLines(file)) / CHUNK_LINES));
    const report: ImportReport = { lines: 0, produced: 0, alreadyProduced: committed?.events ?? 0, bad: [] };
    let chunk = 0;
    let events: SimEvent[] = [];
    let streamEvents = committed?.events ?? 0;
    const flush = async () => {
      if (chunk > (committed?.chunk ?? -1)) {
        streamEvents += events.length;
        const rec = { stream, chunk, chunks: total, events: streamEvents };
        await writer.commit(events, [rec]);
        deps.progress.note(rec);
        report.produced += events.length;
      }
      onProgress?.({ done: chunk + 1, total, events: streamEvents });
      chunk++;
      events = [];
    };
    const rl = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
    let n = 0;
    for await (const raw of rl) {
      n++;
      if (raw.trim()) {
        report.lines++;
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch (err) {
          report.bad.push({ line: n, reason: `not valid JSON (${(err as Error).message})` });
          parsed = undefined;
        }
        if (parsed !== undefined) {
          const v = validateEvent(parsed);
          if (v.ok) events.push({ type: v.spec.eventType, time: eventTime(v.data), data: v.data });
          else report.bad.push({ line: n, reason: v.reason });
        }
      }
      if (n % CHUNK_LINES === 0) await flush();
    }
    if (n % CHUNK_LINES !== 0 || n === 0) await flush();
    return report;
  } finally {
    await writer.disconnect();
  }
}

function eventTime(d: Record<string, unknown>): number {
  const t = d.reportTime ?? d.time ?? d.publishedTime;
  return typeof t === 'number' ? t : 0;
}

async function countLines(file: string): Promise<number> {
  let n = 0;
  let last = 10;
  for await (const buf of fs.createReadStream(file)) {
    const b = buf as Buffer;
    for (let i = 0; i < b.length; i++) if (b[i] === 10) n++;
    if (b.length) last = b[b.length - 1];
  }
  return last === 10 ? n : n + 1;
}
