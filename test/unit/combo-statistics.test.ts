import { STAT_FIELDS, addComboCounters, comboFilterOf, comboStatStem, statField, tierStatStem } from '../../services/views/order-flow';

const row = (premium: number, contractType: string, tradeSideCode: string, sector: string) => ({ premium, contractType, tradeSideCode, sector }) as never;

describe('statistics counters by combination', () => {
  it('a row counts under its premium tier, type, side and sector positions', () => {
    expect(comboStatStem(row(99_999.99, 'CALL', 'ABOVE_ASK', 'BASIC_MATERIALS'))).toBe('0000');
    expect(comboStatStem(row(100_000, 'PUT', 'ASK', 'TECHNOLOGY'))).toBe('111a');
    expect(comboStatStem(row(750_000, 'PUT', 'BELOW_BID', 'UTILITIES'))).toBe('214b');
    expect(comboStatStem(row(2e6, 'CALL', 'MID_MARKET', 'Technology'))).toBe('302z'); // off-list sector
    expect(comboStatStem(row(2e6, 'CALL', 'SOMEWHERE', 'TECHNOLOGY'))).toBeNull(); // never counted, as in STAT_FIELDS
  });

  it('a filter maps to positions, or to null when counters cannot answer it exactly', () => {
    expect(comboFilterOf({})).toEqual({ tierFrom: 0 });
    expect(comboFilterOf({ contractTypes: ['PUT'], tradeSides: ['ASK', 'BID'], sectors: ['TECHNOLOGY'], premium: [500_000, null] })).toEqual({
      tierFrom: 2,
      contractTypes: new Set(['1']),
      tradeSides: new Set(['1', '3']),
      sectors: new Set(['a']),
    });
    expect(comboFilterOf({ premium: [null, null] })).toEqual({ tierFrom: 0 });
    expect(comboFilterOf({ premium: [250_000, null] })).toBeNull(); // not a tier
    expect(comboFilterOf({ premium: [0, null] })).toBeNull(); // tier 0 also holds anything below 0
    expect(comboFilterOf({ premium: [100_000, 1e9] })).toBeNull(); // a ceiling
    expect(comboFilterOf({ sectors: ['Technology'] })).toBeNull(); // off-list: shares 'z' with others
    expect(comboFilterOf({ contractTypes: ['BOTH'] })).toBeNull();
  });

  it('sums the fields a filter takes into the STAT_FIELDS totals', () => {
    const hash = {
      '011ap': '1000',
      '011an': '2',
      '011av': '30',
      '211ap': '5000',
      '211an': '1',
      '211av': '7',
      '311zp': '9000',
      '311zn': '3',
      '311zv': '11',
      '303ap': '100',
      '303an': '1',
      '303av': '1',
    };
    // As HGETALL's flat reply; the sums by STAT_FIELDS position, the fields with none left out.
    const sums = (f: ReturnType<typeof comboFilterOf>) => {
      const at = new Array<number>(STAT_FIELDS.length).fill(0);
      addComboCounters(Object.entries(hash).flat(), f!, at);
      return Object.fromEntries(STAT_FIELDS.map((k, i) => [k, at[i]]).filter(([, v]) => v !== 0));
    };
    expect(sums(comboFilterOf({}))).toEqual({
      [statField('PUT', 'ASK', 'p')]: 15000,
      [statField('PUT', 'ASK', 'n')]: 6,
      [statField('PUT', 'ASK', 'v')]: 48,
      [statField('CALL', 'BID', 'p')]: 100,
      [statField('CALL', 'BID', 'n')]: 1,
      [statField('CALL', 'BID', 'v')]: 1,
    });
    // Premium from $500k: tiers 2 and 3; an unpinned sector takes the off-list one too.
    expect(sums(comboFilterOf({ contractTypes: ['PUT'], premium: [500_000, null] }))).toEqual({
      [statField('PUT', 'ASK', 'p')]: 14000,
      [statField('PUT', 'ASK', 'n')]: 4,
      [statField('PUT', 'ASK', 'v')]: 18,
    });
    // A pinned sector never takes the off-list one.
    expect(sums(comboFilterOf({ sectors: ['TECHNOLOGY'], premium: [1_000_000, null] }))).toEqual({
      [statField('CALL', 'BID', 'p')]: 100,
      [statField('CALL', 'BID', 'n')]: 1,
      [statField('CALL', 'BID', 'v')]: 1,
    });
    // The tier hash (`stt`: the stems without their sector, each the sum of its sectors) gives the
    // same sums for every filter without sectors, and nothing for one with them.
    const byTier: Record<string, number> = {};
    for (const [f, v] of Object.entries(hash)) byTier[tierStatStem(f.slice(0, 4)) + f[4]] = (byTier[tierStatStem(f.slice(0, 4)) + f[4]] ?? 0) + Number(v);
    const tierSums = (f: ReturnType<typeof comboFilterOf>) => {
      const at = new Array<number>(STAT_FIELDS.length).fill(0);
      addComboCounters(
        Object.entries(byTier).flatMap(([k, v]) => [k, String(v)]),
        f!,
        at,
      );
      return Object.fromEntries(STAT_FIELDS.map((k, i) => [k, at[i]]).filter(([, v]) => v !== 0));
    };
    expect(Object.keys(byTier).sort()).toEqual(['011n', '011p', '011v', '211n', '211p', '211v', '303n', '303p', '303v', '311n', '311p', '311v']);
    for (const o of [
      {},
      { contractTypes: ['PUT'], premium: [500_000, null] as const },
      { tradeSides: ['ASK'], premium: [100_000, null] as const },
      { contractTypes: ['CALL'] },
    ]) {
      expect(tierSums(comboFilterOf(o))).toEqual(sums(comboFilterOf(o)));
    }
    expect(tierSums(comboFilterOf({ sectors: ['TECHNOLOGY'] }))).toEqual({});
  });
});
