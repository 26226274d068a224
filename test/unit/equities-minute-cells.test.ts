import { addBars, addPrice, decodeBars, decodeSessionBar, encodeBars, mergeBar, barOf, type SessionBars } from '../../services/views/equities/price-bars';
import {
  SESSION_FLOW_LAST,
  addFlow,
  addPrint,
  decodeFlowMinutes,
  decodeSessionFlow,
  emptyFlow,
  encodeFlow,
  type SessionFlow,
} from '../../services/views/equities/dark-flow';
import { cutRanges, holdsSession } from '../../api/views/equities/minute-cells';
import { rand } from '../support/table-oracle';

/** The equities minute cells: price bars and dark-flow totals are the same however the events are chunked or ordered. */

const T0 = Date.UTC(2024, 4, 1, 13, 30);
const r = rand(9);
const events = Array.from({ length: 400 }, (_, i) => ({
  time: T0 + Math.floor(r() * 20 * 60_000),
  price: Math.round((100 + r() * 5) * 10_000) / 10_000,
  size: 1 + i,
}));
// One price per instant (the feed's rule).
const priceEvents = [...new Map(events.map((e) => [e.time, e])).values()];

/** The bars by brute force: per minute and for the session, first and last by time, max and min. */
function oracleBars(evs: typeof priceEvents) {
  const bar = (xs: typeof priceEvents) => {
    const s = [...xs].sort((a, b) => a.time - b.time);
    return {
      openTime: s[0].time,
      open: s[0].price,
      high: Math.max(...s.map((e) => e.price)),
      low: Math.min(...s.map((e) => e.price)),
      closeTime: s[s.length - 1].time,
      close: s[s.length - 1].price,
    };
  };
  const byMinute = new Map<number, typeof priceEvents>();
  for (const e of evs) {
    const m = Math.floor(e.time / 60_000) * 60_000;
    byMinute.set(m, [...(byMinute.get(m) ?? []), e]);
  }
  return { session: bar(evs), minutes: new Map([...byMinute].map(([m, xs]) => [m, bar(xs)])) };
}

/** Projects `evs` in chunks of `chunk`, each chunk merged into the stored table as the projection does. */
function projectBars(evs: typeof priceEvents, chunk: number): Buffer {
  let stored: Buffer | null = null;
  for (let i = 0; i < evs.length; i += chunk) {
    const b: SessionBars = { session: null, minutes: new Map() };
    for (const e of evs.slice(i, i + chunk)) addPrice(b, e.time, e.price);
    if (stored) addBars(b, stored);
    stored = encodeBars(b);
  }
  return stored!;
}

function projectFlow(evs: typeof events, chunk: number): Buffer {
  let stored: Buffer | null = null;
  for (let i = 0; i < evs.length; i += chunk) {
    const f: SessionFlow = emptyFlow();
    for (const e of evs.slice(i, i + chunk)) addPrint(f, e.time, Math.round(e.price * 10_000) * e.size, e.size);
    if (stored) addFlow(f, stored);
    stored = encodeFlow(f);
  }
  return stored!;
}

describe('price bars', () => {
  it('equal the brute-force bars whatever the chunking and order; record 0 is the session bar', () => {
    const want = oracleBars(priceEvents);
    const shuffled = [...priceEvents].sort(() => r() - 0.5);
    const tables = [projectBars(priceEvents, 1000), projectBars(priceEvents, 7), projectBars(shuffled, 13), projectBars([...priceEvents].reverse(), 1)];
    for (const t of tables) {
      expect(t.equals(tables[0])).toBe(true);
      const got = decodeBars(t);
      expect(got.session).toEqual(want.session);
      expect(decodeSessionBar(t.subarray(0, 48))).toEqual(want.session);
      expect(got.minutes).toEqual(want.minutes);
      expect([...got.minutes.keys()]).toEqual([...got.minutes.keys()].sort((a, b) => a - b));
    }
  });

  it('a redelivered event changes nothing; mergeBar keeps the earlier open and the later close', () => {
    const once = projectBars(priceEvents, 50);
    expect(projectBars([...priceEvents, ...priceEvents.slice(0, 30)], 50).equals(once)).toBe(true);
    const a = barOf(T0 + 5_000, 10);
    const b = barOf(T0 + 1_000, 12);
    expect(mergeBar(a, b)).toEqual({ openTime: T0 + 1_000, open: 12, high: 12, low: 10, closeTime: T0 + 5_000, close: 10 });
    expect(mergeBar(b, a)).toEqual(mergeBar(a, b));
    expect(mergeBar(null, a)).toBe(a);
  });
});

describe('dark-flow cells', () => {
  it('equal the brute-force totals per minute and session whatever the chunking and order', () => {
    const byMinute = new Map<number, { notionalUnits: number; size: number; tradeCount: number }>();
    for (const e of events) {
      const m = Math.floor(e.time / 60_000) * 60_000;
      const t = byMinute.get(m) ?? { notionalUnits: 0, size: 0, tradeCount: 0 };
      t.notionalUnits += Math.round(e.price * 10_000) * e.size;
      t.size += e.size;
      t.tradeCount += 1;
      byMinute.set(m, t);
    }
    const tables = [projectFlow(events, 1000), projectFlow(events, 9), projectFlow([...events].reverse(), 31)];
    for (const t of tables) {
      expect(t.equals(tables[0])).toBe(true);
      const session = decodeSessionFlow(t.subarray(0, SESSION_FLOW_LAST + 1));
      expect(session.first).toBe(Math.min(...byMinute.keys()));
      expect(session.totals).toEqual({
        notionalUnits: events.reduce((s, e) => s + Math.round(e.price * 10_000) * e.size, 0),
        size: events.reduce((s, e) => s + e.size, 0),
        tradeCount: events.length,
      });
      const minutes = decodeFlowMinutes(t);
      expect(new Map(minutes)).toEqual(byMinute);
      expect(minutes.map(([m]) => m)).toEqual([...byMinute.keys()].sort((a, b) => a - b));
    }
  });
});

describe('the minute-cell reader', () => {
  const w = (a: number, b: number) => ({ startMs: a, endMs: b });
  const M = 60_000;
  it.each([
    ['whole minutes', w(T0, T0 + 5 * M), []],
    ['a cut start', w(T0 + 1_500, T0 + 5 * M), [[T0 + 1_500, T0 + M]]],
    ['a cut end', w(T0, T0 + 5 * M + 10), [[T0 + 5 * M, T0 + 5 * M + 10]]],
    [
      'both cut',
      w(T0 + 10, T0 + 2 * M + 20),
      [
        [T0 + 10, T0 + M],
        [T0 + 2 * M, T0 + 2 * M + 20],
      ],
    ],
    ['within one minute', w(T0 + 10, T0 + 20), [[T0 + 10, T0 + 20]]],
    ['cut start, end on the next minute', w(T0 + 10, T0 + M), [[T0 + 10, T0 + M]]],
  ])('cutRanges: %s', (_, win, want) => {
    expect(cutRanges(win)).toEqual(want);
  });

  it('holdsSession: a window holds a session when it covers its whole New York day', () => {
    const day = [Date.UTC(2024, 4, 1, 4), Date.UTC(2024, 4, 2, 4)];
    expect(holdsSession(null, '2024-05-01')).toBe(true);
    expect(holdsSession(w(day[0], day[1]), '2024-05-01')).toBe(true);
    expect(holdsSession(w(day[0] + 1, day[1]), '2024-05-01')).toBe(false);
    expect(holdsSession(w(day[0], day[1] - 1), '2024-05-01')).toBe(false);
  });
});
