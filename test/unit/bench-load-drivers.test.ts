import { inlinePgParams, luaString, mergedQuantiles } from '../bench/load-drivers';

/** The pure parts of the benchmark's C load drivers (wrk, pgbench): how their figures are read. */
describe('bench load drivers', () => {
  const thousand = (f: (i: number) => number) => Array.from({ length: 1000 }, (_, i) => f(i + 1));

  it('reads one run as its own quantiles', () => {
    const at = mergedQuantiles([{ requests: 5000, quantiles: thousand((i) => i * 10) }]);
    expect(at(50)).toBe(5000);
    expect(at(99)).toBe(9900);
    expect(at(100)).toBe(10000);
    expect(at(0.1)).toBe(10);
  });

  it('weights each run by its requests when merging', () => {
    // Run A: 9,000 requests all at 1 ms; run B: 1,000 requests all at 100 ms. 90 % are fast.
    const at = mergedQuantiles([
      { requests: 9000, quantiles: thousand(() => 1) },
      { requests: 1000, quantiles: thousand(() => 100) },
    ]);
    expect(at(50)).toBe(1);
    expect(at(90)).toBe(1);
    expect(at(90.1)).toBe(100);
    expect(at(99)).toBe(100);
  });

  it('merges two equal runs as their union', () => {
    const a = thousand((i) => i); // 1..1000
    const b = thousand((i) => i + 1000); // 1001..2000
    const at = mergedQuantiles([
      { requests: 4000, quantiles: a },
      { requests: 4000, quantiles: b },
    ]);
    expect(at(50)).toBe(1000);
    expect(at(99)).toBe(1980);
  });

  it('writes a Lua string that holds any text exactly', () => {
    expect(luaString('{"a":"b"}')).toBe('[[{"a":"b"}]]');
    // A closing bracket pair inside the text needs a longer bracket level.
    expect(luaString('x]]y')).toBe('[=[x]]y]=]');
    expect(luaString('x]]y]=]z')).toBe('[==[x]]y]=]z]==]');
  });

  it('writes bind values into SQL as literals that read back as the same values', () => {
    expect(inlinePgParams('SELECT 1 WHERE d = $1 AND (p, k) < ($2, $3)', ['2026-11-20', 1234567.89, "O'Neil"])).toBe(
      "SELECT 1 WHERE d = '2026-11-20' AND (p, k) < (1234567.89::float8, 'O''Neil')",
    );
    expect(inlinePgParams('$1 $10', [1, 2, 3, 4, 5, 6, 7, 8, 9, 'ten'])).toBe("1::float8 'ten'");
  });
});
