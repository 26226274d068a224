import type { RedisClient as Redis } from '../../services/redis/client';
import { topicFor } from '../../schemas/catalog';
import { latestCompletedSession, previousTradingDay } from '../../services/domain/calendar';
import { PartitionKeys } from '../../services/views/keys';
import { OPEN_INTEREST_VIEW } from '../../services/views/open-interest';
import { openInterestProjection } from '../../projections/open-interest/projection';
import { applyAtomically } from '../../projections/runtime/atomic-apply';
import type { SourceEvent } from '../../projections/runtime/projection';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { PROFILES } from '../../ingest/simulator/profiles';
import { eventsByPartition } from './order-flow-sample';

/**
 * The daily tier of the newest N sessions of the simulated `dev` market (seed 42, what `npm start`
 * backfills) as the open-interest projection's input, newest session first as `ingest history`
 * publishes it, and its projection with the projection's own logic and the runtime's atomic apply
 * (no Kafka: the benches measure the view and its reads, not the consumer).
 */

export interface OiRecord {
  osi: string;
  ticker: string;
  expirationDate: string;
  strikePrice: number;
  contractType: 'CALL' | 'PUT';
  sessionDate: string;
  openInterest: number;
  time: number;
}

export interface PriceRecord {
  ticker: string;
  sessionDate: string;
  price: number;
  kind: 'OPEN' | 'TICK' | 'CLOSE';
}

export interface DevHistory {
  /** Newest first. */
  sessions: string[];
  openInterest: OiRecord[];
  prices: PriceRecord[];
  /** Both topics' events per partition, in publication order, offsets from 0. */
  byPartition: Map<number, SourceEvent[]>;
}

export function devHistory(sessionCount: number, nowMs = Date.now()): DevHistory {
  const market = new SimulatedMarket(42, PROFILES.dev);
  const sessions = [latestCompletedSession(nowMs)];
  while (sessions.length < sessionCount) sessions.push(previousTradingDay(sessions[sessions.length - 1]));
  const oiTopic = topicFor('open-interest')!.name;
  const pxTopic = topicFor('underlying-price')!.name;
  const byPartition = new Map<number, SourceEvent[]>();
  const openInterest: OiRecord[] = [];
  const prices: PriceRecord[] = [];
  for (const d of sessions) {
    const gen = market.session(d, 'daily');
    const events = Array.from({ length: gen.chunks }, (_, k) => gen.chunk(k)).flat();
    const oi = events.filter((e) => e.type === 'open-interest').map((e) => e.data as unknown as OiRecord);
    const px = events.filter((e) => e.type === 'underlying-price').map((e) => e.data as unknown as PriceRecord);
    openInterest.push(...oi);
    prices.push(...px);
    for (const [topic, list] of [
      [oiTopic, oi],
      [pxTopic, px],
    ] as const) {
      for (const [p, evs] of eventsByPartition(topic, list)) {
        const all = byPartition.get(p) ?? [];
        for (const e of evs) all.push({ ...e, offset: all.length });
        byPartition.set(p, all);
      }
    }
  }
  return { sessions, openInterest, prices, byPartition };
}

/** Projects the history into version 1 of the view under `prefix`, in chunks of `chunk` events; returns the events applied. */
export async function projectHistory(redis: Redis, prefix: string, h: DevHistory, chunk = 3_000): Promise<number> {
  let applied = 0;
  for (const [p, evs] of h.byPartition) {
    const keys = new PartitionKeys(prefix, OPEN_INTEREST_VIEW, 1, p);
    for (let i = 0; i < evs.length; i += chunk) {
      const part = evs.slice(i, i + chunk);
      const ops = await openInterestProjection.project(part, keys, redis);
      // One offset sequence over both topics: the bench applies serially, one writer per partition.
      const res = await applyAtomically(redis, keys.offsets, 'bench', i - 1, part[part.length - 1].offset, ops, []);
      if (!res.applied) throw new Error('not applied');
      applied += part.length;
    }
  }
  return applied;
}
