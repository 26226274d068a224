import { topicFor } from '../../schemas/catalog';
import { sessionDateOf } from '../../services/domain/calendar';
import type { PartitionKeys } from '../../services/views/keys';
import type { RedisClient as Redis } from '../../services/redis/client';
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
import { addFlow, addPrint, darkFlowSessionsSuffix, darkFlowSuffix, emptyFlow, encodeFlow, type SessionFlow } from '../../services/views/equities/dark-flow';
import { notionalUnits } from '../../services/views/equities/equity-prints';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';
import { isSampledPrint, type EquityPrintEvent } from './equity-prints';

/**
 * Dark-pool price levels (services/views/equities/dark-pool-levels.ts): each DARK_POOL print adds
 * its notional, size and one trade to its ticker's level in its session (the New York date of the
 * trade time). A chunk's prints are totalled in memory first; each level table they touch is then
 * read once, added to and written back whole (the projection is its partition's only writer).
 * The tape's DARK_POOL prints (not the history sample's) also go into the ticker's dark-flow
 * cells (services/views/equities/dark-flow.ts), a table per session read, added to and written
 * back the same way.
 */
export const darkPoolLevelsProjection: Projection = {
  view: DARK_POOL_LEVELS_VIEW,
  format: DARK_POOL_LEVELS_FORMAT,
  topics: [topicFor('equity-print')!],

  async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
    const sums = new Map<string, Map<number, LevelTotals>>();
    const sessions = new Map<string, Set<string>>();
    const flows = new Map<string, SessionFlow>();
    const flowSessions = new Map<string, Set<string>>();
    const flowOf = new Map<string, SessionFlow>();
    for (const e of events) {
      if (e.value === null) continue;
      const v = e.value as unknown as EquityPrintEvent;
      if (v.printType !== 'DARK_POOL') continue;
      const date = sessionDateOf(Number(v.time));
      const size = Number(v.size);
      const sampled = isSampledPrint(v);
      const key = keys.key(...(sampled ? sampleLevelsSuffix : tapeLevelsSuffix)(date, v.ticker));
      let levels = sums.get(key);
      if (!levels) sums.set(key, (levels = new Map()));
      const units = notionalUnits(v.price, size);
      addLevel(levels, levelCents(v.price), units, size, 1);
      if (!sampled) {
        // By the level table's key: building a key per print was most of this branch's cost.
        let flow = flowOf.get(key);
        if (!flow) {
          flowOf.set(key, (flow = emptyFlow()));
          flows.set(keys.key(...darkFlowSuffix(date, v.ticker)), flow);
          let fs = flowSessions.get(v.ticker);
          if (!fs) flowSessions.set(v.ticker, (fs = new Set()));
          fs.add(date);
        }
        addPrint(flow, Number(v.time), units, size);
      }
      let s = sessions.get(v.ticker);
      if (!s) sessions.set(v.ticker, (s = new Set()));
      s.add(date);
    }
    if (!sums.size) return [];
    const tableKeys = [...sums.keys()];
    const flowKeys = [...flows.keys()];
    const stored = await redis.mgetBuffer(...tableKeys, ...flowKeys);
    const ops: RedisOp[] = [];
    tableKeys.forEach((key, i) => {
      const levels = sums.get(key)!;
      const was = stored[i];
      if (was) addLevels(levels, was);
      ops.push(['SET', key, encodeLevels(levels)]);
    });
    flowKeys.forEach((key, i) => {
      const flow = flows.get(key)!;
      const was = stored[tableKeys.length + i];
      if (was) addFlow(flow, was);
      ops.push(['SET', key, encodeFlow(flow)]);
    });
    for (const [ticker, dates] of sessions) ops.push(['ZADD', keys.key(...levelSessionsSuffix(ticker)), ...[...dates].flatMap((d) => ['0', d])]);
    for (const [ticker, dates] of flowSessions) ops.push(['ZADD', keys.key(...darkFlowSessionsSuffix(ticker)), ...[...dates].flatMap((d) => ['0', d])]);
    return ops;
  },
};
