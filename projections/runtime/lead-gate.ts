/**
 * Which partitions of a projection's other topics wait for its lead topic (Projection.lead).
 *
 * A row projected before its join value (a quote before its minute's price, a print before its
 * open interest) is projected again when the value arrives, and during a catch-up that repeats:
 * a volatility surface quoted ahead of its session's prices was priced again by every chunk of
 * prices behind it. So the others wait, per partition, while the lead partition of the same
 * number has more than `maxBehind` messages to apply: after a join, until the lead is consumed to
 * the end it had then (maxBehind 0, as a rebuild starts); from then on, for a projection that asks
 * for it (Projection.waitForLeadAlways), whenever a backfill puts it more than a chunk behind
 * again. A lead that has not moved for `stallMs` while others wait releases them: the gate only
 * orders work, it must never stop a view.
 */
export interface LeadPartition {
  partition: number;
  /** The lead partition's last offset (its end minus one). */
  latest: number;
  /** The lead offset the view has applied (or seen), -1 for none. */
  applied: number;
}

export class LeadGate {
  private readonly moved = new Map<number, { applied: number; at: number }>();

  constructor(private readonly stallMs: number) {}

  /** The partitions whose other topics wait now, and those released because their lead stalled. */
  waiting(lead: readonly LeadPartition[], maxBehind: (partition: number) => number, now: number): { waiting: Set<number>; stalled: number[] } {
    const waiting = new Set<number>();
    const stalled: number[] = [];
    for (const l of lead) {
      const last = this.moved.get(l.partition);
      if (!last || last.applied !== l.applied) this.moved.set(l.partition, { applied: l.applied, at: now });
      if (l.latest - l.applied <= maxBehind(l.partition)) continue;
      if (now - this.moved.get(l.partition)!.at >= this.stallMs) stalled.push(l.partition);
      else waiting.add(l.partition);
    }
    return { waiting, stalled };
  }
}
