import { topicFor } from '../../schemas/catalog';
import { sessionDateOf } from '../../services/domain/calendar';
import type { PartitionKeys } from '../../services/views/keys';
import type Redis from 'ioredis';
import {
  DARK_POOL_LEVELS_FORMAT,
  DARK_POOL_LEVELS_VIEW,
  addLevel,
  addLevels,
  encodeLevels,
  levelCents,
  levelSessionsSuffix,
  sampleLevelsSuffix,
  tapeLevelsSuffix,
  type LevelTotals,
} from '../../services/views/equities/dark-pool-levels';
import { notionalUnits } from '../../services/views/equities/equity-prints';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';
import { isSampledPrint, type EquityPrintEvent } from './equity-prints';

/**
 * Dark-pool price levels (services/views/equities/dark-pool-levels.ts): each DARK_POOL print adds
 * its notional, size and one trade to its ticker's level in its session (the New York date of the
 * trade time). A chunk's prints are totalled in memory first; each level table they touch is then
 * read once, added to and written back whole (the projection is its partition's only writer).
 */
export const darkPoolLevelsProjection: Projection = {
  view: DARK_POOL_LEVELS_VIEW,
  format: DARK_POOL_LEVELS_FORMAT,
  topics: [topicFor('equity-print')!],

  async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
    const sums = new Map<string, Map<number, LevelTotals>>();
    const sessions = new Map<string, Set<string>>();
    for (const e of events) {
      if (e.value === null) continue;
      const v = e.value as unknown as EquityPrintEvent;
      if (v.printType !== 'DARK_POOL') continue;
      const date = sessionDateOf(Number(v.time));
      const size = Number(v.size);
      const key = keys.key(...(isSampledPrint(v) ? sampleLevelsSuffix : tapeLevelsSuffix)(date, v.ticker));
      let levels = sums.get(key);
      if (!levels) sums.set(key, (levels = new Map()));
      addLevel(levels, levelCents(v.price), notionalUnits(v.price, size), size, 1);
      let s = sessions.get(v.ticker);
      if (!s) sessions.set(v.ticker, (s = new Set()));
      s.add(date);
    }
    if (!sums.size) return [];
    const tableKeys = [...sums.keys()];
    const stored = await redis.mgetBuffer(...tableKeys);
    const ops: RedisOp[] = [];
    tableKeys.forEach((key, i) => {
      const levels = sums.get(key)!;
      const was = stored[i];
      if (was) addLevels(levels, was);
      ops.push(['SET', key, encodeLevels(levels)]);
    });
    for (const [ticker, dates] of sessions) ops.push(['ZADD', keys.key(...levelSessionsSuffix(ticker)), ...[...dates].flatMap((d) => ['0', d])]);
    return ops;
  },
};
