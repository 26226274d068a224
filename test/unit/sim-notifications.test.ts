import { avroTypeOf, topicFor } from '../../schemas/catalog';
import crypto from 'crypto';
import type { SessionContext, SimEvent } from '../../ingest/simulator/events';
import { MarketModel, TRADING_DAYS, dayIndex } from '../../ingest/simulator/market';
import {
  LULD_PAUSE_MS,
  LULD_RESUMPTION,
  MARKET_WIDE_TICKER,
  haltWindows,
  ipoListings,
  newsHalts,
  sessionNotifications,
} from '../../ingest/simulator/notifications';
import { PROFILES } from '../../ingest/simulator/profiles';
import { nyLocalToEpochMs, sessionBounds } from '../../services/domain/calendar';
import { NOTIFICATION_TYPE_CODES, isNotificationType } from '../../services/domain/notifications';
import { type Instrument, loadUniverse } from '../../services/domain/universe';

const schema = avroTypeOf(topicFor('exchange-notification')!);
const model = new MarketModel(42);
const universe = loadUniverse();
const dev = PROFILES.dev.selectSymbols(universe);
const universeSymbols = new Set(universe.map((i) => i.symbol));
const MINUTE = 60_000;

interface Note {
  id: string;
  ticker: string;
  type: string;
  time: number;
  message: string | null;
}

const ctxOf = (date: string, seed = 42, profile = PROFILES.full): SessionContext => ({ seed, date, profile, model });
const notes = (events: readonly SimEvent[]) => events.map((e) => e.data as unknown as Note);
const hash = (x: unknown) => crypto.createHash('sha256').update(JSON.stringify(x)).digest('hex');

/** 400 consecutive sessions from 2025-01-02 on the full universe, generated once for the file. */
const START = dayIndex('2025-01-02');
const HISTORY = Array.from({ length: 400 }, (_, k) => {
  const date = TRADING_DAYS[START + k];
  return { date, notes: notes(sessionNotifications(ctxOf(date), universe)) };
});

describe('exchange notifications', () => {
  it('is deterministic: the same inputs give identical notices, another seed different ones', () => {
    const a = hash(sessionNotifications(ctxOf('2025-03-12'), universe));
    expect(hash(sessionNotifications(ctxOf('2025-03-12'), universe))).toBe(a);
    expect(hash(sessionNotifications(ctxOf('2025-03-12', 43), universe))).not.toBe(a);
  });

  it('produces every one of the 36 types over 400 sessions of the full universe', () => {
    const seen = new Map<string, number>();
    for (const day of HISTORY) for (const n of day.notes) seen.set(n.type, (seen.get(n.type) ?? 0) + 1);
    const missing = NOTIFICATION_TYPE_CODES.filter((c) => !seen.has(c));
    expect(missing).toEqual([]);
    expect(seen.size).toBe(36);
  });

  it('validates against exchange-notification.avsc, with a known type, an upper-case ticker and a unique id', () => {
    for (const day of HISTORY) {
      const bad = day.notes.filter((n) => !schema.isValid(n) || !isNotificationType(n.type) || !/^[A-Z0-9.\-/^]{1,21}$/.test(n.ticker) || !n.message);
      expect(bad).toEqual([]);
      expect(new Set(day.notes.map((n) => n.id)).size).toBe(day.notes.length);
      const prefix = `N-${day.date.replace(/-/g, '')}-`;
      expect(day.notes.filter((n) => !n.id.startsWith(`${prefix}${n.ticker}-`))).toEqual([]);
    }
  });

  it('publishes inside the day: from 07:00 ET (pre-open notices) to the close, in time order', () => {
    for (const day of HISTORY) {
      const b = sessionBounds(day.date);
      const early = nyLocalToEpochMs(day.date, 7, 0);
      expect(day.notes.filter((n) => !b || n.time < early || n.time > b.close)).toEqual([]);
      expect(day.notes.filter((n, k) => k > 0 && n.time < day.notes[k - 1].time)).toEqual([]);
      // Pre-open notices are only the carry-overs and the pre-open halts.
      const preOpen = ['MWC0', 'REG_SHO', 'M1', 'D', 'T1', 'T2'];
      expect(day.notes.filter((n) => b && n.time < b.open && !preOpen.includes(n.type))).toEqual([]);
    }
  });

  it('follows every LULD pause with its resumption 5 minutes later, unless the pause runs into the close', () => {
    let pauses = 0;
    for (const day of HISTORY) {
      const close = (sessionBounds(day.date) as { close: number }).close;
      for (const p of day.notes.filter((n) => n.type === 'LUDP' || n.type === 'LUDS')) {
        pauses++;
        const resumed = day.notes.some((n) => n.ticker === p.ticker && n.type === LULD_RESUMPTION && n.time === p.time + LULD_PAUSE_MS);
        expect(resumed).toBe(p.time + LULD_PAUSE_MS < close);
      }
    }
    // LUDS is the rarer of the two.
    const count = (t: string) => HISTORY.reduce((s, d) => s + d.notes.filter((n) => n.type === t).length, 0);
    expect(pauses).toBeGreaterThan(1000);
    expect(count('LUDS')).toBeLessThan(count('LUDP'));
  });

  it('pauses only at jumps that breach the LULD band', () => {
    for (const day of HISTORY.slice(0, 40)) {
      for (const p of day.notes.filter((n) => n.type === 'LUDP' || n.type === 'LUDS')) {
        const inst = universe.find((i) => i.symbol === p.ticker) as Instrument;
        const jump = model.jumps(inst, day.date).find((j) => j.atMs === p.time);
        expect(jump).toBeDefined();
        // The smallest band is 5%.
        expect(Math.abs(Math.exp((jump as { logMove: number }).logMove) - 1)).toBeGreaterThan(0.05);
      }
    }
  });

  it('runs news halts T1 -> T2 -> T3 on big-move days, and exports them for session news', () => {
    let halts = 0;
    for (const day of HISTORY.slice(0, 120)) {
      const exported = newsHalts(ctxOf(day.date), universe);
      for (const h of exported) {
        halts++;
        const of = (type: string) =>
          day.notes.find(
            (n) => n.ticker === h.inst.symbol && n.type === type && n.time === (type === 'T1' ? h.haltTime : type === 'T2' ? h.newsTime : h.resumeTime),
          );
        expect(of('T1') && of('T2') && of('T3')).toBeTruthy();
        expect(h.haltTime).toBeLessThan(h.newsTime);
        expect(h.newsTime).toBeLessThan(h.resumeTime);
        const ret = model.series(h.inst).ret[dayIndex(day.date)];
        expect(Math.sign(h.move)).toBe(Math.sign(ret));
        expect(h.inst.isETF || h.inst.isIndex).toBe(false);
      }
      expect(day.notes.filter((n) => n.type === 'T1').length).toBe(exported.length);
    }
    expect(halts).toBeGreaterThan(50);
  });

  it('publishes REG_SHO only for a close down 10% or more, or the morning after one', () => {
    for (const day of HISTORY.slice(0, 120)) {
      const d = dayIndex(day.date);
      for (const n of day.notes.filter((x) => x.type === 'REG_SHO')) {
        const ret = model.series(universe.find((i) => i.symbol === n.ticker) as Instrument).ret;
        expect(ret[d] <= Math.log(0.9) + 1e-12 || ret[d - 1] <= Math.log(0.9) + 1e-12).toBe(true);
      }
    }
  });

  it('resumes market-wide circuit breakers after 15 minutes, and carries a level-3 halt over to the next session', () => {
    // One synthetic escalation per block of 200 sessions: 400 sessions hold at least one.
    expect(HISTORY.filter((d) => d.notes.some((n) => n.type === 'MWC3')).length).toBeGreaterThanOrEqual(1);
    for (const [k, day] of HISTORY.entries()) {
      const mwc = day.notes.filter((n) => n.type.startsWith('MWC'));
      for (const n of mwc) expect(n.ticker).toBe(MARKET_WIDE_TICKER);
      for (const n of mwc.filter((x) => x.type === 'MWC1' || x.type === 'MWC2')) {
        expect(mwc.some((x) => x.type === 'MWCQ' && x.time === n.time + 15 * MINUTE)).toBe(true);
      }
      if (mwc.some((x) => x.type === 'MWC3') && k + 1 < HISTORY.length) {
        const next = HISTORY[k + 1];
        const open = (sessionBounds(next.date) as { open: number }).open;
        expect(next.notes.some((x) => x.type === 'MWC0' && x.time < open)).toBe(true);
        expect(next.notes.some((x) => x.type === 'MWCQ' && x.time === open)).toBe(true);
      }
    }
  });

  it('lists new issues under fictional tickers: IPO1 -> IPOQ -> (IPOE) -> R1, or IPOE -> D when withdrawn', () => {
    let listings = 0;
    for (const day of HISTORY.slice(0, 200)) {
      for (const ipo of ipoListings(ctxOf(day.date))) {
        listings++;
        expect(universeSymbols.has(ipo.ticker)).toBe(false);
        expect(ipo.ticker).toMatch(/^[A-Z]{3,4}$/);
        const types = day.notes.filter((n) => n.ticker === ipo.ticker).map((n) => n.type);
        expect(types).toEqual(ipo.withdrawn ? ['IPO1', 'IPOE', 'D'] : ipo.extended ? ['IPO1', 'IPOQ', 'IPOE', 'R1'] : ['IPO1', 'IPOQ', 'R1']);
      }
    }
    expect(listings).toBeGreaterThan(10);
  });

  it('gives an instrument the same notices whichever other instruments are generated', () => {
    for (const day of HISTORY.slice(0, 60)) {
      const devNotes = notes(sessionNotifications(ctxOf(day.date, 42, PROFILES.dev), dev));
      const devSymbols = new Set(dev.map((i) => i.symbol));
      const fromFull = day.notes.filter((n) => devSymbols.has(n.ticker) || !universeSymbols.has(n.ticker) || n.ticker === MARKET_WIDE_TICKER);
      expect(devNotes).toEqual(fromFull);
    }
  });

  it('exposes halt windows that match the notices (pause to resumption)', () => {
    const day = HISTORY.find((d) => d.notes.some((n) => n.type === 'LUDP' && dev.some((i) => i.symbol === n.ticker))) as (typeof HISTORY)[number];
    const pause = day.notes.find((n) => n.type === 'LUDP' && dev.some((i) => i.symbol === n.ticker)) as Note;
    const windows = haltWindows(ctxOf(day.date), dev.find((i) => i.symbol === pause.ticker) as Instrument);
    const w = windows.find((x) => x.start === pause.time);
    expect(w).toBeDefined();
    expect((w as { end: number }).end).toBe(Math.min(pause.time + LULD_PAUSE_MS, (sessionBounds(day.date) as { close: number }).close));
  });
});
