import type { RedisClient as Redis } from '../../services/redis/client';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { feedEntryId, feedKey, offsetOfEntry, parseFeedEntries, type FeedEntry } from '../../services/views/feed';
import { PartitionKeys } from '../../services/views/keys';
import type { Logger } from '../../services/log';
import type { ViewPointers } from '../views/pointer';
import { startPosition, type Position } from './position';

/** A feed entry as the tailer holds it: decoded once, shared by every stream that reads it. */
export interface TailEntry extends FeedEntry {
  row?: unknown;
}

export interface TailerOptions {
  redis: Redis;
  keyPrefix: string;
  view: string;
  views: ViewPointers;
  log: Logger;
  /** How often the feeds are read while anyone listens. */
  pollMs: number;
  /** Entries kept in memory per partition for streams that are live. */
  ringSize: number;
}

const READ_COUNT = 1_000;

/**
 * Follows one view's feeds (services/views/feed.ts) for every stream of an API process: one
 * pipelined XRANGE per partition each `pollMs` while anyone listens, the newest `ringSize` entries
 * of each partition kept in memory. A stream that is live takes its entries from the ring; one
 * that is behind it (resumed from an older id, or slow) reads the feed itself
 * (readFeed), so no stream makes the process hold more than the rings.
 */
export class FeedTailer {
  /** Per partition, the offset of the newest entry read. */
  readonly head: Position = startPosition();
  /** Per partition, the ring holds every entry after this offset up to the head. */
  private readonly ringFrom: Position = startPosition();
  private readonly rings: TailEntry[][] = Array.from({ length: MARKET_PARTITIONS }, () => []);
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private started: Promise<void> | null = null;
  private polling = false;
  /** The served version of the view, as of the last read (null: none yet). */
  version: number | null = null;

  constructor(private readonly o: TailerOptions) {}

  /** Registers a listener called after each read that found entries; resolves once the head is known. */
  async subscribe(listener: () => void): Promise<() => void> {
    this.listeners.add(listener);
    if (!this.started) {
      this.started = this.findHead();
      this.timer = setInterval(() => void this.poll(), this.o.pollMs);
    }
    await this.started;
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  /** The ring's entries of a partition after `offset`, or null when the ring does not reach back that far. */
  after(partition: number, offset: number): TailEntry[] | null {
    if (offset < this.ringFrom[partition]) return null;
    const ring = this.rings[partition];
    // Entries are in offset order: the first after `offset` by binary search.
    let lo = 0;
    let hi = ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ring[mid].offset <= offset) lo = mid + 1;
      else hi = mid;
    }
    return ring.slice(lo);
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.started = null;
    // Forgotten while nobody listens: the next listener starts from the feed's end again.
    for (let p = 0; p < MARKET_PARTITIONS; p++) {
      this.rings[p] = [];
      this.head[p] = -1;
      this.ringFrom[p] = -1;
    }
  }

  private async findHead(): Promise<void> {
    for (;;) {
      try {
        this.version = await this.o.views.version(this.o.view);
        if (this.version === null) return;
        const pipe = this.o.redis.pipeline();
        for (let p = 0; p < MARKET_PARTITIONS; p++) pipe.xrevrange(this.key(p), '+', '-', 'COUNT', 1);
        const res = (await pipe.exec())!;
        res.forEach(([err, reply], p) => {
          if (err) throw err;
          const last = (reply as [string, string[]][])[0];
          this.head[p] = this.ringFrom[p] = last ? Number(last[0].slice(0, last[0].indexOf('-'))) : -1;
        });
        return;
      } catch (err) {
        this.o.log.warn({ err: (err as Error).message, view: this.o.view }, 'stream feed: cannot read the feed head; retrying');
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  }

  private key(p: number): string {
    return feedKey(new PartitionKeys(this.o.keyPrefix, this.o.view, this.version ?? 0, p));
  }

  private async poll(): Promise<void> {
    if (this.polling || !this.started) return;
    this.polling = true;
    try {
      await this.started;
      const version = await this.o.views.version(this.o.view);
      if (version === null) return;
      // A rebuilt version holds the same entries under the same offsets: reading goes on from the
      // head. A view that appeared after the first listener is read from its start (head -1).
      this.version = version;
      let found = false;
      let full = true;
      while (full) {
        full = false;
        const pipe = this.o.redis.pipeline();
        for (let p = 0; p < MARKET_PARTITIONS; p++)
          pipe.xrangeBuffer(this.key(p), this.head[p] < 0 ? '-' : `(${feedEntryId(this.head[p])}`, '+', 'COUNT', READ_COUNT);
        const res = (await pipe.exec())!;
        res.forEach(([err, reply], p) => {
          if (err) throw err;
          const entries = parseFeedEntries(reply as [Buffer, Buffer[]][]);
          if (!entries.length) return;
          found = true;
          if (entries.length === READ_COUNT) full = true;
          const ring = this.rings[p];
          for (const e of entries) ring.push(e);
          this.head[p] = entries[entries.length - 1].offset;
          if (ring.length > this.o.ringSize) {
            const dropped = ring.splice(0, ring.length - this.o.ringSize);
            this.ringFrom[p] = dropped[dropped.length - 1].offset;
          }
        });
      }
      if (found) for (const l of this.listeners) l();
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message, view: this.o.view }, 'stream feed: read failed; retrying');
    } finally {
      this.polling = false;
    }
  }
}

/**
 * Reads a partition's feed after `offset` directly (a stream behind the ring), with the offset of
 * the newest entry the feed has dropped (its retention): when that is past `offset`, entries the
 * stream should have seen are gone.
 */
export async function readFeed(
  redis: Redis,
  keyPrefix: string,
  view: string,
  version: number,
  partition: number,
  offset: number,
  count: number,
): Promise<{ entries: FeedEntry[]; droppedThrough: number }> {
  const key = feedKey(new PartitionKeys(keyPrefix, view, version, partition));
  const res = (await redis
    .pipeline()
    .xrangeBuffer(key, offset < 0 ? '-' : `(${feedEntryId(offset)}`, '+', 'COUNT', count)
    .xinfo('STREAM', key)
    .exec())!;
  const [[e1, range], [e2, info]] = res;
  if (e1) throw e1;
  // XINFO fails on a feed that does not exist yet: nothing dropped.
  return { entries: parseFeedEntries(range as [Buffer, Buffer[]][]), droppedThrough: e2 ? -1 : droppedThroughOf(info as unknown[]) };
}

/**
 * The offset through which a feed has dropped entries, from its XINFO STREAM reply (-1: none).
 * The projectors trim with XTRIM MINID, which leaves max-deleted-entry-id at 0-0 (Redis 7), so a
 * trim shows as fewer entries than were ever added: then everything before the oldest entry kept
 * counts as dropped (all of it, when the trim emptied the feed). The offsets between the newest
 * entry dropped and the oldest kept may have had no entries: a stream resumed there is told of a
 * gap it did not have, never left without one it had.
 */
export function droppedThroughOf(info: readonly unknown[]): number {
  const field = (name: string): string | null => {
    const i = info.indexOf(name);
    return i >= 0 && info[i + 1] != null ? String(info[i + 1]) : null;
  };
  const offset = (id: string | null) => (id === null || id === '0-0' ? -1 : offsetOfEntry(id));
  let dropped = offset(field('max-deleted-entry-id'));
  const added = Number(field('entries-added') ?? NaN);
  const length = Number(field('length') ?? NaN);
  if (added > length) {
    const oldest = offset(field('recorded-first-entry-id'));
    dropped = Math.max(dropped, length > 0 && oldest >= 0 ? oldest - 1 : offset(field('last-generated-id')));
  }
  return dropped;
}
