import type { Kafka } from 'kafkajs';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { LocalDate } from '../../services/domain/calendar';
import type { Logger } from '../../services/log';
import { profileNamed, type ProfileName } from '../simulator/profiles';
import { sessionChunkCount, SimulatedMarket, type Tier } from '../simulator/session';
import type { SimEvent } from '../simulator/events';
import { ChunkWriter, type ProgressRecord } from './chunk-writer';
import { ProgressTracker } from './progress';

export interface IngestDeps {
  kafka: Kafka;
  registry: SchemaRegistry;
  topicPrefix: string;
  progress: ProgressTracker;
  log?: Logger;
}

export type Level = 'daily' | 'tick';

export interface SessionRequest {
  seed: number;
  profile: ProfileName;
  date: LocalDate;
  /** daily: history-level data only; tick: everything */
  level: Level;
}

export interface Progress {
  /** chunks committed out of all chunks of the requested streams */
  done: number;
  total: number;
  events: number;
}

/** Stream name of one tier of one simulated session; also its progress key. */
export function streamName(r: { seed: number; profile: string; date: LocalDate }, tier: Tier): string {
  return `sim/${r.seed}/${r.profile}/${r.date}/${tier}`;
}

/** Markets are costly to set up (history, chains); a worker keeps one per (seed, profile). */
const markets = new Map<string, SimulatedMarket>();
export function marketFor(seed: number, profile: ProfileName): SimulatedMarket {
  const key = `${seed}/${profile}`;
  let m = markets.get(key);
  if (!m) {
    m = new SimulatedMarket(seed, profileNamed(profile));
    markets.set(key, m);
  }
  return m;
}

/** Events per transaction in a backfill: large enough to amortise the commit. */
const TX_EVENTS = 50_000;

/**
 * Backfills one session: for each tier stream it resumes after the last committed chunk and
 * commits the rest in transactions of about TX_EVENTS events. Running it again once complete
 * produces nothing, so a repeated or retried backfill never duplicates an event.
 */
export async function produceSession(deps: IngestDeps, req: SessionRequest, onProgress?: (p: Progress) => void, signal?: AbortSignal): Promise<Progress> {
  const market = marketFor(req.seed, req.profile);
  const tiers: Tier[] = req.level === 'tick' ? ['daily', 'tick'] : ['daily'];
  let writer: ChunkWriter | null = null;
  try {
    const progress: Progress = { done: 0, total: 0, events: 0 };
    const chunks = sessionChunkCount(req.date);
    const streams: { tier: Tier; stream: string; next: number; events: number }[] = [];
    for (const tier of tiers) {
      const stream = streamName(req, tier);
      const last = await deps.progress.get(stream);
      streams.push({ tier, stream, next: (last?.chunk ?? -1) + 1, events: last?.events ?? 0 });
      progress.total += chunks;
      progress.done += (last?.chunk ?? -1) + 1;
      progress.events += last?.events ?? 0;
    }
    onProgress?.({ ...progress });
    for (const s of streams) {
      if (s.next >= chunks) continue; // already complete: nothing is generated or sent
      const gen = market.session(req.date, s.tier);
      if (!writer) {
        writer = new ChunkWriter(deps.kafka, deps.registry, deps.topicPrefix, `ingest-${streamName(req, 'daily').replace(/\/daily$/, '')}`);
        await writer.connect();
      }
      let k = s.next;
      while (k < chunks) {
        if (signal?.aborted) throw new Error('backfill aborted');
        const events: SimEvent[] = [];
        const first = k;
        while (k < chunks && events.length < TX_EVENTS) {
          for (const e of gen.chunk(k)) events.push(e);
          k++;
        }
        s.events += events.length;
        const rec: ProgressRecord = { stream: s.stream, chunk: k - 1, chunks, events: s.events };
        await writer.commit(events, [rec]);
        deps.progress.note(rec);
        progress.done += k - first;
        progress.events += events.length;
        onProgress?.({ ...progress });
      }
    }
    return progress;
  } finally {
    await writer?.disconnect();
  }
}
