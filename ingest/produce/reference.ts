import crypto from 'crypto';
import { isEarlyClose, sessionBounds } from '../../services/domain/calendar';
import { loadUniverse } from '../../services/domain/universe';
import type { SimEvent } from '../simulator/events';
import { HISTORY_ANCHOR } from '../simulator/market';
import { ChunkWriter } from './chunk-writer';
import type { IngestDeps } from './session-producer';

/**
 * Reference data: the instrument universe and the NYSE calendar from the history anchor to the
 * end of next year, on compacted topics keyed by symbol and date. Published once per content
 * version: the stream name carries a hash of the events, so changed seeds are published again and
 * unchanged ones are not.
 */
export function referenceEvents(nowMs: number): SimEvent[] {
  const events: SimEvent[] = [];
  for (const i of loadUniverse()) events.push({ type: 'instrument', time: 0, data: { ...i } });
  const lastYear = new Date(nowMs).getUTCFullYear() + 1;
  const firstYear = Number(HISTORY_ANCHOR.slice(0, 4));
  for (let y = firstYear; y <= lastYear; y++) {
    for (let d = Date.UTC(y, 0, 1); d < Date.UTC(y + 1, 0, 1); d += 86_400_000) {
      const dow = new Date(d).getUTCDay();
      if (dow === 0 || dow === 6) continue;
      const date = new Date(d).toISOString().slice(0, 10);
      const b = sessionBounds(date);
      events.push({
        type: 'calendar-day',
        time: 0,
        // sessionBounds is null exactly on closures (holidays and special closures).
        data: { date, status: !b ? 'CLOSED' : isEarlyClose(date) ? 'EARLY_CLOSE' : 'OPEN', openTime: b?.open ?? null, closeTime: b?.close ?? null },
      });
    }
  }
  return events;
}

export async function publishReference(deps: IngestDeps, nowMs = Date.now()): Promise<{ events: number; published: boolean }> {
  const events = referenceEvents(nowMs);
  const hash = crypto.createHash('sha256').update(JSON.stringify(events)).digest('hex').slice(0, 16);
  const stream = `reference/${hash}`;
  // The writer fences its predecessors before the progress is read (chunk-writer.ts).
  const writer = new ChunkWriter(deps.kafka, deps.registry, deps.topicPrefix, 'ingest-reference');
  await writer.connect();
  try {
    if ((await deps.progress.lastChunk(stream)) >= 0) return { events: events.length, published: false };
    const rec = { stream, chunk: 0, chunks: 1, events: events.length };
    await writer.commit(events, [rec]);
    deps.progress.note(rec);
    return { events: events.length, published: true };
  } finally {
    await writer.disconnect();
  }
}
