/**
 * `expect(actual).toEqual(expected)` for large plain-JSON values (pages of rows, whole walks),
 * with a fast path: when both serialize to the same JSON and hold nothing JSON cannot tell apart
 * (undefined, NaN, ±Infinity, -0, class instances), they are equal and the check ends there.
 * Otherwise toEqual decides and reports the difference. Jest's deep equality costs microseconds
 * per property; the table and order-flow suites compare millions of them.
 */
export function expectEqual(actual: unknown, expected: unknown): void {
  const a = plainJson(actual);
  if (a !== null && a === plainJson(expected)) return;
  expect(actual).toEqual(expected);
}

const NOT_PLAIN = Symbol('not plain JSON');

/** The value's JSON text, or null when it holds anything whose JSON would hide a difference toEqual sees. */
function plainJson(value: unknown): string | null {
  try {
    return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
      const raw = this[key]; // the value before toJSON (a Date is caught as one)
      if (raw === null || typeof raw === 'string' || typeof raw === 'boolean') return v;
      if (typeof raw === 'number') {
        if (!Number.isFinite(raw) || Object.is(raw, -0)) throw NOT_PLAIN;
        return v;
      }
      if (typeof raw === 'object') {
        const proto = Object.getPrototypeOf(raw);
        if (Array.isArray(raw) || proto === Object.prototype || proto === null) return v;
      }
      throw NOT_PLAIN;
    });
  } catch (e) {
    if (e === NOT_PLAIN) return null;
    throw e;
  }
}
