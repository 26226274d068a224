import { LeadGate } from '../../projections/runtime/lead-gate';

const lead = (applied: number[], latest: number[]) => applied.map((a, partition) => ({ partition, applied: a, latest: latest[partition] }));

describe('lead gate: which partitions of the other topics wait for the lead topic', () => {
  it('a partition waits while its lead has more than maxBehind messages to apply, each partition on its own', () => {
    const gate = new LeadGate(60_000);
    const behind = (p: number) => (p === 0 ? 0 : 3_000);
    expect([...gate.waiting(lead([9, 9, 5_000, -1], [10, 9, 8_001, 2_999]), behind, 0).waiting].sort()).toEqual([0, 2]);
    expect([...gate.waiting(lead([10, 9, 5_001, -1], [10, 9, 8_001, 2_999]), behind, 100).waiting]).toEqual([]);
    // A backfill puts partition 3 behind again.
    expect([...gate.waiting(lead([10, 9, 5_001, -1], [10, 9, 8_001, 3_000]), behind, 200).waiting]).toEqual([3]);
  });

  it('a lead that does not move for stallMs releases its followers; moving again, it holds them again', () => {
    const gate = new LeadGate(1_000);
    const none = () => 0;
    expect(gate.waiting(lead([5], [10]), none, 0)).toEqual({ waiting: new Set([0]), stalled: [] });
    expect(gate.waiting(lead([5], [10]), none, 999)).toEqual({ waiting: new Set([0]), stalled: [] });
    expect(gate.waiting(lead([5], [10]), none, 1_000)).toEqual({ waiting: new Set(), stalled: [0] });
    expect(gate.waiting(lead([6], [10]), none, 1_500)).toEqual({ waiting: new Set([0]), stalled: [] });
    expect(gate.waiting(lead([6], [10]), none, 2_499)).toEqual({ waiting: new Set([0]), stalled: [] });
    expect(gate.waiting(lead([6], [10]), none, 2_500)).toEqual({ waiting: new Set(), stalled: [0] });
    expect(gate.waiting(lead([10], [10]), none, 2_600)).toEqual({ waiting: new Set(), stalled: [] });
  });
});
