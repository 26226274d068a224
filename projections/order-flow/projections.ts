import { topicFor } from '../../schemas/catalog';
import { openInterestFlags, type ConsolidatedTradeEvent, type EnrichedPrintEvent } from '../../services/domain/order-flow';
import {
  ORDER_FLOW_CONSOLIDATED_VIEW,
  ORDER_FLOW_PRINTS_VIEW,
  encodeComprising,
  type OrderFlowConsolidatedRow,
  type OrderFlowPrintRow,
} from '../../services/views/order-flow';
import { orderFlowProjection } from './view-writer';

/** Unconsolidated prints (derived.order-flow.prints) joined with the open interest. */
export const orderFlowPrintsProjection = orderFlowProjection<EnrichedPrintEvent>({
  view: ORDER_FLOW_PRINTS_VIEW,
  rows: topicFor('enriched-print')!,
  toRow(e, openInterest): OrderFlowPrintRow {
    const { printId, ...row } = e;
    return { ...row, ...openInterestFlags(e, openInterest) };
  },
});

/**
 * Consolidated trades (derived.order-flow.consolidated): each version of a trade replaces the
 * earlier one under the same rowKey (the trade's first print); comprising trades go to `<D>:ct`.
 */
export const orderFlowConsolidatedProjection = orderFlowProjection<ConsolidatedTradeEvent>({
  view: ORDER_FLOW_CONSOLIDATED_VIEW,
  rows: topicFor('consolidated-trade')!,
  toRow(e, openInterest): OrderFlowConsolidatedRow {
    const { comprisingTrades, version, ...row } = e;
    return { ...row, ...openInterestFlags(e, openInterest) };
  },
  comprising: (e) => encodeComprising(e.comprisingTrades),
});
