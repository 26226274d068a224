import { topicFor } from '../../schemas/catalog';
import { HISTORY_SAMPLE_CONDITION } from '../../services/domain/equity-prints';
import type { PartitionKeys } from '../../services/views/keys';
import { EQUITY_PRINTS_FORMAT, EQUITY_PRINTS_LAYOUT, EQUITY_PRINTS_VIEW, notionalOf, type EquityPrintRow } from '../../services/views/equities/equity-prints';
import { TableKeys, rowWrites } from '../../services/views/table';
import { sessionDateAt, tradeSideOf } from '../enrich/enrich-print';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';
import { withFeed } from '../runtime/feed';
import { withWarmTier } from '../runtime/warm-tier';

/** The fields of a market.equity-prints event this view reads. */
export interface EquityPrintEvent {
  id: string;
  ticker: string;
  time: number | bigint;
  price: number;
  size: number | bigint;
  printType: 'LIT' | 'DARK_POOL';
  bidPrice: number;
  askPrice: number;
  bidSize: number;
  askSize: number;
  isDelayedPrint: boolean;
  conditions: readonly string[];
}

/** A print as the tape row: notional and trade side (against the NBBO at the print) derived here. */
export function equityPrintRow(e: EquityPrintEvent): EquityPrintRow {
  const size = Number(e.size);
  return {
    id: e.id,
    ticker: e.ticker,
    price: e.price,
    size,
    notionalValue: notionalOf(e.price, size),
    printType: e.printType,
    tradeSide: tradeSideOf(e.price, e.bidPrice, e.askPrice),
    askPrice: e.askPrice,
    bidPrice: e.bidPrice,
    askSize: e.askSize,
    bidSize: e.bidSize,
    isDelayedPrint: e.isDelayedPrint,
    tradeTime: Number(e.time),
  };
}

/**
 * The equity print tape (services/views/equities/equity-prints.ts). Prints are immutable facts
 * with deterministic ids, so a redelivery rewrites the same field and members. Prints of the
 * history sample (sampledPrint: the daily tier's off-exchange sample that feeds the dark-pool
 * levels) are left out: the tape serves the sessions that have their full tick data.
 */
const hotEquityPrintsProjection: Projection = {
  view: EQUITY_PRINTS_VIEW,
  format: EQUITY_PRINTS_FORMAT,
  topics: [topicFor('equity-print')!],

  async project(events: SourceEvent[], keys: PartitionKeys): Promise<RedisOp[]> {
    const k = new TableKeys(keys);
    const ops: RedisOp[] = [];
    for (const e of events) {
      if (e.value === null) continue;
      const v = e.value as unknown as EquityPrintEvent;
      if (isSampledPrint(v)) continue;
      ops.push(...rowWrites(EQUITY_PRINTS_LAYOUT, k, equityPrintRow(v)));
    }
    return ops;
  },
};

/**
 * The tape with sessions older than the newest few kept as compact blocks (runtime/warm-tier.ts),
 * and its feed for the push streams (runtime/feed.ts).
 */
export const equityPrintsProjection: Projection = withFeed(
  withWarmTier(hotEquityPrintsProjection, {
    layout: EQUITY_PRINTS_LAYOUT,
    rowsTopic: topicFor('equity-print')!.name,
    sessionOf: (e) => {
      const v = e.value as unknown as EquityPrintEvent;
      return isSampledPrint(v) ? null : sessionDateAt(Number(v.time));
    },
  }),
  {
    layout: EQUITY_PRINTS_LAYOUT,
    rowsTopic: topicFor('equity-print')!.name,
    rowOf: (e) => {
      const v = e.value as unknown as EquityPrintEvent;
      return isSampledPrint(v) ? null : equityPrintRow(v);
    },
  },
);

/** A print of the history sample (services/domain/equity-prints.ts). */
export function isSampledPrint(e: { conditions?: readonly string[] }): boolean {
  return !!e.conditions && e.conditions.includes(HISTORY_SAMPLE_CONDITION);
}
