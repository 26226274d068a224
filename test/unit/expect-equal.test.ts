import { expectEqual } from '../support/expect-equal';

// The fast path of the tests' deep equality must accept exactly what toEqual accepts.
describe('expectEqual', () => {
  it('passes equal plain values, including keys in another order and undefined members', () => {
    expectEqual({ a: [1, 'x', null, { b: true }] }, { a: [1, 'x', null, { b: true }] });
    expectEqual({ a: 1, b: 2 }, { b: 2, a: 1 });
    expectEqual({ a: 1, b: undefined }, { a: 1 });
  });

  it.each([
    ['a different value', { a: 1 }, { a: 2 }],
    ['NaN against null', { a: NaN }, { a: null }],
    ['-0 against 0', [-0], [0]],
    ['Infinity against null', [Infinity], [null]],
    ['a Date against its ISO text', { t: new Date(0) }, { t: new Date(0).toISOString() }],
    ['undefined against null in an array', [undefined], [null]],
    ['an array against an object with its indexes', [1], { 0: 1 }],
  ])('fails %s, as toEqual does', (_, a, b) => {
    expect(() => expectEqual(a, b)).toThrow();
  });
});
