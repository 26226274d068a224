import type Redis from 'ioredis';
import { marketFor } from '../../ingest/produce/session-producer';
import type { SimEvent } from '../../ingest/simulator/events';
import type { ProfileName } from '../../ingest/simulator/profiles';
import { volatilityViewProjection } from '../../projections/volatility/projection';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { tradingDaysBetween } from '../../services/domain/calendar';
import { partitionOf } from '../../services/kafka/partition';
import { PartitionKeys, formatKey, pointerKey } from '../../services/views/keys';

const CHUNK = 3000;
const TOPIC_OF: Record<string, string> = {
  'underlying-price': 'market.underlying-prices',
  'option-quote': 'market.option-quotes',
  'open-interest': 'market.open-interest',
};

/**
 * The volatility view of `npm start`'s history, projected straight into `redis` under `prefix`
 * (version 1, served): the daily tier (`dev` unless `profile` says otherwise) of the `sessions` sessions through `through`, the tick
 * tier of the newest `tickSessions`, partition by partition in chunks of 3,000 with the
 * projection's own code, prices before quotes as the lead topic makes a projector do. No Kafka:
 * the view's content does not depend on how the events reach the projection.
 */
export async function projectDevHistory(
  redis: Redis,
  prefix: string,
  o: { sessions: number; tickSessions: number; through: string; profile?: ProfileName; log?: (line: string) => void },
): Promise<{ days: string[]; counts: Record<string, number>; quotes: number; projectMs: number }> {
  const days = tradingDaysBetween('2020-01-01', o.through).slice(-o.sessions);
  const market = marketFor(42, o.profile ?? 'dev');
  const counts: Record<string, number> = {};
  let projectMs = 0;
  let quotes = 0;
  const t0 = Date.now();
  for (const [i, date] of days.entries()) {
    const events: SimEvent[] = [];
    for (const tier of i >= days.length - o.tickSessions ? (['daily', 'tick'] as const) : (['daily'] as const)) {
      const g = market.session(date, tier);
      for (let k = 0; k < g.chunks; k++) for (const e of g.chunk(k)) if (TOPIC_OF[e.type]) events.push(e);
    }
    for (const e of events) counts[e.type] = (counts[e.type] ?? 0) + 1;
    const p0 = Date.now();
    for (const type of Object.keys(TOPIC_OF)) {
      const byPartition = new Map<number, SimEvent[]>();
      for (const e of events) {
        if (e.type !== type) continue;
        const p = partitionOf(String(e.data.ticker), MARKET_PARTITIONS);
        (byPartition.get(p) ?? byPartition.set(p, []).get(p)!).push(e);
      }
      for (const [p, list] of byPartition) {
        const keys = new PartitionKeys(prefix, volatilityViewProjection.view, 1, p);
        for (let j = 0; j < list.length; j += CHUNK) {
          const chunk = list.slice(j, j + CHUNK).map((e, n) => ({ topic: TOPIC_OF[type], partition: p, offset: j + n, key: null, value: e.data }));
          const ops = await volatilityViewProjection.project(chunk, keys, redis);
          const m = redis.multi();
          for (const [cmd, ...args] of ops) m.call(cmd, ...args);
          await m.exec();
        }
        if (type === 'option-quote') quotes += list.length;
      }
    }
    projectMs += Date.now() - p0;
    if (i % 50 === 0) o.log?.(`${date}: ${i + 1}/${days.length} sessions, ${Math.round((Date.now() - t0) / 1000)} s`);
  }
  await redis.set(formatKey(prefix, volatilityViewProjection.view, 1), String(volatilityViewProjection.format ?? 1));
  await redis.set(pointerKey(prefix, volatilityViewProjection.view), '1');
  return { days, counts, quotes, projectMs };
}
