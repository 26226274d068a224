import { topicFor } from '../../schemas/catalog';
import {
  isConsolidatedRow,
  openInterestFlags,
  type ConsolidatedTradeEvent,
  type EnrichedPrintEvent,
  type OpenInterestFlags,
} from '../../services/domain/order-flow';
import { configuredRiskFreeRate } from '../../services/domain/rates';
import {
  ORDER_FLOW_CONSOLIDATED_VIEW,
  ORDER_FLOW_PRINTS_VIEW,
  encodeComprising,
  type OrderFlowConsolidatedRow,
  type OrderFlowPrintRow,
} from '../../services/views/order-flow';
import { upgradeOrderFlowEvent } from '../../services/domain/order-flow-upgrade';
import { orderFlowProjection } from './view-writer';

/**
 * Layout of both order-flow views' stored rows. 2: fifteen greeks, dollar moneyness, vendor
 * trade types, no SINGLE rows; 3: warm sessions as blocks of the order-flow warm codec
 * (services/views/order-flow/warm-codec.ts); 4: each session lists its open-interest hashes
 * (`oi:<D>`), so a warm session keeps them packed; 5: statistics counters by combination (`sc`,
 * `sc:<TICKER>` instead of `st:<TICKER>`); 6: the same by tier, type and side alone (`stt`). A view stored under an older layout is rebuilt on
 * start (ViewProjector).
 */
export const ORDER_FLOW_LAYOUT_FORMAT = 6;

/**
 * The row of an event: the event itself (the chunk's own decoded copy, used once) with the
 * open-interest fields set. Its extra fields (printId; version, comprisingTrades) are never
 * stored, since the stored form lists its fields (encodeRow); copying ~40 fields per row without
 * them cost a visible share of the projector's CPU. A chunk computed again (atomic-apply.ts: a
 * conflict) sets the same fields again from the event's own values, so the result is the same.
 */
function withOpenInterest<E extends EnrichedPrintEvent | ConsolidatedTradeEvent>(e: E, openInterest: number): E & OpenInterestFlags {
  return Object.assign(upgradeOrderFlowEvent(e, rate()), openInterestFlags(e, openInterest));
}

// The rate events of an older row format are re-priced with: read once, on first need.
let riskFreeRate: number | undefined;
function rate(): number {
  return (riskFreeRate ??= configuredRiskFreeRate());
}

/** Unconsolidated prints (derived.order-flow.prints) joined with the open interest. */
export const orderFlowPrintsProjection = orderFlowProjection<EnrichedPrintEvent>({
  view: ORDER_FLOW_PRINTS_VIEW,
  format: ORDER_FLOW_LAYOUT_FORMAT,
  rows: topicFor('enriched-print')!,
  toRow: (e, openInterest): OrderFlowPrintRow => withOpenInterest(e, openInterest),
});

/**
 * Consolidated trades (derived.order-flow.consolidated): each version of a trade replaces the
 * earlier one under the same rowKey (the trade's first print); comprising trades go to `<D>:ct`.
 * Versions typed SINGLE (one print below the block size) are not consolidated trades and are
 * left out; a trade's versions only ever grow, so a row never turns back into a SINGLE.
 */
export const orderFlowConsolidatedProjection = orderFlowProjection<ConsolidatedTradeEvent>({
  view: ORDER_FLOW_CONSOLIDATED_VIEW,
  format: ORDER_FLOW_LAYOUT_FORMAT,
  rows: topicFor('consolidated-trade')!,
  admits: (e) => isConsolidatedRow(e.tradeConsolidationType),
  toRow: (e, openInterest): OrderFlowConsolidatedRow => withOpenInterest(e, openInterest) as OrderFlowConsolidatedRow,
  comprising: (e) => encodeComprising(e.comprisingTrades),
});
