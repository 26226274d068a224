import { PartitionLane } from '../../projections/runtime/partition-lane';

/** A task that records its start and end, and finishes when `release` is called. */
function gated(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return {
    task: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
    },
    release,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('PartitionLane', () => {
  it('runs its tasks one after the other, in the order they were queued', async () => {
    const lane = new PartitionLane();
    const log: string[] = [];
    const a = gated(log, 'a');
    const b = gated(log, 'b');
    lane.push(a.task);
    lane.push(b.task);
    expect(lane.size).toBe(2);
    await tick();
    expect(log).toEqual(['start a']); // b waits for a
    b.release(); // finishing b's gate early changes nothing: it has not started
    await tick();
    expect(log).toEqual(['start a']);
    a.release();
    await lane.idle();
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
    expect(lane.size).toBe(0);
  });

  it('a task that fails does not stop the ones after it', async () => {
    const lane = new PartitionLane();
    const log: string[] = [];
    lane.push(async () => {
      throw new Error('boom');
    });
    lane.push(async () => void log.push('after'));
    await lane.idle();
    expect(log).toEqual(['after']);
    expect(lane.size).toBe(0);
  });

  it('room() waits while the lane is full and resolves when a task finishes', async () => {
    const lane = new PartitionLane();
    const log: string[] = [];
    const a = gated(log, 'a');
    lane.push(a.task);
    let free = false;
    const waiting = lane.room(1, 60_000).then(() => (free = true));
    await tick();
    expect(free).toBe(false);
    a.release();
    await waiting;
    expect(free).toBe(true);
    expect(lane.size).toBe(0);
    // Below the limit it resolves at once.
    await expect(lane.room(1, 60_000)).resolves.toBeUndefined();
  });

  it('room() gives up after its timeout (the caller heartbeats and checks again), and wake() frees it', async () => {
    jest.useFakeTimers();
    try {
      const lane = new PartitionLane();
      const a = gated([], 'a');
      lane.push(a.task);
      let free = false;
      const waiting = lane.room(1, 1_000).then(() => (free = true));
      jest.advanceTimersByTime(999);
      await Promise.resolve();
      expect(free).toBe(false);
      jest.advanceTimersByTime(1);
      await waiting;
      expect(free).toBe(true);
      expect(lane.size).toBe(1); // still full: the task runs on
      let woken = false;
      const again = lane.room(1, 60_000).then(() => (woken = true));
      lane.wake();
      await again;
      expect(woken).toBe(true);
      a.release();
    } finally {
      jest.useRealTimers();
    }
  });

  it('reset() moves to a new epoch and forgets the offset seen', () => {
    const lane = new PartitionLane();
    lane.seen = 41;
    const before = lane.epoch;
    lane.reset();
    expect(lane.epoch).toBe(before + 1);
    expect(lane.seen).toBe(-1);
  });
});
