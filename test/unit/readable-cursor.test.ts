import { FieldSet } from '../../api/request/fields';
import { READABLE_CURSOR } from '../../api/tables/readable-cursor';
import { encodeSortKey } from '../../services/views/sort-keys';

const F = new FieldSet<{ t: number; s: string; b: boolean }>([
  { name: 'T', type: 'time', filterable: true, projectable: true, get: (r) => r.t },
  { name: 'P', type: 'number', filterable: true, projectable: true, get: (r) => r.t },
  { name: 'S', type: 'symbol', filterable: true, projectable: true, get: (r) => r.s },
  { name: 'B', type: 'boolean', filterable: true, projectable: true, get: (r) => r.b },
]);
const f = (n: string) => F.lookup(n)! as never;

describe('READABLE_CURSOR', () => {
  it.each([1747137600000, 210.37, 0.1 + 0.2, -3.5, 1e21, 0])('a numeric sort value %p round-trips to its exact sort key', (v) => {
    const [sort, row] = READABLE_CURSOR.encode(encodeSortKey(v), 'E-1', v);
    expect(sort).toBe(String(v));
    expect(READABLE_CURSOR.decode([sort, row], f('P'))).toEqual({ sortKey: encodeSortKey(v), rowKey: 'E-1' });
  });

  it('a null sort value travels as "null"', () => {
    const [sort] = READABLE_CURSOR.encode(encodeSortKey(null), 'x', null);
    expect(READABLE_CURSOR.decode([sort, 'x'], f('T'))).toEqual({ sortKey: '0', rowKey: 'x' });
  });

  it('strings and booleans stay opaque sort keys, checked against the field kind', () => {
    expect(READABLE_CURSOR.encode('sAAPL', 'r', 'AAPL')).toEqual(['sAAPL', 'r']);
    expect(READABLE_CURSOR.decode(['sAAPL', 'r'], f('S'))).toEqual({ sortKey: 'sAAPL', rowKey: 'r' });
    expect(READABLE_CURSOR.decode(['b1', 'r'], f('B'))).toEqual({ sortKey: 'b1', rowKey: 'r' });
  });

  it.each([
    ['abc', 'T'],
    ['12abc', 'T'],
    ['Infinity', 'P'],
    ['sAAPL', 'T'],
    ['1747137600000', 'S'],
    ['sAAPL', 'B'],
  ])('%p is not a cursor of a sort by %s', (sort, field) => {
    expect(READABLE_CURSOR.decode([sort, 'r'], f(field))).toBeNull();
  });
});
