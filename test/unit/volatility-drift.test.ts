import fc from 'fast-check';
import { ARV_MIN_RETURNS, ARV_WINDOW, MINUTES_PER_YEAR, adjustedRealizedVolatility, minuteReturns } from '../../services/domain/realized-volatility';
import { addPrice, decodeBars, encodeBars, minuteCloses, type SessionBars } from '../../services/views/equities/price-bars';
import { atmDistance, decodeAtm, encodeAtm, nearerAtmOf, type AtmPrint } from '../../services/views/flow-aggregates';

/**
 * volatility-drift's pure parts: the adjusted realized volatility against hand computations, the
 * minute closes from a session's price bars against a brute force over the raw events, and the
 * choice of the print nearest the money (any arrival order gives the same winner).
 */

describe('adjusted realized volatility', () => {
  it('the constants are the documented ones', () => {
    expect(ARV_WINDOW).toBe(30);
    expect(ARV_MIN_RETURNS).toBe(10);
    expect(MINUTES_PER_YEAR).toBe(98_280);
  });

  it('returns: ln of each close over the one before, the first over the opening price; none where a price is missing', () => {
    expect(minuteReturns(100, [110, 99, null, 99])).toEqual([Math.log(1.1), Math.log(0.9), null, null]);
    expect(minuteReturns(null, [100, 100])).toEqual([null, 0]);
  });

  it('alternating +1% and -1% log moves: null for the first nine minutes, then the hand-computed sample deviation', () => {
    // Closes 100, 100e^0.01, 100, 100e^0.01, ... after an open of 100: returns +0.01, -0.01, +0.01, ...
    const up = 100 * Math.exp(0.01);
    const closes = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? up : 100));
    const arv = adjustedRealizedVolatility(100, closes);
    expect(arv.slice(0, 9)).toEqual(Array(9).fill(null));
    // Minute 9: ten returns, five of each sign, mean 0: sum of squares 10 x 1e-4, over n - 1 = 9.
    expect(arv[9]).toBeCloseTo(Math.sqrt((98_280 * 10 * 1e-4) / 9), 12);
    expect(arv[9]).toBeCloseTo(3.304542328, 8);
    // Minute 10: eleven returns, six +0.01 and five -0.01: mean 0.01/11, sum of squares 11e-4 - 11 mean^2.
    const mean = 0.01 / 11;
    expect(arv[10]).toBeCloseTo(Math.sqrt((98_280 * (11e-4 - 11 * mean * mean)) / 10), 12);
  });

  it('a steady drift has no deviation: arv 0 (the mean is removed)', () => {
    const closes = Array.from({ length: 15 }, (_, i) => 100 * Math.exp(0.002 * (i + 1)));
    const arv = adjustedRealizedVolatility(100, closes);
    for (const v of arv.slice(9)) expect(v).toBeCloseTo(0, 10);
  });

  it('the window trails 30 minutes: moves older than that drop out', () => {
    // Ten moves of +-2% over the first ten minutes, then a flat price for 40 minutes.
    const closes: number[] = [];
    let p = 100;
    for (let i = 0; i < 10; i++) closes.push((p = i % 2 === 0 ? p * Math.exp(0.02) : p * Math.exp(-0.02)));
    for (let i = 0; i < 40; i++) closes.push(p);
    const arv = adjustedRealizedVolatility(100, closes);
    // Minute 29: the window holds returns 0..29 (ten moves, twenty zeros): mean 0, sum 10 x 4e-4, n - 1 = 29.
    expect(arv[29]).toBeCloseTo(Math.sqrt((98_280 * 10 * 4e-4) / 29), 12);
    // Minute 30: returns 1..30 (nine moves, the first gone): five of -0.02, four of +0.02.
    const r = [...Array.from({ length: 9 }, (_, i) => (i % 2 === 0 ? -0.02 : 0.02)), ...Array(21).fill(0)];
    const m = r.reduce((s, x) => s + x, 0) / 30;
    expect(arv[30]).toBeCloseTo(Math.sqrt((98_280 * r.reduce((s, x) => s + (x - m) ** 2, 0)) / 29), 12);
    // Minute 39: the window is returns 10..39, all flat.
    expect(arv[39]).toBe(0);
  });

  it('too little history: missing prices leave returns out, arv null until ten are in the window', () => {
    const closes = [null, null, null, ...Array.from({ length: 12 }, (_, i) => 100 + (i % 3))];
    const arv = adjustedRealizedVolatility(null, closes);
    // The first return is at minute 4 (both minute 3 and 4 have a close): the tenth is at minute 13.
    expect(arv.slice(0, 13).every((v) => v === null)).toBe(true);
    expect(arv[13]).not.toBeNull();
  });
});

describe('minute closes from the price bars', () => {
  const MINUTE = 60_000;
  const OPEN = 1_763_562_600_000; // a minute start (09:30 New York on 2025-11-19)
  const COUNT = 12;
  /** Times from four minutes before the open to two after the last minute, many exactly on a minute boundary. */
  const timeArb = fc.oneof(
    fc.integer({ min: -4, max: COUNT + 2 }).map((m) => OPEN + m * MINUTE),
    fc.integer({ min: -4 * MINUTE, max: (COUNT + 2) * MINUTE - 1 }).map((d) => OPEN + d),
  );
  const eventsArb = fc.uniqueArray(fc.record({ time: timeArb, price: fc.integer({ min: 1, max: 10_000 }).map((c) => c / 100) }), {
    selector: (e) => e.time,
    maxLength: 40,
  });

  /** The brute force: the last event strictly before each minute's end, and the last at or before the open. */
  function brute(events: { time: number; price: number }[]) {
    const sorted = [...events].sort((a, b) => a.time - b.time);
    const lastWhere = (ok: (t: number) => boolean) => sorted.filter((e) => ok(e.time)).pop()?.price ?? null;
    return {
      atOpen: lastWhere((t) => t <= OPEN),
      closes: Array.from({ length: COUNT }, (_, i) => lastWhere((t) => t < OPEN + (i + 1) * MINUTE)),
    };
  }

  it('equal the last event before each minute end (an event on a boundary starts the next minute) and the price at the open', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        const bars: SessionBars = { session: null, minutes: new Map() };
        for (const e of events) addPrice(bars, e.time, e.price);
        const stored = bars.session ? decodeBars(encodeBars(bars)) : bars;
        expect(minuteCloses(stored, OPEN, COUNT)).toEqual(brute(events));
      }),
    );
  });

  it('hand cases: an event exactly at a minute end, carried forward, before the open', () => {
    const bars: SessionBars = { session: null, minutes: new Map() };
    addPrice(bars, OPEN - 30_000, 9); // before the open: the price at the open until one at 09:30:00
    addPrice(bars, OPEN + MINUTE, 11); // exactly at minute 0's end: minute 1's
    addPrice(bars, OPEN + 3 * MINUTE + 59_999, 12);
    expect(minuteCloses(bars, OPEN, 5)).toEqual({ atOpen: 9, closes: [9, 11, 11, 12, 12] });
    addPrice(bars, OPEN, 10);
    expect(minuteCloses(bars, OPEN, 2)).toEqual({ atOpen: 10, closes: [10, 11] });
    expect(minuteCloses({ session: null, minutes: new Map() }, OPEN, 2)).toEqual({ atOpen: null, closes: [null, null] });
  });
});

describe('the print nearest the money', () => {
  const atmArb: fc.Arbitrary<AtmPrint> = fc.record({
    strike: fc.constantFrom(95, 97.5, 100, 102.5, 105),
    stockPrice: fc.constantFrom(99, 100, 101.25),
    time: fc.integer({ min: 0, max: 5 }),
    rowKey: fc.constantFrom('00000000a1', '00000000a2', '0100000003'),
    iv: fc.double({ min: 0.01, max: 3, noNaN: true }),
  });

  it('encodes and decodes exactly', () => {
    fc.assert(fc.property(atmArb, (a) => expect(decodeAtm(encodeAtm(a))).toEqual(a)));
  });

  it('the winner is the nearest strike, then the later print, whatever the order of arrival', () => {
    fc.assert(
      fc.property(fc.array(atmArb, { minLength: 1, maxLength: 12 }), fc.integer(), (xs, seed) => {
        const brute = [...xs].sort((a, b) => atmDistance(a) - atmDistance(b) || b.time - a.time || (b.rowKey < a.rowKey ? -1 : b.rowKey > a.rowKey ? 1 : 0))[0];
        const shuffled = [...xs].sort((a, b) => ((xs.indexOf(a) * 7919 + seed) % 13) - ((xs.indexOf(b) * 7919 + seed) % 13));
        const folded = shuffled.reduce<AtmPrint | null>((acc, x) => nearerAtmOf(acc, x), null)!;
        expect(atmDistance(folded)).toBe(atmDistance(brute));
        expect([folded.time, folded.rowKey]).toEqual([brute.time, brute.rowKey]);
      }),
    );
  });
});
