import { PROFILES } from '../../ingest/simulator/profiles';
import { SimulatedMarket, type SessionGenerator } from '../../ingest/simulator/session';
import type { SimEvent } from '../../ingest/simulator/events';
import { HISTORY_SAMPLE_CONDITION } from '../../services/domain/equity-prints';
import { sessionBounds } from '../../services/domain/calendar';

const DATE = '2026-11-19';
const SYMBOLS = new Set(['SPY', 'AAPL', 'GME']);

function allEvents(gen: SessionGenerator): SimEvent[] {
  const out: SimEvent[] = [];
  for (let k = 0; k < gen.chunks; k++) for (const e of gen.chunk(k)) out.push(e);
  return out;
}

describe("the daily tier's off-exchange sample", () => {
  const market = new SimulatedMarket(42, PROFILES.dev);
  const daily = allEvents(market.session(DATE, 'daily')).filter((e) => e.type === 'equity-print' && SYMBOLS.has(e.data.ticker as string));
  const tick = allEvents(market.session(DATE, 'tick', SYMBOLS)).filter((e) => e.type === 'equity-print');
  const open = sessionBounds(DATE)!.open;
  const every = PROFILES.dev.darkPoolSampleMinutes;

  it('is exactly the tape prints of the sampled minutes that are DARK_POOL, with the history-sample condition added', () => {
    const minutes = Math.ceil((sessionBounds(DATE)!.close - open) / 60_000);
    const want = tick
      .filter((e) => e.data.printType === 'DARK_POOL' && Math.min(minutes - 1, Math.floor((e.time - open) / 60_000)) % every === 0)
      .map((e) => ({ ...e.data, conditions: [...(e.data.conditions as string[]), HISTORY_SAMPLE_CONDITION] }));
    expect(want.length).toBeGreaterThan(50);
    const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => (String(a.id) < String(b.id) ? -1 : 1);
    expect(daily.map((e) => e.data).sort(byId)).toEqual(want.sort(byId));
  });

  it('is left out of the daily tier of a session with ticks, which is otherwise the same', () => {
    const all = allEvents(market.session(DATE, 'daily'));
    const withTicks = allEvents(market.session(DATE, 'daily', undefined, { withTicks: true }));
    const sampled = all.filter((e) => e.type === 'equity-print');
    expect(sampled.length).toBe(848);
    expect(sampled.every((e) => (e.data.conditions as string[]).includes(HISTORY_SAMPLE_CONDITION))).toBe(true);
    expect(withTicks.length).toBe(all.length - sampled.length);
    expect(withTicks).toEqual(all.filter((e) => e.type !== 'equity-print'));
  });

  it('every symbol that trades has sampled prints; the full profile has no sample', () => {
    for (const s of SYMBOLS) expect(daily.some((e) => e.data.ticker === s)).toBe(true);
    expect(PROFILES.full.darkPoolSampleMinutes).toBe(0);
  });
});
