import { topicFor } from '../../schemas/catalog';
import { openInterestFlags, type ConsolidatedTradeEvent, type EnrichedPrintEvent, type OpenInterestFlags } from '../../services/domain/order-flow';
import {
  ORDER_FLOW_CONSOLIDATED_VIEW,
  ORDER_FLOW_PRINTS_VIEW,
  encodeComprising,
  type OrderFlowConsolidatedRow,
  type OrderFlowPrintRow,
} from '../../services/views/order-flow';
import { orderFlowProjection } from './view-writer';

/**
 * The row of an event: the event itself (the chunk's own decoded copy, used once) with the
 * open-interest fields set. Its extra fields (printId; version, comprisingTrades) are never
 * stored, since the stored form lists its fields (encodeRow); copying ~40 fields per row without
 * them cost a visible share of the projector's CPU. A chunk computed again (atomic-apply.ts: a
 * conflict) sets the same fields again from the event's own values, so the result is the same.
 */
function withOpenInterest<E extends EnrichedPrintEvent | ConsolidatedTradeEvent>(e: E, openInterest: number): E & OpenInterestFlags {
  return Object.assign(e, openInterestFlags(e, openInterest));
}

/** Unconsolidated prints (derived.order-flow.prints) joined with the open interest. */
export const orderFlowPrintsProjection = orderFlowProjection<EnrichedPrintEvent>({
  view: ORDER_FLOW_PRINTS_VIEW,
  rows: topicFor('enriched-print')!,
  toRow: (e, openInterest): OrderFlowPrintRow => withOpenInterest(e, openInterest),
});

/**
 * Consolidated trades (derived.order-flow.consolidated): each version of a trade replaces the
 * earlier one under the same rowKey (the trade's first print); comprising trades go to `<D>:ct`.
 */
export const orderFlowConsolidatedProjection = orderFlowProjection<ConsolidatedTradeEvent>({
  view: ORDER_FLOW_CONSOLIDATED_VIEW,
  rows: topicFor('consolidated-trade')!,
  toRow: (e, openInterest): OrderFlowConsolidatedRow => withOpenInterest(e, openInterest),
  comprising: (e) => encodeComprising(e.comprisingTrades),
});
