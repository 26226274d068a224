import { maxPain } from '../domain/max-pain';
import { parseOsi } from '../domain/osi';
import type { PartitionKeys } from './keys';
import type { TableLayout } from './table';

/**
 * The open-interest view: start-of-session open interest per contract and session, read by
 * open-interest-change (a table view), open-interest-over-time and max-pain. Per partition:
 *
 *   os                    zset (lex)  sessions with open interest in this partition
 *   c:<S>                 hash  compact osi -> "oi,createdTime"   (the newest CHANGE_SESSIONS + 1 sessions)
 *   ce:<T>:<EXP>          hash  session -> chain "strike,callOi,putOi;..." by ascending strike (every session)
 *   cx:<T>                zset (lex)  the ticker's expirations that have a chain
 *   tc:<T>, tp:<T>        hash  session -> total call / put open interest of the ticker (every session)
 *   ss:<T>                hash  session -> the session's answers "<per expiration>|<per strike>" (every session):
 *                               per expiration "exp,callOi,putOi,maxPain;..." ascending (maxPain empty without open interest),
 *                               per strike over every expiration "strike,callOi,putOi;..." ascending
 *   px:<T>                hash  session -> official close of the underlying
 *   pl:<T>                hash  session -> latest open or last-sale price before the close
 *   s, <S>:r, <S>:x:*, <S>:tk:<T>   the change rows as a table view (table.ts), newest CHANGE_SESSIONS only
 *
 * Change rows with their five sort indexes cost about 600 bytes each; keeping them for every
 * history session would cost hundreds of MiB, so only the newest sessions keep them, while the
 * compact chains and totals keep every session for max-pain and open-interest-over-time.
 */

export const OPEN_INTEREST_VIEW = 'open-interest';

/** How many of a partition's newest sessions keep change rows. Part of the layout: a change needs a new OPEN_INTEREST_FORMAT. */
export const CHANGE_SESSIONS = 20;

/** Version of the layout above. */
export const OPEN_INTEREST_FORMAT = 2;

/** One row of open-interest-change. */
export interface OiChangeRow {
  id: string;
  ticker: string;
  contractType: 'CALL' | 'PUT';
  strikePrice: number;
  expirationDate: string;
  previousOpenInterest: number;
  currentOpenInterest: number;
  changeInOpenInterest: number;
  /** Fractional; null when the previous open interest is 0 (a new listing). */
  percentChangeInOpenInterest: number | null;
  sessionDate: string;
  createdTime: number;
}

/** The OSI symbol without its padding: the rowKey of a change row within its session. */
export function compactOsi(osi: string): string {
  return osi.replace(/ /g, '');
}

const COMPACT_OSI = /^([A-Z0-9]{1,6})(\d{6}[CP]\d{8})$/;

export function expandOsi(compact: string): string | null {
  const m = COMPACT_OSI.exec(compact);
  return m ? m[1].padEnd(6, ' ') + m[2] : null;
}

export function changeRowId(compact: string, session: string): string {
  return `${compact}-${session.replace(/-/g, '')}`;
}

/** A change row from its parts (the one place the derived fields are computed). */
export function changeRow(c: { osi: string; ticker: string; sessionDate: string; createdTime: number }, previous: number, current: number): OiChangeRow {
  const p = parseOsi(c.osi);
  if (!p) throw new Error(`not an OSI symbol: ${c.osi}`);
  return {
    id: changeRowId(compactOsi(c.osi), c.sessionDate),
    ticker: c.ticker,
    contractType: p.right,
    strikePrice: p.strike,
    expirationDate: p.expiration,
    previousOpenInterest: previous,
    currentOpenInterest: current,
    changeInOpenInterest: current - previous,
    percentChangeInOpenInterest: previous === 0 ? null : (current - previous) / previous,
    sessionDate: c.sessionDate,
    createdTime: c.createdTime,
  };
}

/** Stored form: "previous,current,createdTime,ticker" (the contract comes from the rowKey, the session from the segment). */
export function encodeChangeRow(r: OiChangeRow): string {
  return `${r.previousOpenInterest},${r.currentOpenInterest},${r.createdTime},${r.ticker}`;
}

export function decodeChangeRow(stored: string | Buffer, rowKey: string, segment: string): OiChangeRow {
  const [prev, cur, time, ticker] = stored.toString().split(',');
  const osi = expandOsi(rowKey);
  if (!osi) throw new Error(`not a change row key: ${rowKey}`);
  return changeRow({ osi, ticker, sessionDate: segment, createdTime: Number(time) }, Number(prev), Number(cur));
}

export const OI_CHANGE_LAYOUT: TableLayout<OiChangeRow> = {
  view: OPEN_INTEREST_VIEW,
  segmented: true,
  segmentOf: (r) => r.sessionDate,
  rowKeyOf: (r) => r.id.slice(0, r.id.lastIndexOf('-')),
  encode: encodeChangeRow,
  decode: decodeChangeRow,
  sorts: [
    { field: 'CREATED_TIME', suffix: 'time', value: (r) => r.createdTime },
    { field: 'CHANGE_IN_OPEN_INTEREST', suffix: 'chg', value: (r) => r.changeInOpenInterest },
    { field: 'PERCENT_CHANGE_IN_OPEN_INTEREST', suffix: 'pct', value: (r) => r.percentChangeInOpenInterest },
    { field: 'CURRENT_OPEN_INTEREST', suffix: 'cur', value: (r) => r.currentOpenInterest },
    { field: 'PREVIOUS_OPEN_INTEREST', suffix: 'prev', value: (r) => r.previousOpenInterest },
  ],
  indexes: [{ name: 'tk', values: (r) => [r.ticker] }],
};

/** The change-row cursor's rowKey shape. */
export const CHANGE_ROW_KEY = /^[A-Z0-9]{1,6}\d{6}[CP]\d{8}$/;

// --- compact per-session stores ----------------------------------------------------------------

export const oiKeys = {
  sessions: (k: PartitionKeys) => k.key('os'),
  contracts: (k: PartitionKeys, session: string) => k.key('c', session),
  chain: (k: PartitionKeys, ticker: string, expiration: string) => k.key('ce', ticker, expiration),
  expirations: (k: PartitionKeys, ticker: string) => k.key('cx', ticker),
  calls: (k: PartitionKeys, ticker: string) => k.key('tc', ticker),
  puts: (k: PartitionKeys, ticker: string) => k.key('tp', ticker),
  summaries: (k: PartitionKeys, ticker: string) => k.key('ss', ticker),
  close: (k: PartitionKeys, ticker: string) => k.key('px', ticker),
  last: (k: PartitionKeys, ticker: string) => k.key('pl', ticker),
};

/** One strike of an expiration's chain in one session. */
export interface ChainStrike {
  strike: number;
  call: number;
  put: number;
}

export function encodeChain(strikes: Iterable<ChainStrike>): string {
  return [...strikes]
    .sort((a, b) => a.strike - b.strike)
    .map((s) => `${s.strike},${s.call},${s.put}`)
    .join(';');
}

export function decodeChain(stored: string | null | undefined): ChainStrike[] {
  if (!stored) return [];
  return stored.split(';').map((part) => {
    const [strike, call, put] = part.split(',');
    return { strike: Number(strike), call: Number(call), put: Number(put) };
  });
}

/** One expiration of a ticker in one session: its call and put totals and its max-pain strike (null without open interest). */
export interface ExpirationSummary {
  expiration: string;
  call: number;
  put: number;
  maxPain: number | null;
}

/** What a session of a ticker answers without reading its chains: per expiration, and per strike over every expiration. */
export interface SessionSummary {
  expirations: ExpirationSummary[];
  strikes: ChainStrike[];
}

/** One field per ticker and session: one read and one write per chunk that touches it (two keys cost the replay more). */
export function encodeSessionSummary(s: { expirations: Iterable<ExpirationSummary>; strikes: Iterable<ChainStrike> }): string {
  return `${encodeExpirationSummaries(s.expirations)}|${encodeChain(s.strikes)}`;
}

export function decodeSessionSummary(stored: string | null | undefined): SessionSummary {
  if (!stored) return { expirations: [], strikes: [] };
  const bar = stored.indexOf('|');
  return { expirations: decodeExpirationSummaries(stored.slice(0, bar)), strikes: decodeChain(stored.slice(bar + 1)) };
}

export function encodeExpirationSummaries(list: Iterable<ExpirationSummary>): string {
  return [...list]
    .sort((a, b) => (a.expiration < b.expiration ? -1 : a.expiration > b.expiration ? 1 : 0))
    .map((e) => `${e.expiration},${e.call},${e.put},${e.maxPain ?? ''}`)
    .join(';');
}

export function decodeExpirationSummaries(stored: string | null | undefined): ExpirationSummary[] {
  if (!stored) return [];
  return stored.split(';').map((part) => {
    const [expiration, call, put, maxPain] = part.split(',');
    return { expiration, call: Number(call), put: Number(put), maxPain: maxPain === '' ? null : Number(maxPain) };
  });
}

/** An expiration's totals and max-pain strike (as max-pain computes it; none when no contract has open interest). */
export function expirationSummary(expiration: string, chain: readonly ChainStrike[]): ExpirationSummary {
  let call = 0;
  let put = 0;
  for (const c of chain) {
    call += c.call;
    put += c.put;
  }
  return { expiration, call, put, maxPain: call > 0 || put > 0 ? maxPain(chain)!.maxPainStrike : null };
}
