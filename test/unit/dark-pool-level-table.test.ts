import { notionalUnits } from '../../services/views/equities/equity-prints';
import { addLevel, addLevels, encodeLevels, levelCents, type LevelTotals } from '../../services/views/equities/dark-pool-levels';

const totals = (entries: [number, number, number, number][]) => {
  const m = new Map<number, LevelTotals>();
  for (const [c, n, s, k] of entries) addLevel(m, c, n, s, k);
  return m;
};

describe('the dark-pool level table (packed, 24 bytes a level)', () => {
  it('round-trips exact integer totals, levels ascending whatever the insertion order', () => {
    const levels = totals([
      [50_137, 2_506_850_5000, 5_000, 12],
      [21_000, 1, 1, 1],
      [4_294_967_295, 2 ** 53 - 1, 9_000_000_000, 4_294_967_295],
    ]);
    const table = encodeLevels(levels);
    expect(table.length).toBe(3 * 24);
    expect([0, 24, 48].map((o) => table.readUInt32LE(o))).toEqual([21_000, 50_137, 4_294_967_295]);
    const back = new Map<number, LevelTotals>();
    addLevels(back, table);
    expect([...back].sort((a, b) => a[0] - b[0])).toEqual([...levels].sort((a, b) => a[0] - b[0]));
  });

  it('adds tables level by level, and the bytes depend on the totals alone (any chunking gives the same table)', () => {
    const prints: [number, number][] = [
      [210.37, 100],
      [210.3799, 50],
      [210.38, 10],
      [99.99, 7],
      [210.37, 1],
    ];
    const add = (into: Map<number, LevelTotals>, [price, size]: [number, number]) => addLevel(into, levelCents(price), notionalUnits(price, size), size, 1);
    const whole = new Map<number, LevelTotals>();
    prints.forEach((p) => add(whole, p));
    // Chunk by chunk, each chunk added to the stored table as the projection does.
    let stored: Buffer = Buffer.alloc(0);
    for (const chunk of [prints.slice(0, 2), prints.slice(2, 3), prints.slice(3)]) {
      const m = new Map<number, LevelTotals>();
      chunk.forEach((p) => add(m, p));
      addLevels(m, stored);
      stored = encodeLevels(m);
    }
    expect(stored.equals(encodeLevels(whole))).toBe(true);
    const back = new Map<number, LevelTotals>();
    addLevels(back, stored);
    expect(back.get(21_037)).toEqual({ notionalUnits: 210_370_000 + 105_189_950 + 2_103_700, size: 151, tradeCount: 3 });
    expect(back.get(9_999)).toEqual({ notionalUnits: 6_999_300, size: 7, tradeCount: 1 });
  });

  it('refuses a table that is not whole records', () => {
    expect(() => addLevels(new Map(), Buffer.alloc(25))).toThrow(/not whole records/);
  });
});
