import type { Instrument } from '../../services/domain/universe';

/**
 * Simulator profiles. `dev` is a small market for tests and the local demo (a session in a few
 * seconds); `full` is a full-market day (about 6.5 million option prints); `mini` is `dev` with
 * three symbols. docs/ingest.md lists
 * the event counts of each.
 */
export interface Profile {
  name: ProfileName;
  /** Which instruments of the universe trade. */
  selectSymbols: (universe: readonly Instrument[]) => Instrument[];
  /** Calendar-day listing horizons per expiration family (0 = family not listed). */
  horizons: { daily: number; weekly: number; monthly: number; monthlyActive: number; quarterly: number; leaps: number };
  /** Strike-grid cap per expiration: the spacing doubles until the grid fits. */
  maxStrikes: number;
  /** Scales every contract's open interest (and with it volume and print counts). */
  openInterestScale: number;
  /** Seconds between intraday NBBO snapshots of the quoted contracts. */
  quoteIntervalSec: number;
  /** Intraday snapshots cover contracts up to this many days to expiry and this log-moneyness. */
  quoteMaxDte: number;
  quoteMaxMoneyness: number;
  /** Mean equity prints per symbol-minute, before the symbol's weight and the intraday U shape. */
  equityPrintsPerMinute: number;
  /**
   * The daily tier's off-exchange sample (dark-pool-sample.ts): the dark prints of the first minute
   * of every this many minutes (0: no sample).
   */
  darkPoolSampleMinutes: number;
}

export type ProfileName = 'dev' | 'full' | 'mini';

/** `mini`: the `dev` market cut to three symbols, for tests that produce whole tick sessions and count them back. */
const MINI_SYMBOLS = new Set(['AAPL', 'GME', 'XOM']);
const DEV_SYMBOLS = new Set(['SPY', 'QQQ', 'IWM', 'SPX', 'VIX', 'AAPL', 'NVDA', 'TSLA', 'MSFT', 'AMZN', 'AMD', 'JPM', 'XOM', 'PLTR', 'SOUN', 'GME']);

const DEV: Profile = {
  name: 'dev',
  selectSymbols: (u) => u.filter((i) => DEV_SYMBOLS.has(i.symbol)),
  horizons: { daily: 4, weekly: 15, monthly: 70, monthlyActive: 70, quarterly: 0, leaps: 400 },
  maxStrikes: 14,
  openInterestScale: 15,
  quoteIntervalSec: 300,
  quoteMaxDte: 45,
  quoteMaxMoneyness: 0.15,
  equityPrintsPerMinute: 6,
  darkPoolSampleMinutes: 30,
};

export const PROFILES: Record<ProfileName, Profile> = {
  dev: DEV,
  mini: { ...DEV, name: 'mini', selectSymbols: (u) => u.filter((i) => MINI_SYMBOLS.has(i.symbol)) },
  full: {
    name: 'full',
    selectSymbols: (u) => [...u],
    horizons: { daily: 7, weekly: 45, monthly: 100, monthlyActive: 280, quarterly: 370, leaps: 800 },
    maxStrikes: 50,
    openInterestScale: 210,
    quoteIntervalSec: 900,
    quoteMaxDte: 60,
    quoteMaxMoneyness: 0.2,
    equityPrintsPerMinute: 12,
    darkPoolSampleMinutes: 0,
  },
};

export function profileNamed(name: string): Profile {
  const p = (PROFILES as Record<string, Profile | undefined>)[name];
  if (!p) throw new Error(`unknown profile ${JSON.stringify(name)} (known: ${Object.keys(PROFILES).join(', ')})`);
  return p;
}
