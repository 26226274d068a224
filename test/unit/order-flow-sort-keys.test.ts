import { rng } from '../support/order-flow-data';
import { decodeNumericSortKey, encodeSortKey, isSortKeyOf } from '../../services/views/order-flow';

describe('encodeSortKey (the order of every index member and cursor)', () => {
  it('encodes numbers exactly as the stored views hold them (a change would need a view rebuild)', () => {
    // Values taken from the encoding as first shipped; stored index members and issued cursors carry them.
    const golden: [number, string][] = [
      [0, 'n8000000000000000'],
      [-0, 'n8000000000000000'],
      [1, 'nbff0000000000000'],
      [-1, 'n400fffffffffffff'],
      [1.5, 'nbff8000000000000'],
      [123456.789, 'nc0fe240c9fbe76c9'],
      [-2.5e-7, 'n416f39085f4a1272'],
      [1763650800000, 'nc279aa1c78980000'],
      [Number.MAX_VALUE, 'nffefffffffffffff'],
      [-Number.MAX_VALUE, 'n0010000000000000'],
      [Number.MIN_VALUE, 'n8000000000000001'],
      [Infinity, 'nfff0000000000000'],
      [-Infinity, 'n000fffffffffffff'],
    ];
    for (const [v, key] of golden) expect([v, encodeSortKey(v)]).toEqual([v, key]);
  });

  it('orders numbers as strings exactly as they order numerically, and decodes back to the value', () => {
    const r = rng(11);
    const values: number[] = [0, -0, 1, -1, Number.MIN_VALUE, -Number.MIN_VALUE, Infinity, -Infinity];
    for (let i = 0; i < 5_000; i++) {
      const mag = Math.pow(10, Math.floor(r() * 40) - 20);
      values.push((r() < 0.5 ? -1 : 1) * r() * mag, Math.round(r() * 1e6) * (r() < 0.3 ? -1 : 1));
    }
    const byNumber = [...values].sort((a, b) => a - b);
    const byKey = [...values].sort((a, b) => {
      const ka = encodeSortKey(a);
      const kb = encodeSortKey(b);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    // -0 and 0 share a key; compare as numbers so that the two are not told apart.
    expect(byKey.map((v) => v + 0)).toEqual(byNumber.map((v) => v + 0));
    for (const v of values) {
      const key = encodeSortKey(v);
      expect(isSortKeyOf('number', key)).toBe(true);
      expect(decodeNumericSortKey(key)).toBe(v === 0 ? 0 : v);
    }
  });

  it('keeps the other kinds: null lowest, booleans, strings', () => {
    expect(encodeSortKey(null)).toBe('0');
    expect(encodeSortKey(undefined)).toBe('0');
    expect(encodeSortKey(false)).toBe('b0');
    expect(encodeSortKey(true)).toBe('b1');
    expect(encodeSortKey('ASK')).toBe('sASK');
    expect(encodeSortKey(null) < encodeSortKey(-Infinity)).toBe(true);
  });
});
