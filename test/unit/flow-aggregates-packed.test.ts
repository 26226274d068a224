import { addSums } from '../../services/views/flow-aggregates/cells';
import { PACKING, barField } from '../../services/views/flow-aggregates/keys';
import { blockEntries, packBlock, unpackBlock, unpackBlockWhere, updateBlock, type BlockFormat } from '../../services/views/flow-aggregates/packed';

const SUMS: BlockFormat = { valueSep: ',', stripFirst: false };
const MINUTE: BlockFormat = { valueSep: ',', stripFirst: true };
const BARS: BlockFormat = { valueSep: '|', stripFirst: false };

/** Entries out of a packed block, sorted by text (a block keeps them in the order of their encoded fields). */
const roundTrip = (name: string, entries: [string, string][], f: BlockFormat): [string, string][] => {
  const out: [string, string][] = [];
  unpackBlock(name, packBlock(name, new Map(entries), f), f.valueSep, (fd, v) => out.push([fd, v]));
  return byText(out);
};
const byText = (e: [string, string][]): [string, string][] => [...e].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('flow-aggregates packed blocks', () => {
  it('gives back every entry exactly, for the cube’s own strings', () => {
    const cells: [string, string][] = [
      ['29000123|P|BB|2026-12-18|242.5|OTM|NEWX|Made Up Sector|Made Up Industry|01', '5,1,1'],
      ['29000123|C|A|2026-11-27|580|ITM|CBOE|TECHNOLOGY|SEMICONDUCTORS|00', '123456789,3,120'],
      ['29000123|C|M|*|*|ATM|PHLX|Energy|x|11', '0,0,0'],
      ['29000123', '7,7,7'],
    ];
    expect(roundTrip('29000123', cells, MINUTE)).toEqual(byText(cells));
    const bars: [string, string][] = [
      ['C|580|29000124', '1764000060000|11000abc12|0.05|0.05|0.05|1764000060000|k|0.05|1'],
      ['P|242.5|29000123', '1764000000123|0300000123|1.05|1.2|0.95|1764000059000|03000001zz|1.1|40'],
    ];
    expect(roundTrip('2026-11-27', bars, BARS)).toEqual(byText(bars));
  });

  it('keeps the text of tokens that only look like numbers, dates or print keys', () => {
    const odd = ['007', '-3', '1e5', '0.50', '1.', '.5', '12345678901234567890', '2026-02-30', '1969-12-31', '0.000001', '123456789.5'];
    const more = ['NaN', '', 'é|ü', ' 1', '0300000ABC', '0300000abc', '99zzzzzzzz', '1200000012', '2024-05-01', '0', '1125899906842625'];
    const entries: [string, string][] = [...odd, ...more].map((t, i) => [`${t}|${i}`, `${t},${t}`]);
    expect(roundTrip('', entries, SUMS)).toEqual(byText(entries));
  });

  it('a minute block refuses a field of another minute', () => {
    expect(() => packBlock('29000123', new Map([['29000124|C|A', '1,1,1']]), MINUTE)).toThrow(/block's name/);
    expect(() => updateBlock('2900012', null, new Map([['29000123|C|A', [1, 1, 1]]]), MINUTE, () => '1,1,1')).toThrow(/block's name/);
  });

  it('updating gives the bytes of packing the merged entries, in any arrival order and chunking', () => {
    const r = rng(7);
    const fields = Array.from(
      { length: 40 },
      (_, i) => `29000123|${i % 2 ? 'C' : 'P'}|A|2026-12-${String((i % 28) + 1).padStart(2, '0')}|${i * 2.5}|ITM|CBOE|Energy|x|00`,
    );
    const adds = Array.from(
      { length: 400 },
      () => [fields[Math.floor(r() * r() * fields.length)], Math.floor(r() * 1e6), 1, 1 + Math.floor(r() * 50)] as const,
    );
    // Brute force: the sums per field.
    const want = new Map<string, string>();
    for (const [f, c, n, v] of adds) want.set(f, addSums(want.get(f) ?? null, c, n, v));
    const wantBytes = packBlock('29000123', want, MINUTE);
    for (const [chunk, shuffled, numeric] of [
      [1, false, false],
      [1, false, true],
      [7, true, true],
      [50, true, false],
      [400, false, true],
      [400, true, false],
    ] as const) {
      const order = shuffled ? [...adds].sort(() => r() - 0.5) : adds;
      let stored: Buffer | null = null;
      for (let i = 0; i < order.length; i += chunk) {
        const changes = new Map<string, [number, number, number]>();
        for (const [f, c, n, v] of order.slice(i, i + chunk)) {
          const was = changes.get(f);
          changes.set(f, was ? [was[0] + c, was[1] + n, was[2] + v] : [c, n, v]);
        }
        stored = updateBlock('29000123', stored, changes, MINUTE, (was, [c, n, v]) => addSums(was, c, n, v), numeric ? (x) => x : undefined);
      }
      expect(stored!.equals(wantBytes)).toBe(true);
      expect(blockEntries('29000123', stored, ',')).toEqual(new Map(byText([...want])));
    }
  });

  it('fits a minute cell in a few bytes: dimensions as dictionary codes, sums as varints', () => {
    const e = new Map<string, string>();
    for (let i = 0; i < 100; i++) e.set(`29000123|C|A|2026-11-27|${500 + i}|ITM|CBOE|TECHNOLOGY|SEMICONDUCTORS|00`, `${100_000 + i},1,${i}`);
    const text = [...e].reduce((n, [f, v]) => n + f.length + v.length, 0);
    const bytes = packBlock('29000123', e, MINUTE).length;
    expect(text / 100).toBeGreaterThan(70);
    expect(bytes / 100).toBeLessThan(24);
  });

  it('blocks: minute cells by minute, contract cells by expiration, market cells by exchange, last prices by 30 minutes', () => {
    expect(PACKING.minute.blockOf('29000123|C|A|*')).toBe('29000123');
    expect(PACKING.expiration.blockOf('C|A|2026-11-27|580|ITM|CBOE|s|i|00')).toBe('2026-11-27');
    expect(PACKING.exchange.blockOf('C|A|*|*|ITM|CBOE|s|i|00')).toBe('CBOE');
    expect(PACKING.whole.blockOf('C|A')).toBe('0');
    expect(PACKING.lastPrices.blockOf('29000129')).toBe('966670');
    expect(PACKING.lastPrices.blockOf('29000130')).toBe('966671');
    expect(barField('PUT', 242.5, '29000123')).toBe('P|242.5|29000123');
  });
});

describe('flow-aggregates packed blocks: repeated tokens', () => {
  it('a one-print bar writes its price, time and print key once', () => {
    const one = '1764000060000|0300000abc|1.05|1.05|1.05|1764000060000|0300000abc|1.05|3';
    const two = '1764000060000|0300000abc|1.05|1.2|0.95|1764000061000|0300000abd|1.1|3';
    const size = (v: string) => packBlock('e', new Map([['C|580|29000124', v]]), BARS).length;
    expect(roundTrip('e', [['C|580|29000124', one]], BARS)).toEqual([['C|580|29000124', one]]);
    expect(size(one)).toBeLessThan(size(two) - 10);
    const fields: [string, string][] = [['x|y|x|*|*|y', 'a,b,a,a,,']];
    expect(roundTrip('', fields, SUMS)).toEqual(byText(fields));
  });
});

describe('flow-aggregates packing: block names', () => {
  it('the expiration and exchange tokens, also at the ends of a field', () => {
    expect(PACKING.expiration.blockOf('C|A|2026-11-27')).toBe('2026-11-27');
    expect(PACKING.expiration.blockOf('C|A')).toBe('');
    expect(PACKING.exchange.blockOf('C|A|*|*|ITM|CBOE')).toBe('CBOE');
    expect(PACKING.exchange.blockOf('|||||')).toBe('');
  });
});

describe('flow-aggregates packed blocks: reading one contract', () => {
  it('unpackBlockWhere gives exactly the entries whose field starts with the given tokens', () => {
    const bars: [string, string][] = [
      ['C|580|29000124', '1|0300000abc|1.05|1.05|1.05|1|0300000abc|1.05|3'],
      ['C|580|29000125', '2|0300000abd|1|1|1|2|0300000abd|1|1'],
      ['C|5800|29000124', '3|0300000abe|2|2|2|3|0300000abe|2|1'],
      ['P|580|29000124', '4|0300000abf|3|3|3|4|0300000abf|3|1'],
      ['C|58|29000124', '5|0300000abg|4|4|4|5|0300000abg|4|1'],
    ];
    const block = packBlock('2026-11-27', new Map(bars), BARS);
    const got = (prefix: string) => {
      const out: [string, string][] = [];
      unpackBlockWhere('2026-11-27', block, '|', prefix, (f, v) => out.push([f, v]));
      return byText(out);
    };
    expect(got('C|580')).toEqual(byText(bars.slice(0, 2)));
    expect(got('C|5800')).toEqual([bars[2]]);
    expect(got('P|580')).toEqual([bars[3]]);
    expect(got('C|58')).toEqual([bars[4]]);
    expect(got('P|1')).toEqual([]);
    expect(() => unpackBlockWhere('29000123', packBlock('29000123', new Map([['29000123|C', '1']]), MINUTE), ',', 'C', () => {})).toThrow(/strips/);
  });
});

describe('flow-aggregates packed blocks: sums added on their varints', () => {
  it('equal sums are written as repeats, as their text would be, and a stored value that is not three integers goes through the text', () => {
    const add = (stored: Buffer | null, field: string, x: [number, number, number], numeric: boolean) =>
      updateBlock(
        '',
        stored,
        new Map([[field, x]]),
        SUMS,
        (was, [c, n, v]) => (was?.startsWith('x') ? `${was}+${c}` : addSums(was, c, n, v)),
        numeric ? (y) => y : undefined,
      );
    const viaText = add(add(null, 'C|A', [5, 1, 1], false), 'C|A', [0, 4, 4], false);
    const viaSums = add(add(null, 'C|A', [5, 1, 1], true), 'C|A', [0, 4, 4], true);
    expect(viaSums.equals(viaText)).toBe(true);
    expect(blockEntries('', viaSums, ',')).toEqual(new Map([['C|A', '5,5,5']]));
    const odd = packBlock('', new Map([['C|A', 'x,1,2']]), SUMS);
    expect(blockEntries('', add(odd, 'C|A', [3, 0, 0], true), ',')).toEqual(new Map([['C|A', 'x,1,2+3']]));
    const big = packBlock('', new Map([['C|A', `${2 ** 50},1,1`]]), SUMS);
    expect(blockEntries('', add(big, 'C|A', [1, 0, 0], true), ',')).toEqual(new Map([['C|A', `${2 ** 50 + 1},1,1`]]));
  });
});
