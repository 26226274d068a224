/**
 * The dark-pool level view: off-exchange (DARK_POOL) prints totalled per ticker, session and
 * price level, summed over a session range at read time (dark-pool-levels). A level is the print
 * price truncated to the cent ("210.37"): the finest granularity a two-decimal key can name.
 * Per partition (hash tag):
 *
 *   <date>:lv:<TICKER>   string  the session's level table over its tape prints (packed, below)
 *   <date>:ls:<TICKER>   string  the same over the history sample's prints (daily tier, condition HS)
 *   ds:<TICKER>          zset    (lex) session dates holding levels of the ticker
 *
 * and the tape's dark-flow minute cells (`<date>:fl:<TICKER>`, `fd:<TICKER>`; dark-flow.ts).
 *
 * A level table is one record per level, ascending by level: uint32 cents, float64 notional in
 * $0.0001 units, float64 shares, uint32 prints (little-endian, 24 bytes). A range read is then one
 * MGET of a few kilobytes per session decoded in place, where a hash of three fields per level
 * made the reader parse and allocate tens of thousands of reply strings. The totals are integers
 * (exact in a float64 far beyond any session's), and the table is a function of them alone, so it
 * is the same however a replay is chunked.
 *
 * A session served from its tape (lv) ignores its sample (ls): a session with tick data carries
 * both, and the sample is a subset of the tape.
 */

export const DARK_POOL_LEVELS_VIEW = 'dark-pool-levels';
export const DARK_POOL_LEVELS_FORMAT = 3;

/** The level of a price: truncated to the cent, in cents (prices carry at most four decimals). */
export function levelCents(price: number): number {
  return Math.floor(Math.round(price * 10_000) / 100);
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

const RECORD_BYTES = 24;

/** Adds `t` into the level `cents` of `into`. */
export function addLevel(into: Map<number, LevelTotals>, cents: number, notionalUnits: number, size: number, tradeCount: number): void {
  const t = into.get(cents);
  if (t) {
    t.notionalUnits += notionalUnits;
    t.size += size;
    t.tradeCount += tradeCount;
  } else into.set(cents, { notionalUnits, size, tradeCount });
}

/** A level table as stored: its levels ascending, 24 bytes each. */
export function encodeLevels(levels: ReadonlyMap<number, LevelTotals>): Buffer {
  const cents = [...levels.keys()].sort((a, b) => a - b);
  const buf = Buffer.allocUnsafe(cents.length * RECORD_BYTES);
  cents.forEach((c, i) => {
    const t = levels.get(c)!;
    const o = i * RECORD_BYTES;
    buf.writeUInt32LE(c, o);
    buf.writeDoubleLE(t.notionalUnits, o + 4);
    buf.writeDoubleLE(t.size, o + 12);
    buf.writeUInt32LE(t.tradeCount, o + 20);
  });
  return buf;
}

/** Adds a stored level table into `into`, by level in cents. */
export function addLevels(into: Map<number, LevelTotals>, table: Buffer): void {
  if (table.length % RECORD_BYTES !== 0) throw new Error(`a level table of ${table.length} bytes is not whole records`);
  for (let o = 0; o < table.length; o += RECORD_BYTES)
    addLevel(into, table.readUInt32LE(o), table.readDoubleLE(o + 4), table.readDoubleLE(o + 12), table.readUInt32LE(o + 20));
}
