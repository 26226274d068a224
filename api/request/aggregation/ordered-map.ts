// The ordered maps moved to services/views: the projections write answers in response form too.
export { orderedMap, orderedMapJson, strikeKey, type KeyOrder } from '../../../services/views/ordered-map';

/** A price level as a response key: dollars with exactly two decimals ("210.00", "212.50"). */
export function priceLevelKey(dollars: number): string {
  return dollars.toFixed(2);
}
