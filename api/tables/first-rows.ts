import { compareKeys } from '../../services/views/sort-keys';

/** An entry ranked by (sort key, rowKey), the order of every table page. */
export interface Ranked {
  sk: string;
  rk: string;
}

/**
 * The first `size` entries offered, in (sort key, rowKey) order (descending when `descending`),
 * kept by binary insertion in a bounded array: a page read from candidates, or merged from two
 * tiers, without sorting everything it saw.
 */
export class FirstRows<T extends Ranked> {
  readonly items: T[] = [];
  private readonly sign: 1 | -1;

  constructor(
    private readonly size: number,
    descending: boolean,
  ) {
    this.sign = descending ? -1 : 1;
  }

  /** Whether a ranks before b. */
  cmp(a: Ranked, b: Ranked): number {
    return this.sign * compareKeys(a.sk, a.rk, b.sk, b.rk);
  }

  /** The last entry kept once `size` are kept, else null (anything may still enter). */
  get worst(): T | null {
    return this.items.length === this.size ? this.items[this.size - 1] : null;
  }

  offer(e: T): void {
    const worst = this.worst;
    if (worst && this.cmp(worst, e) < 0) return;
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cmp(this.items[mid], e) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, e);
    if (this.items.length > this.size) this.items.pop();
  }
}
