import type { RedisClient as Redis } from '../../services/redis/client';
import TinyQueue from 'tinyqueue';

/**
 * Scatter-gather over lexicographic index zsets (all scores 0, members that sort as the rows
 * should). Each source is one zset of one partition (and, for per-session views, one session);
 * the merge yields members in ascending or descending order across all sources, fetching each
 * source lazily in growing chunks, and drops a member seen from two sources (an article in two
 * ticker indexes of its partition).
 */

export interface LexSource {
  partition: number;
  key: string;
  /** Lower BYLEX bound of this source ("[m", "(m" or "-"); the merge's own when absent. */
  min?: string;
  /** Upper BYLEX bound of this source ("[m", "(m" or "+"); the merge's own when absent. */
  max?: string;
  /** Free label carried to the hits (e.g. the session a per-session key belongs to). */
  tag?: string;
}

export interface LexHit {
  partition: number;
  member: string;
  source: LexSource;
}

interface Cursor {
  src: LexSource;
  buf: string[];
  pos: number;
  /** Remaining BYLEX range; the bound on the walking side moves past each fetched chunk. */
  min: string;
  max: string;
  done: boolean;
  chunk: number;
}

export interface LexMergeOptions {
  descending: boolean;
  /** Default lower bound of every source ("-" when absent). */
  min?: string;
  /** Default upper bound of every source ("+" when absent). */
  max?: string;
  firstChunk: number;
  maxChunk?: number;
}

/** Tighter of two BYLEX lower bounds ("-", "[m" or "(m"). */
export function tighterMin(a: string, b: string): string {
  if (a === '-') return b;
  if (b === '-') return a;
  const ma = a.slice(1);
  const mb = b.slice(1);
  if (ma !== mb) return ma > mb ? a : b;
  return a[0] === '(' ? a : b;
}

/** Tighter of two BYLEX upper bounds ("+", "[m" or "(m"). */
export function tighterMax(a: string, b: string): string {
  if (a === '+') return b;
  if (b === '+') return a;
  const ma = a.slice(1);
  const mb = b.slice(1);
  if (ma !== mb) return ma < mb ? a : b;
  return a[0] === '(' ? a : b;
}

/** True when no member can lie between the bounds. */
export function emptyLexRange(min: string, max: string): boolean {
  if (min === '-' || max === '+') return false;
  const a = min.slice(1);
  const b = max.slice(1);
  return a > b || (a === b && (min[0] === '(' || max[0] === '('));
}

export class LexMerge {
  private readonly cursors: Cursor[];
  private readonly maxChunk: number;
  private readonly descending: boolean;
  private last: string | null = null;
  /**
   * The cursors holding a buffered member, by that member (a binary heap): a step costs
   * O(log sources), where scanning every cursor cost O(sources) — hundreds of combination sets
   * make a filter's walk over 500+ sources.
   */
  private heap: TinyQueue<Cursor> | null = null;
  /** The cursor last taken from, when that used up its chunk and its source has more. */
  private drained: Cursor | null = null;

  constructor(
    private readonly redis: Redis,
    sources: LexSource[],
    o: LexMergeOptions,
  ) {
    this.descending = o.descending;
    this.maxChunk = o.maxChunk ?? 2_000;
    this.cursors = sources
      .map((src) => ({ src, buf: [], pos: 0, min: src.min ?? o.min ?? '-', max: src.max ?? o.max ?? '+', done: false, chunk: o.firstChunk }))
      .filter((c) => !emptyLexRange(c.min, c.max));
  }

  private async fill(cs: Cursor[]): Promise<void> {
    if (!cs.length) return;
    const pipe = this.redis.pipeline();
    for (const c of cs) {
      if (this.descending) pipe.zrange(c.src.key, c.max, c.min, 'BYLEX', 'REV', 'LIMIT', 0, c.chunk);
      else pipe.zrange(c.src.key, c.min, c.max, 'BYLEX', 'LIMIT', 0, c.chunk);
    }
    const res = await pipe.exec();
    cs.forEach((c, i) => {
      const [err, members] = res![i];
      if (err) throw err;
      const list = members as string[];
      c.buf = list;
      c.pos = 0;
      if (list.length < c.chunk) c.done = true;
      if (list.length) {
        const after = `(${list[list.length - 1]}`;
        if (this.descending) c.max = after;
        else c.min = after;
      }
      c.chunk = Math.min(c.chunk * 2, this.maxChunk);
    });
  }

  /** Up to `n` next hits in merge order (fewer only when every source is exhausted). */
  async next(n: number): Promise<LexHit[]> {
    if (!this.heap) {
      await this.fill(this.cursors);
      const sign = this.descending ? -1 : 1;
      const compare = (a: Cursor, b: Cursor) => {
        const x = a.buf[a.pos];
        const y = b.buf[b.pos];
        return x < y ? -sign : x > y ? sign : 0;
      };
      this.heap = new TinyQueue(
        this.cursors.filter((c) => c.pos < c.buf.length),
        compare,
      );
    }
    const out: LexHit[] = [];
    while (out.length < n) {
      // A cursor that used up its chunk is refilled before it competes again (its next member may
      // be the next in order); only the one last taken from can have run empty. The refill waits
      // for a call that needs another member, so a full page costs no extra round trip.
      const drained = this.drained;
      this.drained = null;
      if (drained) {
        await this.fill([drained]);
        if (drained.pos < drained.buf.length) this.heap.push(drained);
      }
      const best = this.heap.pop();
      if (!best) break;
      const member = best.buf[best.pos++];
      if (best.pos < best.buf.length) this.heap.push(best);
      else if (!best.done) this.drained = best;
      if (member === this.last) continue;
      this.last = member;
      out.push({ partition: best.src.partition, member, source: best.src });
    }
    return out;
  }
}
