import { CONSOLIDATED_RESPONSE } from '../../api/endpoints/options/order-flow-consolidated';
import { RESPONSE_FIELD_ORDER, ROW_PROPERTIES, tapeResponse } from '../../api/endpoints/options/order-flow-tape';
import { UNCONSOLIDATED_RESPONSE } from '../../api/endpoints/options/order-flow-unconsolidated';
import { project } from '../../api/request/projection';
import { decodeComprising, decodeRow, encodeComprising, encodeRow, type OrderFlowRow } from '../../services/views/order-flow';
import { expectedConsolidatedRows, expectedPrintRows, orderFlowFixture } from '../support/order-flow-data';

/**
 * The order-flow responses are written by a serializer compiled from the response schema
 * (fast-json-stringify), handed the rows as the view reader decodes them. What it must do: the
 * response fields in the spec's order, every value as JSON.stringify writes it, view-internal
 * fields left out, fields dropped by includes/excludes absent.
 */

const fixture = orderFlowFixture({ sessions: ['2024-05-01'], printsPerSession: 300, seed: 11 });
// Rows as the reader hands them over: decoded from the stored form (view-internal fields included).
const asRead = <R extends OrderFlowRow>(rows: R[]) => rows.map((r) => decodeRow<R>(encodeRow(r), r.rowKey, r.sessionDate));
const prints = asRead(expectedPrintRows(fixture));
const consolidated = asRead(expectedConsolidatedRows(fixture));
const INTERNAL = ['rowKey', 'sessionDate', 'lastTradeTime'];
/** The row fields of a tape's response schema. */
const rowFields = (r: { schema: unknown }) =>
  Object.keys((r.schema as { properties: { data: { items: { properties: object } } } }).properties.data.items.properties);

/** The response form of a row written independently: the order list, the values as they are. */
function expectedRow(r: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(RESPONSE_FIELD_ORDER.filter((k) => fields.includes(k) && k in r).map((k) => [k, r[k]]));
}

describe('order-flow response serializer', () => {
  it('the fixture has rows of both tapes, with null and non-null greeks', () => {
    expect(prints.length).toBeGreaterThan(100);
    expect(consolidated.length).toBeGreaterThan(50);
    expect(prints.some((r) => r.greeks === null)).toBe(true);
    expect(prints.some((r) => r.greeks !== null)).toBe(true);
  });

  it('unconsolidated: every response field in the spec order, values as JSON.stringify writes them, nothing internal', () => {
    const fields = rowFields(UNCONSOLIDATED_RESPONSE);
    const text = UNCONSOLIDATED_RESPONSE.serialize({ data: prints, nextSearchAfter: ['n00000000000000a', '0000000001'] });
    const expected = { data: prints.map((r) => expectedRow(r as never, fields)), nextSearchAfter: ['n00000000000000a', '0000000001'] };
    // Byte for byte: the same keys in the same order and the same number formatting.
    expect(text).toBe(JSON.stringify(expected));
    const first = JSON.parse(text).data[0];
    expect(Object.keys(first).slice(0, 3)).toEqual(['id', 'osi', 'ticker']);
    expect(Object.keys(first).at(-1)).toBe('tradeTime');
    for (const k of INTERNAL) expect(first).not.toHaveProperty(k);
  });

  it('consolidated: the consolidation fields follow tradeType, no osi, comprising trades when attached', () => {
    const fields = rowFields(CONSOLIDATED_RESPONSE);
    const rows = consolidated
      .slice(0, 20)
      .map((r, i) =>
        i % 2 ? { ...r, comprisingTrades: decodeComprising(encodeComprising(fixture.consolidated.find((c) => c.rowKey === r.rowKey)!.comprisingTrades)) } : r,
      );
    const text = CONSOLIDATED_RESPONSE.serialize({ data: rows });
    expect(text).toBe(JSON.stringify({ data: rows.map((r) => expectedRow(r as never, fields)) }));
    const [even, odd] = JSON.parse(text).data;
    const keys = Object.keys(even);
    expect(keys.slice(keys.indexOf('tradeType'), keys.indexOf('tradeType') + 4)).toEqual([
      'tradeType',
      'tradeConsolidationType',
      'isGoldenSweep',
      'sentimentType',
    ]);
    expect(even).not.toHaveProperty('osi');
    expect(even).not.toHaveProperty('comprisingTrades');
    expect(odd.comprisingTrades.length).toBeGreaterThan(0);
    for (const k of INTERNAL) expect(even).not.toHaveProperty(k);
  });

  it('fields dropped by includes/excludes are absent, nested objects as a whole', () => {
    const drop = new Set(['greeks', 'moneyness', 'premium', 'osi']);
    const out = JSON.parse(UNCONSOLIDATED_RESPONSE.serialize({ data: prints.slice(0, 5).map((r) => project(r, drop)) })).data;
    for (const row of out) for (const k of drop) expect(row).not.toHaveProperty(k);
    expect(Object.keys(out[0])).toEqual(Object.keys(JSON.parse(UNCONSOLIDATED_RESPONSE.serializeRow(prints[0]))).filter((k) => !drop.has(k)));
  });

  it('statistics and the cursor are written as given', () => {
    const statistics = JSON.parse(JSON.stringify({ CALL: {}, PUT: {} }));
    for (const t of ['CALL', 'PUT'])
      for (const s of ['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID']) statistics[t][s] = { premium: 1234.5, tradeCount: 3, volume: 17 };
    const value = { data: [], nextSearchAfter: ['a', 'b'], statistics };
    expect(CONSOLIDATED_RESPONSE.serialize(value)).toBe(JSON.stringify(value));
  });

  it('a row field without a place in the order is refused when the endpoint is built', () => {
    expect(() => tapeResponse('x', { ...ROW_PROPERTIES, surprise: { type: 'string' } })).toThrow(/surprise/);
  });
});
