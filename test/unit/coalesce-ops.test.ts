import { coalesceOps, type RedisOp } from '../../projections/runtime/atomic-apply';

describe('coalesceOps', () => {
  it('merges consecutive uses of a variadic command on one key, keeping argument order', () => {
    const ops: RedisOp[] = [
      ['ZADD', 'a', '0', 'm1'],
      ['HSET', 'h', 'f1', 'v1'],
      ['ZADD', 'a', '0', 'm2'],
      ['HSET', 'h', 'f2', 'v2'],
      ['HINCRBY', 'c', 'x', '1'],
    ];
    expect(coalesceOps(ops)).toEqual([
      ['ZADD', 'a', '0', 'm1', '0', 'm2'],
      ['HSET', 'h', 'f1', 'v1', 'f2', 'v2'],
      ['HINCRBY', 'c', 'x', '1'],
    ]);
  });

  it('never reorders writes to one key: a different command in between starts a new call', () => {
    const ops: RedisOp[] = [
      ['ZADD', 'a', '0', 'm1'],
      ['ZREM', 'a', 'm1'],
      ['ZADD', 'a', '0', 'm1'],
      ['ZREM', 'b', 'x'],
      ['ZREM', 'a', 'm2'],
      ['ZREM', 'a', 'm3'],
    ];
    expect(coalesceOps(ops)).toEqual([
      ['ZADD', 'a', '0', 'm1'],
      ['ZREM', 'a', 'm1'],
      ['ZADD', 'a', '0', 'm1'],
      ['ZREM', 'b', 'x'],
      ['ZREM', 'a', 'm2', 'm3'],
    ]);
  });

  it('does not merge non-variadic commands and does not mutate its input', () => {
    const ops: RedisOp[] = [
      ['HINCRBY', 'c', 'x', '1'],
      ['HINCRBY', 'c', 'x', '2'],
      ['DEL', 'd'],
      ['DEL', 'd'],
    ];
    const copy = JSON.parse(JSON.stringify(ops));
    expect(coalesceOps(ops)).toEqual(ops);
    expect(ops).toEqual(copy);
  });

  it('caps a merged call so Lua unpack stays within its limit', () => {
    const ops: RedisOp[] = Array.from({ length: 3000 }, (_, i): RedisOp => ['ZADD', 'a', '0', `m${i}`]);
    const out = coalesceOps(ops);
    expect(out.length).toBeGreaterThan(1);
    expect(Math.max(...out.map((o) => o.length))).toBeLessThanOrEqual(2000);
    expect(out.flatMap((o) => o.slice(2)).filter((_, i) => i % 2 === 1)).toEqual(ops.map((o) => o[3]));
  });

  it('splits one oversized variadic call into calls Lua can unpack, keeping items whole and in order', () => {
    const pairs = Array.from({ length: 1500 }, (_, i) => ['0', `m${i}`]).flat();
    const out = coalesceOps([
      ['ZADD', 'a', ...pairs],
      ['ZREM', 'b', ...Array.from({ length: 2500 }, (_, i) => `r${i}`)],
      ['DEL', 'c'],
    ]);
    expect(out.map((o) => [o[0], o[1]])).toEqual([
      ['ZADD', 'a'],
      ['ZADD', 'a'],
      ['ZREM', 'b'],
      ['ZREM', 'b'],
      ['DEL', 'c'],
    ]);
    expect(Math.max(...out.map((o) => o.length - 2))).toBeLessThanOrEqual(2000);
    expect(out.filter((o) => o[1] === 'a').flatMap((o) => o.slice(2))).toEqual(pairs);
    expect(out.filter((o) => o[1] === 'a').every((o) => o.length % 2 === 0)).toBe(true);
    expect(out.filter((o) => o[1] === 'b').flatMap((o) => o.slice(2))).toHaveLength(2500);
  });
});
