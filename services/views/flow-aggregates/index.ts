/** The flow-aggregates cube: key layout (keys.ts) and the pure cell and bar arithmetic (cells.ts). */
export * from './keys';
export * from './cells';
export * from './packed';
export * from './warm';
export * from './derived';
