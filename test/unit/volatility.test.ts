import { optionExpiryMs } from '../../services/domain/calendar';
import { bsmGreeks, bsmPrice } from '../../services/domain/pricing';
import { inflateRawSync } from 'zlib';
import { atmIv, legExposure, quoteMid, surfaceGreeks, surfaceIv, yearsToExpiry, type GreekMode, type SurfaceGreeks } from '../../services/domain/volatility';
import {
  decodeOpenInterest,
  decodeSurface,
  encodeOpenInterest,
  encodeSurface,
  spotAt,
  surfaceLegsAt,
  type SurfaceContract,
} from '../../services/views/volatility';
import { ByteReader, ByteWriter, exactCents, readDoublePlanes, writeDoublePlanes } from '../../services/views/volatility-codec';
import { sampleExpiration } from '../../api/endpoints/options/iv-rank';

const DAY = 86_400_000;
const PRICING = { rate: 0.045, dividend: 0.013 };

describe('IV and greeks at a snapshot', () => {
  // Hull, "The Greek letters": S=49, K=50, r=5%, vol=20%, T=20 weeks (0.3846 y): delta 0.522, gamma 0.066.
  const expiration = '2026-12-18';
  const t = 0.3846;
  const at = optionExpiryMs(expiration) - Math.round(t * 365 * DAY);
  const base = { spot: 49, strike: 50, rate: 0.05, dividend: 0 };

  it('recovers the textbook volatility and greeks from the quote midpoint', () => {
    const yrs = yearsToExpiry(at, expiration);
    expect(yrs).toBeCloseTo(t, 9);
    const price = bsmPrice({ ...base, right: 'CALL', t: yrs, vol: 0.2 });
    const g = surfaceGreeks({ right: 'CALL', strike: 50, expiration, bid: price - 0.005, ask: price + 0.005 }, 49, at, 0.05, 0)!;
    expect(g.iv).toBeCloseTo(0.2, 9);
    expect(g.delta).toBeCloseTo(0.522, 3);
    expect(g.gamma).toBeCloseTo(0.066, 3);
    const ref = bsmGreeks({ ...base, right: 'CALL', t: yrs, vol: g.iv });
    expect(g).toEqual({ iv: g.iv, delta: ref.delta, gamma: ref.gamma, charm: ref.charm, vanna: ref.vanna });
  });

  it('prices puts with a dividend yield the same way', () => {
    const yrs = yearsToExpiry(at, expiration);
    const price = bsmPrice({ spot: 600, strike: 590, rate: 0.045, dividend: 0.013, right: 'PUT', t: yrs, vol: 0.17 });
    const g = surfaceGreeks({ right: 'PUT', strike: 590, expiration, bid: price - 0.02, ask: price + 0.02 }, 600, at, 0.045, 0.013)!;
    expect(g.iv).toBeCloseTo(0.17, 9);
    expect(g.delta).toBeLessThan(0);
    expect(g.delta).toBeCloseTo(bsmGreeks({ spot: 600, strike: 590, rate: 0.045, dividend: 0.013, right: 'PUT', t: yrs, vol: 0.17 }).delta, 8);
  });

  it('has no IV for one-sided, crossed or impossible quotes', () => {
    expect(quoteMid(1, 1.2)).toBeCloseTo(1.1, 12);
    expect(quoteMid(0, 1.2)).toBeNull();
    expect(quoteMid(1.2, 0)).toBeNull();
    expect(quoteMid(1.3, 1.2)).toBeNull();
    expect(surfaceGreeks({ right: 'CALL', strike: 50, expiration, bid: 0, ask: 1 }, 49, at, 0.05, 0)).toBeNull();
    expect(surfaceGreeks({ right: 'CALL', strike: 50, expiration, bid: 2, ask: 1 }, 49, at, 0.05, 0)).toBeNull();
    // Below intrinsic value: no volatility reproduces it.
    expect(surfaceGreeks({ right: 'CALL', strike: 40, expiration, bid: 1, ask: 1.1 }, 49, at, 0.05, 0)).toBeNull();
  });
});

describe('exposure formulas', () => {
  const call: SurfaceGreeks = { iv: 0.2, delta: 0.55, gamma: 0.03, charm: -0.002, vanna: 0.004 };
  const put: SurfaceGreeks = { iv: 0.22, delta: -0.45, gamma: 0.03, charm: 0.0015, vanna: -0.003 };
  const S = 600;

  it.each([
    ['DELTA', 'delta'],
    ['GAMMA', 'gamma'],
    ['CHARM', 'charm'],
    ['VANNA', 'vanna'],
  ] as const)('%s: RAW = OI x greek x 100, $1 = RAW x S, 1 %% = RAW x S x 0.01 S', (mode, key) => {
    for (const g of [call, put]) {
      const raw = 1234 * g[key] * 100;
      expect(legExposure(1234, g, mode as GreekMode, 'RAW', S)).toBeCloseTo(raw, 9);
      expect(legExposure(1234, g, mode as GreekMode, 'PER_ONE_DOLLAR_MOVE', S)).toBeCloseTo(raw * S, 6);
      expect(legExposure(1234, g, mode as GreekMode, 'PER_ONE_PERCENT_MOVE', S)).toBeCloseTo(raw * S * 6, 6);
    }
  });

  it('follows the sign of the greek: calls positive and puts negative for delta, both positive for gamma', () => {
    for (const rep of ['RAW', 'PER_ONE_DOLLAR_MOVE', 'PER_ONE_PERCENT_MOVE'] as const) {
      expect(legExposure(10, call, 'DELTA', rep, S)).toBeGreaterThan(0);
      expect(legExposure(10, put, 'DELTA', rep, S)).toBeLessThan(0);
      expect(legExposure(10, call, 'GAMMA', rep, S)).toBeGreaterThan(0);
      expect(legExposure(10, put, 'GAMMA', rep, S)).toBeGreaterThan(0);
      expect(Math.sign(legExposure(10, call, 'CHARM', rep, S))).toBe(Math.sign(call.charm));
      expect(Math.sign(legExposure(10, put, 'CHARM', rep, S))).toBe(Math.sign(put.charm));
      expect(Math.sign(legExposure(10, call, 'VANNA', rep, S))).toBe(Math.sign(call.vanna));
      expect(Math.sign(legExposure(10, put, 'VANNA', rep, S))).toBe(Math.sign(put.vanna));
    }
  });
});

describe('surface storage and selection rules', () => {
  it('encodes a surface the same whatever order its quotes arrived in', () => {
    const cs: SurfaceContract[] = [
      { osi: 'SPY   261218C00600000', bid: 10, ask: 10.2, iv: 0.2 },
      { osi: 'SPY   261218P00600000', bid: 0, ask: 9, iv: null },
    ];
    const a = encodeSurface({ spot: 601.5, contracts: new Map(cs.map((c) => [c.osi, c])) }, PRICING);
    const b = encodeSurface({ spot: 601.5, contracts: new Map([...cs].reverse().map((c) => [c.osi, c])) }, PRICING);
    expect(a.equals(b)).toBe(true);
    expect(decodeSurface(a)).toEqual({ spot: 601.5, pricing: PRICING, contracts: new Map(cs.map((c) => [c.osi, c])) });
  });

  it('stores cents as small integers, anything else as the exact double, and decodes every value bit for bit', () => {
    const cs: SurfaceContract[] = [
      // ask below bid (crossed): a negative spread over the bid.
      { osi: 'AAPL  261218C00150000', bid: 2.35, ask: 2.3, iv: null },
      { osi: 'AAPL  261218C00155000', bid: 0.1 + 0.2, ask: 1e-7, iv: 0.1 + 0.2 },
      { osi: 'AAPL  261218C00160000', bid: 1234567.89, ask: 0.07, iv: Number.MIN_VALUE },
      { osi: 'AAPL  261218P00150000', bid: -0, ask: 3.005, iv: 4.999999999999 },
      { osi: 'AAPL  270115P00150000', bid: 0.01, ask: 0.02, iv: 0.123456789012345 },
    ];
    const stored = encodeSurface({ spot: null, contracts: new Map(cs.map((c) => [c.osi, c])) }, { rate: -0.001, dividend: 0.0123 });
    const back = decodeSurface(stored);
    expect(back.spot).toBeNull();
    expect(back.pricing).toEqual({ rate: -0.001, dividend: 0.0123 });
    const got = [...back.contracts.values()];
    expect(got.map((c) => c.osi)).toEqual(cs.map((c) => c.osi));
    got.forEach((c, i) => {
      for (const f of ['bid', 'ask', 'iv'] as const) expect(Object.is(c[f], cs[i][f])).toBe(true);
    });
    // The body, inflated: the cents of 2.35 and 2.30 are 235 and a spread of -5 (zigzag 9).
    expect(stored[0]).toBe(2);
    const body = inflateRawSync(stored.subarray(1));
    const w = new ByteWriter();
    w.u8(0);
    w.f64(-0.001);
    w.f64(0.0123);
    w.varint(5);
    w.frontCoded(cs.map((c) => c.osi));
    w.bytes(Uint8Array.from([6, 1, 7, 1, 7]));
    w.varint(235);
    w.f64(0.1 + 0.2);
    w.varint(123456789);
    w.f64(-0);
    w.varint(1);
    w.signed(-5);
    w.f64(1e-7);
    w.signed(7 - 123456789);
    w.f64(3.005);
    w.signed(1);
    writeDoublePlanes(w, [0.1 + 0.2, Number.MIN_VALUE, 4.999999999999, 0.123456789012345]);
    expect(body.equals(w.done())).toBe(true);
  });

  it('gives every priced leg the greeks the projection solved with, from the stored IV alone', () => {
    const at = optionExpiryMs('2026-12-18') - 30 * DAY + 3_600_000;
    const spot = 601.37;
    const quotes = [
      { right: 'CALL', strike: 600, expiration: '2026-12-18', bid: 12.1, ask: 12.45, osi: 'SPY   261218C00600000' },
      { right: 'PUT', strike: 590, expiration: '2026-12-18', bid: 6.3, ask: 6.55, osi: 'SPY   261218P00590000' },
      { right: 'CALL', strike: 650, expiration: '2027-01-15', bid: 2.02, ask: 2.14, osi: 'SPY   270115C00650000' },
      { right: 'PUT', strike: 500, expiration: '2027-01-15', bid: 0, ask: 0.05, osi: 'SPY   270115P00500000' },
    ] as const;
    const pricing = { rate: 0.045, dividend: 0.0125 };
    const contracts = new Map(
      quotes.map((q) => [q.osi, { osi: q.osi, bid: q.bid, ask: q.ask, iv: surfaceIv(q, spot, at, pricing.rate, pricing.dividend) }] as const),
    );
    const stored = encodeSurface({ spot, contracts }, pricing);
    const { spot: s, legs } = surfaceLegsAt(stored, at);
    expect(s).toBe(spot);
    expect(legs.map((l) => [l.osi, l.right, l.strike, l.expiration, l.bid, l.ask])).toEqual(
      quotes.map((q) => [q.osi, q.right, q.strike, q.expiration, q.bid, q.ask]),
    );
    // toEqual on numbers is Object.is: the same doubles, not close ones.
    expect(legs.map((l) => l.greeks)).toEqual(quotes.map((q) => surfaceGreeks(q, spot, at, pricing.rate, pricing.dividend)));
    expect(legs[3].greeks).toBeNull();
    expect(legs[0].greeks!.delta).toBeGreaterThan(0.5);
    // Only the legs asked for, and only those with an IV.
    const some = surfaceLegsAt(stored, at, { want: (osi) => osi[12] === 'P', pricedOnly: true });
    expect(some.legs.map((l) => l.osi)).toEqual(['SPY   261218P00590000']);
    // Without a spot a surface has no greeks.
    expect(surfaceLegsAt(encodeSurface({ spot: null, contracts }, pricing), at).legs.every((l) => l.greeks === null)).toBe(true);
  });

  it("stores a session's open interest compactly and gives it back sorted, with a JSON form for values that are not whole", () => {
    const whole = new Map([
      ['SPY   261218P00600000', 0],
      ['SPY   261218C00600000', 2 ** 40 + 3],
      ['SPY   261218C00590000', 127],
    ]);
    const back = decodeOpenInterest(encodeOpenInterest(whole));
    expect([...back]).toEqual([...whole].sort(([a], [b]) => (a < b ? -1 : 1)));
    const body = inflateRawSync(encodeOpenInterest(whole).subarray(1));
    const w = new ByteWriter();
    w.u8(1);
    w.varint(3);
    w.frontCoded(['SPY   261218C00590000', 'SPY   261218C00600000', 'SPY   261218P00600000']);
    w.varint(127);
    w.varint(2 ** 40 + 3);
    w.varint(0);
    expect(body.equals(w.done())).toBe(true);
    const odd = new Map([
      ['B', 1.5],
      ['A', 2 ** 60],
    ]);
    expect([...decodeOpenInterest(encodeOpenInterest(odd))]).toEqual([
      ['A', 2 ** 60],
      ['B', 1.5],
    ]);
    expect(inflateRawSync(encodeOpenInterest(odd).subarray(1))[0]).toBe(0);
  });

  it('still reads layout-1 (JSON) surfaces and open interest, which the API serves while the view rebuilds', () => {
    const greeks = { iv: 0.2, delta: 0.5, gamma: 0.01, charm: -0.002, vanna: 0.001 };
    const json = JSON.stringify({
      s: 601.5,
      c: [
        ['SPY   261218C00600000', 10, 10.2, greeks.iv, greeks.delta, greeks.gamma, greeks.charm, greeks.vanna],
        ['SPY   261218P00600000', 0, 9],
      ],
    });
    expect(surfaceLegsAt(Buffer.from(json), 0)).toEqual({
      spot: 601.5,
      legs: [
        { osi: 'SPY   261218C00600000', bid: 10, ask: 10.2, greeks, right: 'CALL', strike: 600, expiration: '2026-12-18' },
        { osi: 'SPY   261218P00600000', bid: 0, ask: 9, greeks: null, right: 'PUT', strike: 600, expiration: '2026-12-18' },
      ],
    });
    expect(surfaceLegsAt(Buffer.from(json), 0, { pricedOnly: true }).legs.map((l) => l.osi)).toEqual(['SPY   261218C00600000']);
    expect([...decodeOpenInterest(Buffer.from('{"SPY   261218C00600000":12,"SPY   261218P00600000":3}'))]).toEqual([
      ['SPY   261218C00600000', 12],
      ['SPY   261218P00600000', 3],
    ]);
    // The projection writes and reads layout 2 only.
    expect(() => decodeSurface(Buffer.from(json))).toThrow('not a layout-2 volatility value');
  });

  it('packs varints, zigzag integers, byte planes and front-coded strings losslessly', () => {
    const w = new ByteWriter();
    const ints = [0, 1, 127, 128, 300, 2 ** 31, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER];
    for (const v of ints) w.varint(v);
    const signed = [0, -1, 1, -64, 64, -(2 ** 40), 2 ** 40];
    for (const v of signed) w.signed(v);
    // Shared prefixes stop before a non-ASCII character so a suffix is whole characters.
    const strings = ['', 'SPY   261218C00600000', 'SPY   261218C00605000', 'SPY   261218P00600000', 'é1', 'é2', 'éé', 'x'];
    w.frontCoded(strings);
    writeDoublePlanes(w, [1.5, -0, NaN, Infinity]);
    const out = w.done();
    // 127 fits one byte, 128 takes two.
    expect([...out.subarray(0, 5)]).toEqual([0, 1, 127, 0x80, 1]);
    const r = new ByteReader(out);
    expect(ints.map(() => r.varint())).toEqual(ints);
    expect(signed.map(() => r.signed())).toEqual(signed);
    expect(r.frontCoded(strings.length)).toEqual(strings);
    expect(readDoublePlanes(r, 4)).toEqual([1.5, -0, NaN, Infinity]);
    expect(r.remaining).toBe(0);
    expect(() => new ByteReader(Buffer.from([0x80])).varint()).toThrow('truncated');
  });

  it('takes a price as cents only when cents / 100 is exactly it', () => {
    expect(exactCents(12.34)).toBe(1234);
    expect(exactCents(0)).toBe(0);
    expect(exactCents(-0)).toBeNull();
    expect(exactCents(0.1 + 0.2)).toBeNull();
    expect(exactCents(12.345)).toBeNull();
    expect(exactCents(-1)).toBeNull();
  });

  it('prices a snapshot at the last stored price at or before it', () => {
    const px = new Map<number, string>([
      [1000, 'O100'],
      [60_000, 'T101'],
      [120_000, 'C102'],
    ]);
    expect(spotAt(px, 999)).toBeNull();
    expect(spotAt(px, 1000)).toBe(100);
    expect(spotAt(px, 119_999)).toBe(101);
    expect(spotAt(px, 120_000)).toBe(102);
  });

  it('takes the IV of the strike nearest the close, the lower one on a tie', () => {
    const legs = [
      { strike: 95, iv: 0.3 },
      { strike: 100, iv: 0.25 },
      { strike: 105, iv: 0.22 },
    ];
    expect(atmIv(legs, 101)).toBe(0.25);
    expect(atmIv(legs, 102.5)).toBe(0.25);
    expect(atmIv(legs, 104)).toBe(0.22);
    expect(atmIv([], 100)).toBeNull();
  });

  it('samples the expiration nearest the maturity within 50 % either side', () => {
    const entry = {
      p: 600,
      e: [
        ['2026-11-27', 0.1, 0.11],
        ['2026-12-18', 0.2, 0.21],
        ['2027-01-15', 0.3, null],
      ] as [string, number | null, number | null][],
    };
    // 2026-11-20 + 28 days = 2026-12-18; + 56 = 2027-01-15.
    expect(sampleExpiration('2026-11-20', entry, 30, ['CALL', 'PUT'])).toEqual({ expirationDate: '2026-12-18', stockPrice: 600, iv: { CALL: 0.2, PUT: 0.21 } });
    expect(sampleExpiration('2026-11-20', entry, 56, ['PUT'])).toEqual({ expirationDate: '2026-12-18', stockPrice: 600, iv: { PUT: 0.21 } });
    expect(sampleExpiration('2026-11-20', entry, 56, ['CALL'])).toEqual({ expirationDate: '2027-01-15', stockPrice: 600, iv: { CALL: 0.3 } });
    // Band 150-450 days: nothing listed there.
    expect(sampleExpiration('2026-11-20', entry, 300, ['CALL', 'PUT'])).toBeNull();
  });
});
