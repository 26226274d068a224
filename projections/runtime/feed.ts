import type { RedisClient as Redis } from '../../services/redis/client';
import { feedAppend, feedGate, feedRetention, feedTrim } from '../../services/views/feed';
import type { PartitionKeys } from '../../services/views/keys';
import type { TableLayout } from '../../services/views/table';
import type { RedisOp } from './atomic-apply';
import type { Projection, SourceEvent } from './projection';

/**
 * A tape projection that also appends each live row it writes to its partition's feed
 * (services/views/feed.ts, FeedGate), under the offset of the event the row came from, in the
 * chunk's own transaction: the feed holds exactly the live rows applied, once each, whatever the chunking.
 */
export interface FeedSpec<Row> {
  layout: TableLayout<Row>;
  /** Name (without prefix) of the topic whose events are the rows. */
  rowsTopic: string;
  /** The row an event writes, or null when the event is no row of the view. */
  rowOf(e: SourceEvent): Row | null;
}

export function withFeed<Row>(inner: Projection, spec: FeedSpec<Row>): Projection {
  return {
    ...inner,
    async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
      const ops = await inner.project(events, keys, redis);
      if (!events.length || !events[0].topic.endsWith(spec.rowsTopic)) return ops;
      const { layout } = spec;
      const gate = await feedGate(redis, keys);
      for (const e of events) {
        const row = e.value === null ? null : spec.rowOf(e);
        if (row && gate.admits(layout.segmentOf(row))) ops.push(feedAppend(keys, e.offset, layout.segmentOf(row), layout.rowKeyOf(row), layout.encode(row)));
      }
      const trim = feedTrimOf(keys, events);
      if (trim) ops.push(trim);
      return ops;
    },
  };
}

let retention: number | undefined;

/** The trim that keeps the feed to its retention after a chunk (read from the environment once). */
export function feedTrimOf(keys: PartitionKeys, events: readonly SourceEvent[]): RedisOp | null {
  return feedTrim(keys, events[events.length - 1].offset, (retention ??= feedRetention()));
}
