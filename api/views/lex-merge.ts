import type Redis from 'ioredis';

/**
 * Scatter-gather over lexicographic index zsets (all scores 0, members that sort as the rows
 * should). Each source is one zset of one partition; the merge yields members in descending
 * order across all sources, fetching each source lazily in growing chunks, and drops a member
 * seen from two sources (an article in two ticker indexes of its partition).
 */

export interface LexSource {
  partition: number;
  key: string;
}

export interface LexHit {
  partition: number;
  member: string;
}

interface Cursor {
  src: LexSource;
  buf: string[];
  pos: number;
  /** Exclusive upper bound for the next fetch, as a ZRANGE BYLEX bound ("(member" or "+"). */
  upper: string;
  done: boolean;
  chunk: number;
}

export class DescendingLexMerge {
  private readonly cursors: Cursor[];
  private last: string | null = null;
  private primed = false;

  /**
   * @param upper exclusive/inclusive BYLEX bound where the walk starts ("(m", "[m" or "+")
   * @param lower BYLEX bound where it ends ("[m", "(m" or "-")
   */
  constructor(
    private readonly redis: Redis,
    sources: LexSource[],
    upper: string,
    private readonly lower: string,
    firstChunk: number,
    private readonly maxChunk = 2_000,
  ) {
    this.cursors = sources.map((src) => ({ src, buf: [], pos: 0, upper, done: false, chunk: firstChunk }));
  }

  private async fill(cs: Cursor[]): Promise<void> {
    if (!cs.length) return;
    const pipe = this.redis.pipeline();
    for (const c of cs) pipe.zrange(c.src.key, c.upper, this.lower, 'BYLEX', 'REV', 'LIMIT', 0, c.chunk);
    const res = await pipe.exec();
    cs.forEach((c, i) => {
      const [err, members] = res![i];
      if (err) throw err;
      const list = members as string[];
      c.buf = list;
      c.pos = 0;
      if (list.length < c.chunk) c.done = true;
      if (list.length) c.upper = `(${list[list.length - 1]}`;
      c.chunk = Math.min(c.chunk * 2, this.maxChunk);
    });
  }

  /** Up to `n` next hits in descending member order (fewer only when every source is exhausted). */
  async next(n: number): Promise<LexHit[]> {
    if (!this.primed) {
      await this.fill(this.cursors);
      this.primed = true;
    }
    const out: LexHit[] = [];
    while (out.length < n) {
      const empty = this.cursors.filter((c) => c.pos >= c.buf.length && !c.done);
      if (empty.length) await this.fill(empty);
      let best: Cursor | null = null;
      for (const c of this.cursors) {
        if (c.pos < c.buf.length && (!best || c.buf[c.pos] > best.buf[best.pos])) best = c;
      }
      if (!best) break;
      const member = best.buf[best.pos++];
      if (member === this.last) continue;
      this.last = member;
      out.push({ partition: best.src.partition, member });
    }
    return out;
  }
}
