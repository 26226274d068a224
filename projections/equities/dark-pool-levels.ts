import { topicFor } from '../../schemas/catalog';
import { sessionDateOf } from '../../services/domain/calendar';
import type { PartitionKeys } from '../../services/views/keys';
import {
  DARK_POOL_LEVELS_FORMAT,
  DARK_POOL_LEVELS_VIEW,
  levelCents,
  levelKey,
  levelSessionsSuffix,
  sampleLevelsSuffix,
  tapeLevelsSuffix,
} from '../../services/views/equities/dark-pool-levels';
import { notionalUnits } from '../../services/views/equities/equity-prints';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';
import { isSampledPrint, type EquityPrintEvent } from './equity-prints';

/**
 * Dark-pool price levels (services/views/equities/dark-pool-levels.ts): each DARK_POOL print adds
 * its notional, size and one trade to its ticker's level in its session (the New York date of the
 * trade time). A chunk's prints are totalled in memory first, so the transaction carries one
 * HINCRBY per level field instead of one per print.
 */
export const darkPoolLevelsProjection: Projection = {
  view: DARK_POOL_LEVELS_VIEW,
  format: DARK_POOL_LEVELS_FORMAT,
  topics: [topicFor('equity-print')!],

  async project(events: SourceEvent[], keys: PartitionKeys): Promise<RedisOp[]> {
    const sums = new Map<string, Map<string, number>>();
    const sessions = new Map<string, Set<string>>();
    const add = (key: string, field: string, n: number) => {
      let h = sums.get(key);
      if (!h) sums.set(key, (h = new Map()));
      h.set(field, (h.get(field) ?? 0) + n);
    };
    for (const e of events) {
      if (e.value === null) continue;
      const v = e.value as unknown as EquityPrintEvent;
      if (v.printType !== 'DARK_POOL') continue;
      const date = sessionDateOf(Number(v.time));
      const size = Number(v.size);
      const key = keys.key(...(isSampledPrint(v) ? sampleLevelsSuffix : tapeLevelsSuffix)(date, v.ticker));
      const level = levelKey(levelCents(v.price));
      add(key, `${level}:n`, notionalUnits(v.price, size));
      add(key, `${level}:s`, size);
      add(key, `${level}:c`, 1);
      let s = sessions.get(v.ticker);
      if (!s) sessions.set(v.ticker, (s = new Set()));
      s.add(date);
    }
    const ops: RedisOp[] = [];
    for (const [key, fields] of sums) for (const [field, n] of fields) ops.push(['HINCRBY', key, field, String(n)]);
    for (const [ticker, dates] of sessions) ops.push(['ZADD', keys.key(...levelSessionsSuffix(ticker)), ...[...dates].flatMap((d) => ['0', d])]);
    return ops;
  },
};
