import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { partitionOf } from '../../services/kafka/partition';
import type { SimulatedMarket } from '../simulator/session';

/**
 * The tick tier of a session is produced in TICK_SHARDS shards, by symbol: shard = the symbol's
 * partition modulo TICK_SHARDS, so each shard writes a fixed set of partitions. Shards are
 * independent streams with their own progress and their own transactional writer, so several
 * threads can produce one session in parallel and still exactly once. The shard count is part of
 * the stream names; it is a constant so that a session can be resumed by any worker.
 */
export const TICK_SHARDS = 4;

export function shardOf(symbol: string): number {
  return partitionOf(symbol, MARKET_PARTITIONS) % TICK_SHARDS;
}

export function shardSymbols(market: SimulatedMarket, shard: number): Set<string> {
  return new Set(market.instruments.filter((i) => shardOf(i.symbol) === shard).map((i) => i.symbol));
}
