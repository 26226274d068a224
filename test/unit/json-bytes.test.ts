import fastJson from 'fast-json-stringify';
import { CONSOLIDATED_RESPONSE } from '../../api/endpoints/order-flow-consolidated';
import { UNCONSOLIDATED_RESPONSE } from '../../api/endpoints/order-flow-unconsolidated';
import { compileJsonBytes } from '../../api/request/json-bytes';
import type { JsonSchema } from '../../api/request/validate';

/**
 * compileJsonBytes must write what fast-json-stringify writes for the same schema and value (the
 * order-flow tapes used fast-json-stringify before, and the API's answers must not change), as
 * UTF-8 bytes.
 */
const reference = (schema: JsonSchema) => fastJson(schema as unknown as Parameters<typeof fastJson>[0]) as (v: unknown) => string;

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'SPY', 'a"quote', 'back\\slash', 'tab\there', 'new\nline', '\u0000nul', 'café', 'Zürich ☃', '😀 emoji', 'lone \ud800 surrogate', 'x'.repeat(60), `${'y'.repeat(45)}"`, '\u007f del'];
const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 123456.789, -98765.4321, Number.MAX_SAFE_INTEGER, 5e-324, 1.7976931348623157e308, Infinity, -Infinity];

describe('compileJsonBytes', () => {
  const schema: JsonSchema = {
    type: 'object',
    required: ['must'],
    additionalProperties: false,
    properties: {
      must: { type: 'integer' },
      s: { type: 'string' },
      d: { type: 'string', format: 'date' },
      u: { type: 'string', format: 'uuid' },
      n: { type: 'number' },
      ni: { type: ['null', 'number'] },
      i: { type: 'integer' },
      b: { type: 'boolean' },
      e: { enum: ['ASK', 'BID', 'MID_MARKET'] },
      o: { type: ['null', 'object'], properties: { x: { type: 'number' }, y: { type: 'string' } } },
      a: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'integer' } } } },
      strs: { type: 'array', items: { type: 'string' } },
    },
  };
  const bytes = compileJsonBytes(schema);
  const text = reference(schema);
  const same = (v: unknown) => expect(bytes(v).toString('utf8')).toBe(text(v));

  it('writes what fast-json-stringify writes for random values of every supported form', () => {
    const r = random(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
    const maybe = <T>(v: () => T) => (r() < 0.2 ? undefined : v());
    for (let i = 0; i < 2_000; i++) {
      const value = {
        must: Math.floor(r() * 1e12),
        s: maybe(() => pick(STRINGS)),
        d: maybe(() => '2026-11-20'),
        u: maybe(() => pick(STRINGS)),
        n: maybe(() => (r() < 0.5 ? pick(NUMBERS) : (r() - 0.5) * 10 ** Math.floor(r() * 30 - 15))),
        ni: maybe(() => (r() < 0.3 ? null : r() * 100)),
        i: maybe(() => (r() < 0.2 ? r() * 1000 : Math.floor(r() * 1e9) - 5e8)),
        b: maybe(() => r() < 0.5),
        e: maybe(() => pick(['ASK', 'BID', 'MID_MARKET'])),
        o: maybe(() => (r() < 0.3 ? null : { x: r(), y: maybe(() => pick(STRINGS)), extra: 'left out' })),
        a: maybe(() => Array.from({ length: Math.floor(r() * 4) }, () => ({ k: maybe(() => pick(STRINGS)), v: Math.floor(r() * 100) }))),
        strs: maybe(() => (r() < 0.2 ? null : Array.from({ length: Math.floor(r() * 3) }, () => pick(STRINGS)))),
        notInSchema: 'left out',
      };
      same(value);
    }
  });

  it('writes nulls and edge values as fast-json-stringify does', () => {
    same({ must: 1, s: null, d: null, o: null, a: null, strs: null, ni: null });
    same({ must: 1, n: Infinity, i: 3.99, b: 0 });
    same({ must: 1, n: -0, i: -7.5, e: 'NOT_AN_ENUM_VALUE' });
    expect(bytes({ must: 2, o: {} }).toString()).toBe('{"must":2,"o":{}}');
    expect(bytes({ must: 1, s: '\ud83d\ude00 "q" \\ é' }).toString('utf8')).toBe(JSON.stringify({ must: 1, s: '\ud83d\ude00 "q" \\ é' }));
  });

  it('refuses what fast-json-stringify refuses: a missing required property, NaN, an infinite integer, a wrong type', () => {
    expect(() => bytes({})).toThrow('"must" is required!');
    expect(() => text({})).toThrow('"must" is required!');
    expect(() => bytes({ must: 1, n: NaN })).toThrow(/cannot be converted to a number/);
    expect(() => bytes({ must: Infinity })).toThrow(/cannot be converted to an integer/);
    expect(() => bytes({ must: 1, s: 5 })).toThrow(TypeError);
    expect(() => bytes({ must: 1, a: 'x' })).toThrow(TypeError);
    // The next body is whole after a refused one.
    same({ must: 3, s: 'ok' });
  });

  it('refuses schema forms it does not support when compiling', () => {
    expect(() => compileJsonBytes({ anyOf: [{ type: 'string' }, { type: 'number' }] })).toThrow(/anyOf/);
    expect(() => compileJsonBytes({ type: ['string', 'number'] })).toThrow(/one type/);
    expect(() => compileJsonBytes({ type: 'object', additionalProperties: true })).toThrow(/additional properties/);
    expect(() => compileJsonBytes({ type: 'array' })).toThrow(/items/);
  });

  it('returns bodies of their own (the scratch is reused) and grows for a large body', () => {
    const first = bytes({ must: 1, s: 'first' });
    const big = { must: 2, strs: Array.from({ length: 40_000 }, (_, i) => `value-${i}`) };
    const second = bytes(big);
    expect(first.toString()).toBe('{"must":1,"s":"first"}');
    expect(second.length).toBeGreaterThan(256 * 1024);
    expect(second.toString()).toBe(text(big));
  });

  it('writes the order-flow tapes\' responses as fast-json-stringify does from the same schemas', () => {
    const r = random(11);
    for (const tape of [CONSOLIDATED_RESPONSE, UNCONSOLIDATED_RESPONSE]) {
      const ref = reference(tape.schema);
      const rows = Array.from({ length: 200 }, (_, i) => ({
        rowKey: '0500000001',
        id: `0b0c${i}`,
        osi: 'SPY   261120C00600000',
        ticker: 'SPY',
        contractType: r() < 0.5 ? 'CALL' : 'PUT',
        expirationDate: '2026-11-20',
        dte: r() * 30,
        strikePrice: 600 + Math.floor(r() * 20) / 2,
        sector: r() < 0.5 ? 'TECHNOLOGY' : null,
        premium: r() * 1e6,
        size: Math.floor(r() * 500) + 1,
        impliedVolatility: r() < 0.2 ? null : r(),
        tradeSideCode: 'ASK',
        isUnusual: r() < 0.1,
        greeks: r() < 0.2 ? null : { delta: r(), gamma: r(), theta: -r(), vega: r(), rho: r(), charm: r(), vanna: r() },
        moneyness: { degree: r(), degreeInPercent: r() * 100, moneyType: 'OTM' },
        comprisingTrades: r() < 0.5 ? undefined : [{ id: 'p1', osi: 'SPY   261120C00600000', tradeTime: 1795600000000, exchange: 'CBOE', optionPrice: 1.25, size: 3, premium: 375, tradeSideCode: 'BID', bidPrice: 1.2, askPrice: 1.3 }],
        tradeTime: 1795600000000 + i,
      }));
      const value = { data: rows, nextSearchAfter: ['n00000000000000a', '0500000001'], statistics: undefined };
      expect(tape.serialize(value).toString('utf8')).toBe(ref(value));
    }
  });
});
