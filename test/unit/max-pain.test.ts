import { maxPain, maxPainJson, strikeKey } from '../../services/domain/max-pain';

/** Max pain against chains computed by hand (services/domain/max-pain.ts has the formulas). */
describe('max pain', () => {
  it('a symmetric chain: writers owe least at the middle strike', () => {
    const chain = [
      { strike: 90, call: 5, put: 0 },
      { strike: 95, call: 10, put: 0 },
      { strike: 100, call: 20, put: 20 },
      { strike: 105, call: 0, put: 10 },
      { strike: 110, call: 0, put: 5 },
    ];
    // K=95: calls 5*5*100; puts 20*5*100 + 10*10*100 + 5*15*100.
    expect(maxPain(chain)).toEqual({
      cells: [
        { strike: 90, callIntrinsicValue: 0, putIntrinsicValue: 20 * 10 * 100 + 10 * 15 * 100 + 5 * 20 * 100 },
        { strike: 95, callIntrinsicValue: 2_500, putIntrinsicValue: 27_500 },
        { strike: 100, callIntrinsicValue: 10_000, putIntrinsicValue: 10_000 },
        { strike: 105, callIntrinsicValue: 27_500, putIntrinsicValue: 2_500 },
        { strike: 110, callIntrinsicValue: 5 * 20 * 100 + 10 * 15 * 100 + 20 * 10 * 100, putIntrinsicValue: 0 },
      ],
      maxPainStrike: 100,
    });
  });

  it('a tie between two strikes goes to the lower one, whatever the input order', () => {
    const chain = [
      { strike: 115, call: 0, put: 30 },
      { strike: 100, call: 30, put: 0 },
      { strike: 110, call: 0, put: 10 },
      { strike: 105, call: 0, put: 0 },
    ];
    // Totals: 100 -> 55,000; 105 -> 50,000; 110 -> 45,000; 115 -> 45,000.
    const pain = maxPain(chain)!;
    expect(pain.cells.map((c) => [c.strike, c.callIntrinsicValue, c.putIntrinsicValue])).toEqual([
      [100, 0, 55_000],
      [105, 15_000, 35_000],
      [110, 30_000, 15_000],
      [115, 45_000, 0],
    ]);
    expect(pain.maxPainStrike).toBe(110);
    expect(maxPain([...chain].reverse())!.maxPainStrike).toBe(110);
  });

  it('fractional strikes are owed in whole cents', () => {
    const pain = maxPain([
      { strike: 2.5, call: 3, put: 0 },
      { strike: 2.55, call: 0, put: 7 },
    ])!;
    expect(pain.cells).toEqual([
      { strike: 2.5, callIntrinsicValue: 0, putIntrinsicValue: 35 },
      { strike: 2.55, callIntrinsicValue: 15, putIntrinsicValue: 0 },
    ]);
    expect(pain.maxPainStrike).toBe(2.55);
  });

  it('an empty chain has no max pain', () => {
    expect(maxPain([])).toBeNull();
  });

  it('strike keys are dollars with at least one decimal', () => {
    expect([215, 212.5, 2.55, 1000].map(strikeKey)).toEqual(['215.0', '212.5', '2.55', '1000.0']);
  });

  it('the stored answer is the response up to its stockPrice, and none without open interest', () => {
    const chain = [
      { strike: 100, call: 10, put: 0 },
      { strike: 105, call: 0, put: 0 },
      { strike: 110, call: 0, put: 20 },
    ];
    const pain = maxPain(chain)!;
    const data = Object.fromEntries(
      pain.cells.map((c) => [strikeKey(c.strike), { callIntrinsicValue: c.callIntrinsicValue, putIntrinsicValue: c.putIntrinsicValue }]),
    );
    expect(`{${maxPainJson(chain)},"stockPrice":104.5}`).toBe(JSON.stringify({ data, maxPainStrikePrice: pain.maxPainStrike, stockPrice: 104.5 }));
    expect(maxPainJson(chain.map((c) => ({ ...c, call: 0, put: 0 })))).toBeNull();
    expect(maxPainJson([])).toBeNull();
  });
});
