import { currentSession } from '../../services/domain/calendar';
import type { SimEvent } from '../simulator/events';
import { sessionChunkCount, type SessionGenerator } from '../simulator/session';
import { shardSymbols, TICK_SHARDS } from './shards';
import type { ProgressRecord } from './chunk-writer';
import { ChunkWriter, fenceWriters } from './chunk-writer';
import { IngestDeps, liveWriterId, marketFor, Progress, SessionRequest, sessionWriterIds, streamName, tickStream } from './session-producer';

export interface LiveRequest extends Omit<SessionRequest, 'level' | 'ticksLater'> {
  /** 1 = real time; N = N session seconds per wall-clock second */
  speed: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const CATCH_UP_EVENTS = 50_000;

/**
 * Plays a session as it happens: each 5-second chunk (both tiers) is committed once the session
 * clock has passed its end. For today's session at speed 1 the session clock is the wall clock,
 * so a start in mid-session first catches up to now and then follows it; otherwise the clock
 * starts where the session's committed progress ends and runs `speed` times faster than real
 * time. Progress is shared with backfills, so a live run resumes after a crash, and a later
 * backfill of the same session adds nothing.
 */
export async function produceLive(deps: IngestDeps, req: LiveRequest, onProgress?: (p: Progress) => void, signal?: AbortSignal): Promise<Progress> {
  if (!(req.speed >= 1 && req.speed <= 10_000)) throw new Error(`speed must be between 1 and 10000, got ${req.speed}`);
  const now = req.now ?? Date.now;
  const sleep = req.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const market = marketFor(req.seed, req.profile);
  const chunks = sessionChunkCount(req.date);
  // The same streams as a backfill (daily tier, tick shards), written by one transactional writer;
  // the daily tier is that of a session with ticks (no off-exchange sample).
  const parts: { stream: string; gen: SessionGenerator }[] = [
    { stream: streamName(req, 'daily'), gen: market.session(req.date, 'daily', undefined, { withTicks: true }) },
  ];
  for (let shard = 0; shard < TICK_SHARDS; shard++)
    parts.push({ stream: tickStream(req, shard), gen: market.session(req.date, 'tick', shardSymbols(market, shard)) });
  // Every writer of these streams is fenced before the positions are read (chunk-writer.ts); this
  // one last, so that it is the one left current.
  const ids = sessionWriterIds(req);
  await fenceWriters(
    deps.kafka,
    deps.topicPrefix,
    ids.filter((id) => id !== liveWriterId(req)),
  );
  const writer = new ChunkWriter(deps.kafka, deps.registry, deps.topicPrefix, liveWriterId(req));
  await writer.connect();
  try {
    const streams = [];
    await deps.progress.caughtUp();
    for (const p of parts) {
      const last = deps.progress.peek(p.stream);
      streams.push({ ...p, next: (last?.chunk ?? -1) + 1, events: last?.events ?? 0 });
    }
    const gen = streams[0].gen;
    let k = Math.min(...streams.map((s) => s.next));
    const progress: Progress = {
      done: streams.reduce((a, s) => a + s.next, 0),
      total: chunks * streams.length,
      events: streams.reduce((a, s) => a + s.events, 0),
    };
    onProgress?.({ ...progress });
    const realTime = req.speed === 1 && currentSession(now()) === req.date;
    const wallStart = now();
    const simStart = k === 0 ? gen.open : gen.chunkEnd(k - 1);
    const simNow = () => (realTime ? now() : simStart + (now() - wallStart) * req.speed);
    while (k < chunks) {
      if (signal?.aborted) throw new Error('live session interrupted; a retry resumes it');
      const due = gen.chunkEnd(k);
      const wait = due - simNow();
      if (wait > 0) {
        await sleep(Math.min(1_000, Math.ceil(wait / (realTime ? 1 : req.speed))));
        continue;
      }
      // Every chunk already due goes out now (catching up after a start in mid-session).
      const events: SimEvent[] = [];
      const first = k;
      while (k < chunks && gen.chunkEnd(k) <= simNow() && events.length < CATCH_UP_EVENTS) {
        for (const s of streams) {
          if (k < s.next) continue;
          const part = s.gen.chunk(k);
          s.events += part.length;
          for (const e of part) events.push(e);
        }
        k++;
      }
      const records: ProgressRecord[] = [];
      for (const s of streams) {
        if (k - 1 < s.next) continue;
        records.push({ stream: s.stream, chunk: k - 1, chunks, events: s.events });
        progress.done += k - Math.max(first, s.next);
      }
      await writer.commit(events, records);
      for (const r of records) deps.progress.note(r);
      progress.events += events.length;
      onProgress?.({ ...progress });
    }
    return progress;
  } finally {
    await writer.disconnect();
  }
}
