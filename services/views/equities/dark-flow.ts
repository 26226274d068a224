/**
 * Dark-flow cells of the dark-pool level view (dark-pool-levels.ts): the off-exchange (DARK_POOL)
 * prints of the equity-print tape totalled per ticker, session and minute, for dark-flow. Per
 * partition (hash tag):
 *
 *   <date>:fl:<TICKER>   hash  s -> the session's totals; <minute> -> that minute's totals
 *   fd:<TICKER>          zset  (lex) session dates holding dark-flow cells of the ticker
 *
 * <minute> is the minute's start in epoch minutes (decimal). A session value is 32 bytes, a minute
 * value 24, little-endian float64s: (session only: its first minute with a print, epoch-ms), notional
 * in $0.0001 units, shares, prints. The totals are integers (exact in a float64 far beyond a
 * session's), so a cell is a function of them alone, the same however a replay is chunked. A chunk
 * reads and rewrites only the minutes it touches (a packed table of the whole session rewritten
 * per chunk doubled the projection's apply time). Only the tape's prints count: the history sample
 * (sessions without a tape) is a thirtieth of a session's prints, and a series mixing it with tape
 * sessions would read as a collapse of dark volume; dark-pool-levels keeps it (its `ls` tables).
 */

export const MINUTE_MS = 60_000;
/** The hash field of the session's totals. */
export const SESSION_FIELD = 's';

export interface FlowTotals {
  notionalUnits: number;
  size: number;
  tradeCount: number;
}

export function darkFlowSuffix(sessionDate: string, ticker: string): string[] {
  return [sessionDate, 'fl', ticker];
}
export function darkFlowSessionsSuffix(ticker: string): string[] {
  return ['fd', ticker];
}

/** The hash field of the minute starting at `minuteMs`. */
export const minuteField = (minuteMs: number): string => String(minuteMs / MINUTE_MS);
/** The minute start (epoch-ms) of a hash field. */
export const fieldMinute = (field: string): number => Number(field) * MINUTE_MS;

/** A chunk's (or a read's) cells of one session: its totals (with its first minute) and each minute's. */
export interface SessionFlow {
  first: number;
  session: FlowTotals;
  minutes: Map<number, FlowTotals>;
}

export const zeroTotals = (): FlowTotals => ({ notionalUnits: 0, size: 0, tradeCount: 0 });
export const emptyFlow = (): SessionFlow => ({ first: Infinity, session: zeroTotals(), minutes: new Map() });

export function addTotals(into: FlowTotals, t: FlowTotals): void {
  into.notionalUnits += t.notionalUnits;
  into.size += t.size;
  into.tradeCount += t.tradeCount;
}

/** Adds one print (notional in $0.0001 units) traded at `time`. */
export function addPrint(into: SessionFlow, time: number, notionalUnits: number, size: number): void {
  const minute = time - (time % MINUTE_MS);
  if (minute < into.first) into.first = minute;
  const s = into.session;
  s.notionalUnits += notionalUnits;
  s.size += size;
  s.tradeCount += 1;
  const m = into.minutes.get(minute);
  if (m) {
    m.notionalUnits += notionalUnits;
    m.size += size;
    m.tradeCount += 1;
  } else into.minutes.set(minute, { notionalUnits, size, tradeCount: 1 });
}

export function encodeTotals(t: FlowTotals): Buffer {
  const buf = Buffer.allocUnsafe(24);
  buf.writeDoubleLE(t.notionalUnits, 0);
  buf.writeDoubleLE(t.size, 8);
  buf.writeDoubleLE(t.tradeCount, 16);
  return buf;
}

export function decodeTotals(buf: Buffer, o = 0): FlowTotals {
  if (buf.length < o + 24) throw new Error(`dark-flow totals of ${buf.length - o} bytes`);
  return { notionalUnits: buf.readDoubleLE(o), size: buf.readDoubleLE(o + 8), tradeCount: buf.readDoubleLE(o + 16) };
}

export function encodeSessionTotals(first: number, t: FlowTotals): Buffer {
  const buf = Buffer.allocUnsafe(32);
  buf.writeDoubleLE(first, 0);
  encodeTotals(t).copy(buf, 8);
  return buf;
}

export function decodeSessionTotals(buf: Buffer): { first: number; totals: FlowTotals } {
  if (buf.length !== 32) throw new Error(`dark-flow session totals of ${buf.length} bytes`);
  return { first: buf.readDoubleLE(0), totals: decodeTotals(buf, 8) };
}

/**
 * The hash fields to write for a chunk's cells `flow` given the stored values of its fields
 * (`stored[0]` the session's, then its minutes' in `flow.minutes` order; null where absent):
 * [field, value] pairs for HSET.
 */
export function mergedFields(flow: SessionFlow, stored: readonly (Buffer | null)[]): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  let first = flow.first;
  const session = { ...flow.session };
  if (stored[0]) {
    const was = decodeSessionTotals(stored[0]);
    first = Math.min(first, was.first);
    addTotals(session, was.totals);
  }
  out.push([SESSION_FIELD, encodeSessionTotals(first, session)]);
  [...flow.minutes].forEach(([m, t], i) => {
    const was = stored[i + 1];
    const sum = { ...t };
    if (was) addTotals(sum, decodeTotals(was));
    out.push([minuteField(m), encodeTotals(sum)]);
  });
  return out;
}
