/**
 * The dark-pool level view: off-exchange (DARK_POOL) prints totalled per ticker, session and
 * price level, summed over a session range at read time (dark-pool-levels). A level is the print
 * price truncated to the cent ("210.37"): the finest granularity a two-decimal key can name.
 * Per partition (hash tag):
 *
 *   <date>:lv:<TICKER>   hash  `<level>:n|s|c` -> notional in $0.0001 units | shares | prints (tape prints)
 *   <date>:ls:<TICKER>   hash  the same over the history sample's prints (daily tier, condition HS)
 *   ds:<TICKER>          zset  (lex) session dates holding levels of the ticker
 *
 * Totals are integers (HINCRBY), so they are exact and independent of how a replay is chunked.
 * A session served from its tape (lv) ignores its sample (ls): a session with tick data carries
 * both, and the sample is a subset of the tape.
 */

export const DARK_POOL_LEVELS_VIEW = 'dark-pool-levels';
export const DARK_POOL_LEVELS_FORMAT = 1;

/** The level of a price: truncated to the cent, in cents (prices carry at most four decimals). */
export function levelCents(price: number): number {
  return Math.floor(Math.round(price * 10_000) / 100);
}

/** The two-decimal key of a level in cents. */
export function levelKey(cents: number): string {
  return (cents / 100).toFixed(2);
}

export function tapeLevelsSuffix(sessionDate: string, ticker: string): string[] {
  return [sessionDate, 'lv', ticker];
}
export function sampleLevelsSuffix(sessionDate: string, ticker: string): string[] {
  return [sessionDate, 'ls', ticker];
}
export function levelSessionsSuffix(ticker: string): string[] {
  return ['ds', ticker];
}

export interface LevelTotals {
  notionalUnits: number;
  size: number;
  tradeCount: number;
}

/** Adds a stored level hash (HGETALL) into `into`, by level in cents. */
export function addLevels(into: Map<number, LevelTotals>, hash: Record<string, string>): void {
  for (const [field, value] of Object.entries(hash)) {
    const i = field.lastIndexOf(':');
    const cents = Math.round(Number(field.slice(0, i)) * 100);
    let t = into.get(cents);
    if (!t) into.set(cents, (t = { notionalUnits: 0, size: 0, tradeCount: 0 }));
    const n = Number(value);
    const kind = field.slice(i + 1);
    if (kind === 'n') t.notionalUnits += n;
    else if (kind === 's') t.size += n;
    else if (kind === 'c') t.tradeCount += n;
  }
}
