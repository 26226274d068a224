import { PartitionKeys } from '../../services/views/keys';
import {
  ORDER_FLOW_CONSOLIDATED_VIEW,
  ORDER_FLOW_PRINTS_VIEW,
  orderFlowKeys,
  orderFlowLayout,
  rowIndexEntries,
  type OrderFlowRow,
} from '../../services/views/order-flow';
import { TableKeys, rowWrites } from '../../services/views/table';
import { expectedConsolidatedRows, expectedPrintRows, orderFlowFixture } from '../support/order-flow-data';

/**
 * The order-flow projector writes its indexes with its own tuned code (eachIndexEntry); the table
 * engine reads them through the order-flow layout. The two must name the same keys and members.
 */
describe('order-flow layout', () => {
  const fixture = orderFlowFixture({ sessions: ['2024-05-01', '2024-05-02'], printsPerSession: 400, seed: 5 });

  it.each([
    [ORDER_FLOW_PRINTS_VIEW, expectedPrintRows(fixture) as OrderFlowRow[]],
    [ORDER_FLOW_CONSOLIDATED_VIEW, expectedConsolidatedRows(fixture) as OrderFlowRow[]],
  ])('%s: the layout names every index entry the projector writes, and no other', (view, rows) => {
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.some((r) => r.isUnusual)).toBe(true);
    expect(rows.some((r) => r.premium >= 100_000)).toBe(true);
    const layout = orderFlowLayout(view);
    for (const row of rows) {
      const p = new PartitionKeys('mdq', view, 1, Number(row.rowKey.slice(0, 2)));
      const written = rowIndexEntries(orderFlowKeys(p), row).map(([k, m]) => `${k} ${m}`);
      const named = rowWrites(layout, new TableKeys(p), row)
        .filter((w) => w[0] === 'ZADD' && !w[1].endsWith(':s'))
        .map((w) => `${w[1]} ${w[3] as string}`);
      expect(named.sort()).toEqual(written.sort());
    }
  });
});
