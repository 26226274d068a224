import type { TableLayout } from '../table';
import { PREMIUM_TIERS, comboOf } from './combinations';
import { INDEXED_SORTS, ORDER_FLOW_CONSOLIDATED_VIEW, SORT_INDEXES, orderFlowKeys, type OrderFlowRow } from './keys';
import { decodeRow, encodeRow, storedTicker } from './row-codec';
import { comprisingWarmCodec } from './comprising-warm-codec';
import { orderFlowWarmCodec } from './warm-codec';
import type { WarmCodec } from '../warm-tier';

/**
 * The order-flow views as table views (services/views/table.ts), for the table engine: the keys
 * the order-flow projector writes (keys.ts, eachIndexEntry, tuned for its throughput) are exactly
 * the keys this layout names, which a unit test checks row by row.
 */
export function orderFlowLayout<R extends OrderFlowRow>(view: string): TableLayout<R> {
  return {
    view,
    segmented: true,
    segmentOf: (r) => r.sessionDate,
    rowKeyOf: (r) => r.rowKey,
    encode: (r) => encodeRow(r),
    decode: (stored, rowKey, segment) => decodeRow<R>(stored, rowKey, segment),
    sorts: INDEXED_SORTS.map((f) => ({ field: f, suffix: SORT_INDEXES[f].suffix, value: SORT_INDEXES[f].value })),
    indexes: [
      { name: 'tk', values: (r) => [r.ticker] },
      { name: 'os', values: (r) => [contractIndexValue(r.osi)] },
      { name: 'pt', values: (r) => PREMIUM_TIERS.filter((t) => r.premium >= t).map(String) },
      { name: 'un', values: (r) => (r.isUnusual ? [''] : []) },
      { name: 'cx', values: (r) => [comboOf(r).join(':')] },
    ],
    // Warm blocks: columnar, derived fields verified and dropped (warm-codec.ts), ~36 B a print.
    warm: {
      blockKey: (r) => r.ticker,
      storedBlockKey: storedTicker,
      codec: orderFlowWarmCodec as WarmCodec<R>,
      // The consolidated view's comprising trades (`<D>:ct`) move with their rows.
      companions: view === ORDER_FLOW_CONSOLIDATED_VIEW ? [{ name: 'ct', hash: (k, seg) => k.p.key(seg, 'ct'), codec: comprisingWarmCodec }] : [],
      // The open-interest join (keys.ts `oi:<D>:*`, listed in `oi:<D>`): read only by the
      // projection, which moves a session back before it writes to it.
      stateHashes: [
        {
          name: 'oi',
          sessions: (k) => orderFlowKeys(k.p).openInterestSessions,
          registry: (k, seg) => orderFlowKeys(k.p).openInterestBuckets(seg),
          hash: (k, seg, b) => orderFlowKeys(k.p).openInterestBucket(seg, b),
        },
      ],
    },
  };
}

/** A contract's value in the os index: its OSI with spaces as '_'. */
export function contractIndexValue(osi: string): string {
  return osi.replace(/ /g, '_');
}
