/**
 * Dark-flow cells of the dark-pool level view (dark-pool-levels.ts): the off-exchange (DARK_POOL)
 * prints of the equity-print tape totalled per ticker, session and minute, for dark-flow. Per
 * partition (hash tag):
 *
 *   <date>:fl:<TICKER>   string  record 0: the session's totals; records 1..: each minute's, ascending
 *   fd:<TICKER>          zset    (lex) session dates holding dark-flow cells of the ticker
 *
 * A record is 32 bytes, little-endian float64s: minute start (epoch-ms; record 0: the session's
 * first minute with a print), notional in $0.0001 units, shares, prints. A day or week bucket reads
 * record 0 alone (GETRANGE), a minute bucket the whole table (one GET). The totals are integers
 * (exact in a float64 far beyond a session's), so the table is a function of them alone, the same
 * however a replay is chunked. A chunk reads the tables it touches once and writes them back
 * whole (a hash of one field per minute, tried first, cost more to apply and to read). Only the
 * tape's prints count: the history sample (sessions without a tape) is a thirtieth of a session's
 * prints, and a series mixing it with tape sessions would read as a collapse of dark volume;
 * dark-pool-levels keeps it (its `ls` tables).
 */

export const MINUTE_MS = 60_000;
const RECORD_BYTES = 32;

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

/** A chunk's (or a table's) cells of one session: its totals (with its first minute) and each minute's. */
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

/** Adds `count` prints of `notionalUnits` and `size` (in total) to the minute starting at `minute`. */
function addAt(into: SessionFlow, minute: number, notionalUnits: number, size: number, count: number): void {
  if (minute < into.first) into.first = minute;
  const s = into.session;
  s.notionalUnits += notionalUnits;
  s.size += size;
  s.tradeCount += count;
  const m = into.minutes.get(minute);
  if (m) {
    m.notionalUnits += notionalUnits;
    m.size += size;
    m.tradeCount += count;
  } else into.minutes.set(minute, { notionalUnits, size, tradeCount: count });
}

/** Adds one print (notional in $0.0001 units) traded at `time`. */
export function addPrint(into: SessionFlow, time: number, notionalUnits: number, size: number): void {
  addAt(into, time - (time % MINUTE_MS), notionalUnits, size, 1);
}

/** Adds a stored table's minutes into `into` (its session totals follow from them). */
export function addFlow(into: SessionFlow, table: Buffer): void {
  checkTable(table);
  for (let o = RECORD_BYTES; o < table.length; o += RECORD_BYTES)
    addAt(into, table.readDoubleLE(o), table.readDoubleLE(o + 8), table.readDoubleLE(o + 16), table.readDoubleLE(o + 24));
}

function checkTable(table: Buffer): void {
  if (table.length % RECORD_BYTES !== 0 || table.length === 0) throw new Error(`a dark-flow table of ${table.length} bytes is not whole records`);
}

function writeRecord(buf: Buffer, o: number, minute: number, t: FlowTotals): void {
  buf.writeDoubleLE(minute, o);
  buf.writeDoubleLE(t.notionalUnits, o + 8);
  buf.writeDoubleLE(t.size, o + 16);
  buf.writeDoubleLE(t.tradeCount, o + 24);
}

const readTotals = (buf: Buffer, o: number): FlowTotals => ({
  notionalUnits: buf.readDoubleLE(o + 8),
  size: buf.readDoubleLE(o + 16),
  tradeCount: buf.readDoubleLE(o + 24),
});

/** The stored table: the session's record, then the minutes ascending. */
export function encodeFlow(flow: SessionFlow): Buffer {
  const minutes = [...flow.minutes.keys()].sort((a, b) => a - b);
  const buf = Buffer.allocUnsafe((minutes.length + 1) * RECORD_BYTES);
  writeRecord(buf, 0, flow.first, flow.session);
  minutes.forEach((m, i) => writeRecord(buf, (i + 1) * RECORD_BYTES, m, flow.minutes.get(m)!));
  return buf;
}

/** The minutes of a table (start epoch-ms, totals), ascending. */
export function decodeFlowMinutes(table: Buffer): [number, FlowTotals][] {
  checkTable(table);
  const out: [number, FlowTotals][] = [];
  for (let o = RECORD_BYTES; o < table.length; o += RECORD_BYTES) out.push([table.readDoubleLE(o), readTotals(table, o)]);
  return out;
}

/** The bytes of record 0 (GETRANGE key 0 SESSION_FLOW_LAST): the session's totals alone. */
export const SESSION_FLOW_LAST = RECORD_BYTES - 1;

/** The session's first minute and totals, from record 0 (or a whole table). */
export function decodeSessionFlow(buf: Buffer): { first: number; totals: FlowTotals } {
  if (buf.length < RECORD_BYTES) throw new Error(`a dark-flow session record of ${buf.length} bytes`);
  return { first: buf.readDoubleLE(0), totals: readTotals(buf, 0) };
}
