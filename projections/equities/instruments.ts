import { topicFor } from '../../schemas/catalog';
import type { PartitionKeys } from '../../services/views/keys';
import { INSTRUMENTS_FORMAT, INSTRUMENTS_VIEW, type InstrumentRecord } from '../../services/views/equities/instruments';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';

interface InstrumentEvent extends InstrumentRecord {
  symbol: string;
  sharesOutstanding: number;
}

/** Reference data by symbol (services/views/equities/instruments.ts); the latest event wins. */
export const instrumentsProjection: Projection = {
  view: INSTRUMENTS_VIEW,
  format: INSTRUMENTS_FORMAT,
  topics: [topicFor('instrument')!],

  async project(events: SourceEvent[], keys: PartitionKeys): Promise<RedisOp[]> {
    const ops: RedisOp[] = [];
    for (const e of events) {
      if (e.value === null) {
        if (e.key !== null) ops.push(['HDEL', keys.key('i'), e.key]);
        continue;
      }
      const v = e.value as unknown as InstrumentEvent;
      const rec: InstrumentRecord = {
        companyName: v.companyName,
        sector: v.sector,
        industry: v.industry,
        exchange: v.exchange,
        isIndex: v.isIndex,
        sharesOutstanding: Number(v.sharesOutstanding),
        marketCap: v.marketCap,
      };
      ops.push(['HSET', keys.key('i'), v.symbol, JSON.stringify(rec)]);
    }
    return ops;
  },
};
