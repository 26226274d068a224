/**
 * One partition's delivered batches, applied strictly in order (runner.ts): each queued task runs
 * after the previous one has finished, while the consumer goes on fetching.
 */
export class PartitionLane {
  private tail: Promise<void> = Promise.resolve();
  /** Tasks queued and not finished (the running one included). */
  private queued = 0;
  private waiters: (() => void)[] = [];
  /**
   * Bumped by a group join or a seek: the consumer fetches again from its new position, so the
   * batches queued before it must be dropped unapplied (each task compares the epoch it was queued
   * with).
   */
  epoch = 0;
  /**
   * The highest offset up to which every message of the partition is applied, transaction markers
   * included (recordSeenOffset); -1 when not known since the last join or seek.
   */
  seen = -1;

  get size(): number {
    return this.queued;
  }

  /** Queues a task after the others. It never rejects the chain: `task` handles its own errors. */
  push(task: () => Promise<void>): void {
    this.queued++;
    this.tail = this.tail
      .then(task)
      .catch(() => {})
      .finally(() => {
        this.queued--;
        this.wake();
      });
  }

  /** Resolves when the lane holds fewer than `limit` tasks, or after `ms` (the caller checks again). */
  async room(limit: number, ms: number): Promise<void> {
    if (this.queued < limit) return;
    await new Promise<void>((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      // A timed-out waiter leaves the list, so a lane stuck for long (Redis down) does not pile them up.
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      }, ms);
      this.waiters.push(waiter);
    });
  }

  /** Lets every waiting `room` call check again (a task finished, or the runner is stopping). */
  wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves when every task queued so far has finished. */
  idle(): Promise<void> {
    return this.tail;
  }

  /** Drops the queued tasks (they see a new epoch) and forgets what was seen. */
  reset(): void {
    this.epoch++;
    this.seen = -1;
  }
}
