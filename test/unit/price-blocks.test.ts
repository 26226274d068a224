import { mergeBlock } from '../../projections/equities/stock-prices';
import { addBars, addPrice, barEvents, decodeBars, encodeBars, minuteEvents, type SessionBars } from '../../services/views/equities/price-bars';
import {
  BLOCK_MS,
  MINUTE_MS,
  barHolds,
  blockNumber,
  blockOrigin,
  blockStart,
  canonical,
  comparePoints,
  decodeBlock,
  encodeBlock,
  lastBefore,
  needsBlock,
  type PricePoint,
} from '../../services/views/equities/price-blocks';
import { rand } from '../support/table-oracle';

/** The stock-price view's price blocks: exact bytes, round trips, and the same bytes however a replay is chunked. */

const ORIGIN = blockOrigin('2024-05-01');
const OPEN = Date.UTC(2024, 4, 1, 13, 30);
const START = blockStart(ORIGIN, blockNumber(ORIGIN, OPEN));

/** The old zset's view of a set of events: members `<time>:<price>` by score, then bytewise; no repeats. */
function zsetOrder(points: readonly PricePoint[]): PricePoint[] {
  const members = new Map<string, PricePoint>();
  for (const p of points) members.set(`${p.time}:${p.price}`, p);
  return [...members.entries()].sort(([a, x], [b, y]) => x.time - y.time || (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
}

/** decode(encode(points)), each price the very same double. */
function roundTrip(points: PricePoint[]): PricePoint[] {
  const c = canonical(points);
  const start = blockStart(ORIGIN, blockNumber(ORIGIN, c[0].time));
  const got = decodeBlock(start, encodeBlock(start, c));
  expect(got).toEqual(c);
  got.forEach((p, i) => expect(Object.is(p.price, c[i].price)).toBe(true));
  return got;
}

describe('price blocks: layout', () => {
  it('block numbers count BLOCK_MS from the session date’s UTC midnight; blocks are whole minutes', () => {
    expect(ORIGIN).toBe(Date.UTC(2024, 4, 1));
    expect(BLOCK_MS % MINUTE_MS).toBe(0);
    expect(blockNumber(ORIGIN, OPEN)).toBe((13 * 60 + 30) / (BLOCK_MS / MINUTE_MS));
    expect(blockStart(ORIGIN, blockNumber(ORIGIN, OPEN + BLOCK_MS - 1))).toBe(OPEN);
    expect(blockNumber(ORIGIN, OPEN + BLOCK_MS)).toBe(blockNumber(ORIGIN, OPEN) + 1);
    expect(blockNumber(ORIGIN, ORIGIN - 1)).toBe(-1);
    expect(() => blockOrigin('2024-13-01')).toThrow(RangeError);
  });

  it('packs whole-cent seconds as one byte per event after the first (exact bytes)', () => {
    const points = [
      { time: START + 1000, price: 100 },
      { time: START + 2000, price: 100.01 },
      { time: START + 3000, price: 99.99 },
      { time: START + 5000, price: 100 },
    ];
    const buf = encodeBlock(START, points);
    // Header: 2 decimals, seconds of phase 0; 0xFE 1 s, +10000 steps (zigzag 20000 as a varint);
    // +1 step; -2 steps; then 2 s later (not one): 0xFE 2 s, +1 step.
    expect([...buf]).toEqual([0x12, 0x00, 0xfe, 0x01, 0xa0, 0x9c, 0x01, 0x02, 0x03, 0xfe, 0x02, 0x02]);
    expect(decodeBlock(START, buf)).toEqual(points);
  });

  it('a price change of up to 126 steps up or 127 down is one byte; larger ones are wide; huge and tiny moves are exact', () => {
    const at = (i: number) => START + 1000 * (i + 1);
    const steps = (cents: number[]) => cents.map((c, i) => ({ time: at(i), price: c / 100 }));
    const len = (pts: PricePoint[]) => encodeBlock(START, pts).length;
    const base = len(steps([10_001]));
    expect(len(steps([10_001, 10_127]))).toBe(base + 1);
    expect(len(steps([10_001, 9_874]))).toBe(base + 1);
    expect(len(steps([10_001, 10_128]))).toBe(base + 4); // 0xFE, 1 s, zigzag 254 in two bytes
    expect(len(steps([10_001, 9_873]))).toBe(base + 4);
    roundTrip(steps([10_001, 10_127, 9_874, 10_128, 9_873, 1, 100_000_000_001, 2, 2, 3]));
    // A ten-thousandth of a dollar on a $100 price: the grid becomes 4 decimals.
    const fine = [
      { time: START + 1000, price: 100 },
      { time: START + 2000, price: 100.0001 },
      { time: START + 3000, price: 100.0002 },
    ];
    expect(encodeBlock(START, fine)[0]).toBe(0x14);
    roundTrip(fine);
    // Whole dollars: no decimals.
    expect(encodeBlock(START, [{ time: START, price: 5 }])[0]).toBe(0x10);
  });

  it('prices on no grid are kept as exact doubles, and do not move the grid’s running price', () => {
    const points = [
      { time: START + 1000, price: 100 },
      { time: START + 2000, price: 1 / 3 },
      { time: START + 3000, price: 100.01 },
      { time: START + 4000, price: 0.1 + 0.2 },
      { time: START + 5000, price: 2 ** 60 },
      { time: START + 6000, price: 1e-13 },
      { time: START + 7000, price: Number.MAX_VALUE },
    ];
    const buf = encodeBlock(START, points);
    expect(buf[0]).toBe(0x12);
    // 100.01 after an off-grid price is one step from 100: one byte (zigzag 2).
    // Header (2 bytes), 100 (0xFE, 1 s, three bytes of zigzag 20000), 1/3 (0xFF, 1 s, 8 bytes).
    expect([...buf.subarray(7, 9)]).toEqual([0xff, 0x01]);
    expect(buf.readDoubleLE(9)).toBe(1 / 3);
    expect(buf[17]).toBe(0x02);
    roundTrip(points);
  });

  it('times off whole seconds: a common phase keeps seconds, mixed phases fall back to milliseconds', () => {
    const phased = [0, 1, 2, 4].map((s) => ({ time: START + 250 + s * 1000, price: 10 }));
    const b = encodeBlock(START, phased);
    expect([b[0], b[1], b[2]]).toEqual([0x10, 0xfa, 0x01]); // phase 250 as a varint
    roundTrip(phased);
    const mixed = [
      { time: START + 1, price: 10 },
      { time: START + 1000, price: 10.5 },
      { time: START + BLOCK_MS - 1, price: 11 },
    ];
    expect(encodeBlock(START, mixed)[0]).toBe(0x01);
    roundTrip(mixed);
  });

  it('orders as the old zset members did: by time, then the price’s decimal string; repeats collapse', () => {
    const t = START + 7000;
    const points = [
      { time: t, price: 99.5 },
      { time: t, price: 100.25 },
      { time: t - 1000, price: 101 },
      { time: t, price: 99.5 },
      { time: t + 1000, price: 98 },
    ];
    const c = canonical(points);
    expect(c).toEqual([
      { time: t - 1000, price: 101 },
      { time: t, price: 100.25 },
      { time: t, price: 99.5 },
      { time: t + 1000, price: 98 },
    ]);
    expect(c).toEqual(zsetOrder(points));
    expect(comparePoints({ time: t, price: 5 }, { time: t, price: 5 })).toBe(0);
    roundTrip(points);
  });

  it('random blocks round-trip exactly in the zset’s order', () => {
    const r = rand(5);
    for (let n = 0; n < 300; n++) {
      const start = START + n * BLOCK_MS;
      const ms = n % 3 === 0;
      const decimals = Math.floor(r() * 5);
      const points = Array.from({ length: 1 + Math.floor(r() * 80) }, () => {
        const time = start + (ms ? Math.floor(r() * BLOCK_MS) : 1000 * Math.floor((r() * BLOCK_MS) / 1000));
        const price = r() < 0.05 ? r() * 1000 : Math.round((1 + r() * 500) * 10 ** decimals) / 10 ** decimals;
        return { time, price };
      });
      // Some repeated events and some seconds with a second price.
      points.push(points[0], { time: points[0].time, price: points[0].price + 0.01 });
      expect(decodeBlock(start, encodeBlock(start, canonical(points)))).toEqual(zsetOrder(points));
    }
  });

  it('lastBefore: the last event before an instant, in the zset’s order, without decoding the rest', () => {
    const t = START + 7000;
    const points = canonical([
      { time: t - 1000, price: 101 },
      { time: t, price: 99.5 },
      { time: t, price: 100.25 },
      { time: t + 1500, price: 1 / 3 },
    ]);
    const buf = encodeBlock(START, points);
    expect(lastBefore(START, buf, t - 1000)).toBeUndefined();
    expect(lastBefore(START, buf, t)).toBe(101);
    expect(lastBefore(START, buf, t + 1)).toBe(99.5); // the last of the two at t: "99.5" > "100.25"
    expect(lastBefore(START, buf, t + 1500)).toBe(99.5);
    expect(lastBefore(START, buf, Infinity)).toBe(1 / 3);
  });

  it('refuses malformed blocks', () => {
    expect(() => decodeBlock(START, Buffer.alloc(0))).toThrow(/empty/);
    expect(() => decodeBlock(START, Buffer.from([0x20]))).toThrow(/header/);
    expect(() => decodeBlock(START, Buffer.from([0x12, 0x00, 0xfe, 0x81]))).toThrow(/varint/);
    expect(() => decodeBlock(START, Buffer.from([0x12, 0x00, 0xff, 0x01, 0x00]))).toThrow(/price/);
    expect(() => encodeBlock(START, [])).toThrow(/empty/);
    expect(() => encodeBlock(START, [{ time: START + BLOCK_MS, price: 1 }])).toThrow(/outside/);
    expect(() => encodeBlock(START, [{ time: START - 1, price: 1 }])).toThrow(/outside/);
    expect(() =>
      encodeBlock(START, [
        { time: START + 2000, price: 1 },
        { time: START + 1000, price: 1 },
      ]),
    ).toThrow(/time order/);
  });

  it('a minute’s bar holds it when it has at most two events at distinct times', () => {
    const m = START;
    expect(barHolds([])).toBe(true);
    expect(barHolds([{ time: m, price: 1 }])).toBe(true);
    expect(
      barHolds([
        { time: m, price: 1 },
        { time: m + 5, price: 2 },
      ]),
    ).toBe(true);
    expect(
      barHolds([
        { time: m, price: 1 },
        { time: m, price: 2 },
      ]),
    ).toBe(false);
    expect(
      needsBlock([
        { time: m, price: 1 },
        { time: m + 59_999, price: 2 },
        { time: m + 60_000, price: 3 },
        { time: m + 60_001, price: 4 },
      ]),
    ).toBe(false);
    expect(
      needsBlock([
        { time: m, price: 1 },
        { time: m + 1, price: 2 },
        { time: m + 2, price: 3 },
      ]),
    ).toBe(true);
    expect(
      needsBlock([
        { time: m + 60_000, price: 3 },
        { time: m + 60_000, price: 4 },
      ]),
    ).toBe(true);
    expect(needsBlock([])).toBe(false);
  });
});

/** A session's stored keys, kept in memory: the bar table and the blocks by number. */
interface Store {
  table: Buffer | null;
  blocks: Map<number, Buffer>;
}

/** Applies one chunk as the projection does: bars merged with the stored table, each touched block merged with what is stored. */
function applyChunk(store: Store, chunk: readonly PricePoint[]): void {
  const bars: SessionBars = { session: null, minutes: new Map() };
  const added = new Map<number, PricePoint[]>();
  for (const p of chunk) {
    addPrice(bars, p.time, p.price);
    const n = blockNumber(ORIGIN, p.time);
    added.set(n, [...(added.get(n) ?? []), p]);
  }
  const stored = store.table ? decodeBars(store.table) : null;
  for (const [n, pts] of added) {
    const block = mergeBlock(blockStart(ORIGIN, n), store.blocks.get(n) ?? null, stored, pts);
    if (block) store.blocks.set(n, block);
  }
  if (stored) addBars(bars, stored);
  store.table = encodeBars(bars);
}

function project(points: readonly PricePoint[], chunk: number): Store {
  const store: Store = { table: null, blocks: new Map() };
  for (let i = 0; i < points.length; i += chunk) applyChunk(store, points.slice(i, i + chunk));
  return store;
}

const bytes = (s: Store) => ({ table: s.table!.toString('hex'), blocks: [...s.blocks].sort(([a], [b]) => a - b).map(([n, b]) => [n, b.toString('hex')]) });

/** Every event the store holds, minute by minute: blocks where stored, bars elsewhere. */
function readAll(store: Store): PricePoint[] {
  const bars = decodeBars(store.table!);
  const out: PricePoint[] = [];
  for (const m of [...bars.minutes.keys()].sort((a, b) => a - b)) {
    const n = blockNumber(ORIGIN, m);
    out.push(...minuteEvents(bars.minutes.get(m), store.blocks.get(n) ?? null, blockStart(ORIGIN, n), m, -Infinity, Infinity));
  }
  return out;
}

describe('price blocks: a session stored chunk by chunk', () => {
  // Dense seconds for 12 minutes, then sparse minutes (one or two events: no block), a second with
  // two prices, a late official open, millisecond times and one off-grid price.
  const r = rand(21);
  const dense = Array.from({ length: 720 }, (_, i) => ({ time: OPEN + 1000 * (i + 1), price: Math.round((100 + Math.sin(i / 30) * 3 + r()) * 100) / 100 }));
  const sparse = [
    { time: OPEN + 20 * MINUTE_MS + 5_000, price: 101.5 },
    { time: OPEN + 21 * MINUTE_MS, price: 101.7 },
    { time: OPEN + 21 * MINUTE_MS + 59_999, price: 101.2 },
    { time: OPEN + 27 * MINUTE_MS + 30_000, price: 102 },
    { time: OPEN + 27 * MINUTE_MS + 30_000, price: 99.99 },
    { time: OPEN + 33 * MINUTE_MS + 123, price: 1 / 7 },
    { time: OPEN + 33 * MINUTE_MS + 456, price: 100.0001 },
    { time: OPEN + 33 * MINUTE_MS + 789, price: 100 },
  ];
  const all = [...dense, ...sparse, { time: OPEN, price: 99.8 }];
  const want = zsetOrder(all);
  const reference = project(all, all.length);

  it('holds every event, in the zset’s order; sparse minutes have no block', () => {
    expect(readAll(reference)).toEqual(want);
    const sparseBlocks = [20, 21].map((k) => blockNumber(ORIGIN, OPEN + k * MINUTE_MS));
    for (const n of sparseBlocks) expect(reference.blocks.has(n)).toBe(false);
    expect(reference.blocks.has(blockNumber(ORIGIN, OPEN + 27 * MINUTE_MS))).toBe(true); // two prices in one second
    expect(reference.blocks.has(blockNumber(ORIGIN, OPEN + 33 * MINUTE_MS))).toBe(true); // three events in a minute
    // Dense seconds take a byte each (plus a few header bytes per block).
    const denseBytes = [...reference.blocks].filter(([n]) => n < sparseBlocks[0]).reduce((a, [, b]) => a + b.length, 0);
    expect(denseBytes).toBeLessThan(dense.length + 1 + 10 * Math.ceil(dense.length / (BLOCK_MS / 1000)));
  });

  it.each([[1], [7], [64], [500]])('the same bytes in chunks of %i, in time order and shuffled', (chunk) => {
    expect(bytes(project(all, chunk))).toEqual(bytes(reference));
    const shuffled = [...all].sort(() => r() - 0.5);
    const s = project(shuffled, chunk);
    expect(bytes(s)).toEqual(bytes(reference));
    expect(readAll(s)).toEqual(want);
  });

  it('a redelivered chunk (or a repeated event) writes the same bytes', () => {
    const s = project(all, 100);
    const before = bytes(s);
    applyChunk(s, all.slice(100, 200));
    applyChunk(s, [all[5], all[5], sparse[0], sparse[3]]);
    expect(bytes(s)).toEqual(before);
  });

  it('a minute’s bar gives its events when its block is not stored', () => {
    const bars = decodeBars(reference.table!);
    const m = OPEN + 21 * MINUTE_MS;
    expect(barEvents(bars.minutes.get(m)!)).toEqual([sparse[1], sparse[2]]);
    const n = blockNumber(ORIGIN, m);
    expect(minuteEvents(bars.minutes.get(m), null, blockStart(ORIGIN, n), m, m + 1, m + MINUTE_MS)).toEqual([sparse[2]]);
    expect(minuteEvents(undefined, null, blockStart(ORIGIN, n), m, m, m + MINUTE_MS)).toEqual([]);
    // Ties at one instant: the bar's open is the first of the zset's order, its close the last.
    const tie = bars.minutes.get(OPEN + 27 * MINUTE_MS)!;
    expect([tie.open, tie.close]).toEqual([102, 99.99]);
  });
});
