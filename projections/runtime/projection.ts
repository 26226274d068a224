import type { RedisClient as Redis } from '../../services/redis/client';
import type { TopicSpec } from '../../schemas/catalog';
import type { PartitionKeys } from '../../services/views/keys';
import type { RedisOp } from './atomic-apply';

/** A decoded Kafka message handed to a projection, in offset order within its partition. */
export interface SourceEvent<T = Record<string, unknown>> {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  /** null for a tombstone (compacted topics). */
  value: T | null;
}

/**
 * A view family. `project` turns a chunk of one partition's events into Redis writes; it may read
 * the partition's current view state (it is the only writer of that partition's keys, and the
 * runtime's compare-and-apply rejects its writes if that ever stops being true).
 * Determinism: the writes depend only on the events and the view state, never on the clock.
 */
export interface Projection {
  view: string;
  topics: readonly TopicSpec[];
  /**
   * One of `topics` whose events the others' are joined with (order flow: the open interest). At
   * start and after each rebalance the other topics wait, paused, until it is consumed to the end
   * it had then (ProjectionRunner.leadFirst): rows projected before their join value arrives are
   * projected again when it does, which on a replay cost up to a quarter of the throughput. Only
   * an optimisation: the view is the same whatever the order.
   */
  lead?: TopicSpec;
  /**
   * With `lead`: the other topics also wait whenever the lead falls more than a chunk behind its
   * end (a backfill arriving), not only after a join (ProjectionRunner.followLead). For a
   * projection where out-of-order work costs far more than a pause (volatility: a chunk of prices
   * re-prices every later snapshot of its session); the price is that the other topics pause,
   * the live session's included, while a backfill of the lead is consumed.
   */
  waitForLeadAlways?: boolean;
  /**
   * The version of the view's storage layout (1 when absent). A served view written under another
   * layout is rebuilt (replayed into a new version, then flipped) when a projector starts, so a
   * deployment that changes the layout needs no manual step.
   */
  format?: number;
  project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]>;
}
