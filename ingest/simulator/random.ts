import prand from 'pure-rand';

/**
 * Deterministic random streams for the simulator. Every stream is seeded from a key that names
 * what it drives (seed, session date, symbol, purpose...), so any piece of a session can be
 * generated on its own — a minute in live mode, a contract's orders in a backfill — and comes
 * out the same whichever way it was reached. Nothing here reads the clock or Math.random.
 */

/** FNV-1a (32-bit) over the parts joined by '|': a stable seed for a named stream. */
export function seedOf(...parts: readonly (string | number)[]): number {
  const s = parts.join('|');
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // A final avalanche (murmur3 fmix32) so that keys differing in one character diverge fully.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const TWO32 = 4_294_967_296;

export class Rand {
  private readonly g: prand.RandomGenerator;
  private spare: number | null = null;

  constructor(seed: number) {
    this.g = prand.xoroshiro128plus(seed | 0);
  }

  static of(...parts: readonly (string | number)[]): Rand {
    return new Rand(seedOf(...parts));
  }

  /** Uniform in [0, 1). */
  next(): number {
    return (this.g.unsafeNext() >>> 0) / TWO32;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  bool(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }

  /** Index drawn with probability proportional to weights (cumulative array, ascending). */
  pickCumulative(cumulative: ArrayLike<number>): number {
    const total = cumulative[cumulative.length - 1];
    const x = this.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Standard normal (Box-Muller, second value kept for the next call). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = this.next();
    while (u <= 1e-12) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Heavy-tailed: a fat-tailed normal mixture (5% of draws three times as wide). */
  fatNormal(): number {
    return this.normal() * (this.next() < 0.05 ? 3 : 1);
  }

  /** Pareto with minimum xm and tail index alpha (smaller alpha, heavier tail). */
  pareto(xm: number, alpha: number): number {
    return xm / Math.pow(1 - this.next(), 1 / alpha);
  }

  lognormal(mu: number, sigma: number): number {
    return Math.exp(mu + sigma * this.normal());
  }

  /** Poisson count (Knuth for small means, normal approximation above 50). */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean > 50) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const l = Math.exp(-mean);
    let k = 0;
    let p = 1;
    do {
      k++;
      p *= this.next();
    } while (p > l);
    return k - 1;
  }
}
