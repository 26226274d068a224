/**
 * The order-flow views (one per tape), shared by the projectors (writers) and the API (reader):
 * key layout and indexes (keys.ts), the combination index (combinations.ts), the stored row
 * encoding (row-codec.ts), the warm tier's block codec (warm-codec.ts) and the statistics
 * counters (statistics.ts).
 */
export * from './keys';
export * from './combinations';
export * from './row-codec';
export * from './warm-codec';
export * from './statistics';
export { compareKeys, decodeNumericSortKey, encodeSortKey, indexMember, isSortKeyOf, parseIndexMember } from '../sort-keys';
export * from './layout';
