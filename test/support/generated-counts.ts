import { TOPICS, topicFor, topicName } from '../../schemas/catalog';
import type { SimulatedMarket } from '../../ingest/simulator/session';

/** The market topics a backfill writes (no internal, derived or reference topics). */
export function marketTopics(topicPrefix: string): string[] {
  return TOPICS.filter((t) => !t.internal && !t.derived && t.eventType !== 'instrument' && t.eventType !== 'calendar-day').map((t) =>
    topicName(t, topicPrefix),
  );
}

/**
 * A session's streams: its daily tier as a history session has it (with the off-exchange sample)
 * or as a session with ticks has it (without), and its tick tier.
 */
export type SessionPart = 'daily' | 'daily without sample' | 'tick';

/** Events per market topic for sessions made of the given parts, counted from the generator itself. */
export function generatedCounts(market: SimulatedMarket, topicPrefix: string, sessions: [string, SessionPart[]][]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(marketTopics(topicPrefix).map((t) => [t, 0]));
  for (const [date, parts] of sessions) {
    for (const part of parts) {
      const gen = part === 'tick' ? market.session(date, 'tick') : market.session(date, 'daily', undefined, { withTicks: part !== 'daily' });
      for (let k = 0; k < gen.chunks; k++) for (const e of gen.chunk(k)) out[topicName(topicFor(e.type)!, topicPrefix)]++;
    }
  }
  return out;
}
