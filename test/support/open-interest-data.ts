import { fromDayNumber, nyLocalToEpochMs, previousTradingDay, sessionBounds, toDayNumber } from '../../services/domain/calendar';
import { osiSymbol } from '../../services/domain/osi';
import { OI_CHANGE_FIELDS } from '../../api/fields/open-interest';
import { encodeSortKey } from '../../services/views/sort-keys';
import { rng } from './order-flow-data';

/**
 * A deterministic open-interest history for the open-interest tests: a few tickers over many
 * sessions, each session listing the next three Friday expirations (so contracts are listed
 * and expire as sessions go by) at four strikes (one fractional), open interest with zeros and
 * ties; closing prices per session, except the newest (opening price and ticks only) and one
 * ticker-session without any price. Events are published newest session first, as the history
 * backfill does. The brute-force answers below are computed from these events alone.
 */

export const OI_TICKERS: Record<string, number> = { SPY: 500, AAPL: 200, TSLA: 250, QQQ: 400 };

export interface OiEvent {
  osi: string;
  ticker: string;
  expirationDate: string;
  strikePrice: number;
  contractType: 'CALL' | 'PUT';
  sessionDate: string;
  openInterest: number;
  time: number;
}

export interface PriceEvent {
  ticker: string;
  sessionDate: string;
  time: number;
  price: number;
  kind: 'OPEN' | 'TICK' | 'CLOSE';
}

export interface OiFixture {
  /** Ascending. */
  sessions: string[];
  openInterest: OiEvent[];
  prices: PriceEvent[];
  /** The ticker and session published without any price. */
  priceless: { ticker: string; session: string };
}

function nextFridays(d: string, n: number): string[] {
  const out: string[] = [];
  for (let day = toDayNumber(d) + 1; out.length < n; day++) if (new Date(`${fromDayNumber(day)}T00:00:00Z`).getUTCDay() === 5) out.push(fromDayNumber(day));
  return out;
}

export function openInterestFixture(sessionCount: number, lastSession: string): OiFixture {
  const sessions: string[] = [lastSession];
  while (sessions.length < sessionCount) sessions.unshift(previousTradingDay(sessions[0]));
  const r = rng(28);
  const openInterest: OiEvent[] = [];
  const prices: PriceEvent[] = [];
  const priceless = { ticker: 'TSLA', session: sessions[sessions.length - 5] };
  for (const d of [...sessions].reverse()) {
    const time = nyLocalToEpochMs(d, 7, 0);
    const { open, close } = sessionBounds(d)!;
    for (const [ticker, base] of Object.entries(OI_TICKERS)) {
      for (const exp of nextFridays(d, 3)) {
        for (const strike of [base - 5, base, base + 2.5, base + 5]) {
          for (const right of ['CALL', 'PUT'] as const) {
            const u = r();
            // About one in ten is 0; values from a small set, so many rows tie on every field.
            const oi = u < 0.1 ? 0 : 10 * Math.floor(r() * 60);
            openInterest.push({
              osi: osiSymbol(ticker, exp, right, strike),
              ticker,
              expirationDate: exp,
              strikePrice: strike,
              contractType: right,
              sessionDate: d,
              openInterest: oi,
              time,
            });
          }
        }
      }
      if (ticker === priceless.ticker && d === priceless.session) continue;
      const px = Math.round((base + (r() - 0.5) * 20) * 100) / 100;
      if (d === lastSession) {
        prices.push({ ticker, sessionDate: d, time: open, price: px, kind: 'OPEN' });
        prices.push({ ticker, sessionDate: d, time: open + 60_000, price: px + 1, kind: 'TICK' });
      } else {
        prices.push({ ticker, sessionDate: d, time: open, price: px - 1, kind: 'OPEN' });
        prices.push({ ticker, sessionDate: d, time: close, price: px, kind: 'CLOSE' });
      }
    }
  }
  return { sessions, openInterest, prices, priceless };
}

export interface ChangeRow {
  id: string;
  ticker: string;
  contractType: string;
  strikePrice: number;
  expirationDate: string;
  previousOpenInterest: number;
  currentOpenInterest: number;
  changeInOpenInterest: number;
  percentChangeInOpenInterest: number | null;
  sessionDate: string;
  createdTime: number;
}

/** Every change row of a session by brute force: each contract listed in it against the session before. */
export function changeRowsOf(f: OiFixture, session: string): ChangeRow[] {
  const i = f.sessions.indexOf(session);
  const prev = new Map(f.openInterest.filter((e) => e.sessionDate === f.sessions[i - 1]).map((e) => [e.osi, e.openInterest]));
  return f.openInterest
    .filter((e) => e.sessionDate === session)
    .map((e) => {
      const p = prev.get(e.osi) ?? 0;
      return {
        id: `${e.osi.replace(/ /g, '')}-${session.replace(/-/g, '')}`,
        ticker: e.ticker,
        contractType: e.contractType,
        strikePrice: e.strikePrice,
        expirationDate: e.expirationDate,
        previousOpenInterest: p,
        currentOpenInterest: e.openInterest,
        changeInOpenInterest: e.openInterest - p,
        percentChangeInOpenInterest: p === 0 ? null : (e.openInterest - p) / p,
        sessionDate: session,
        createdTime: e.time,
      };
    });
}

/**
 * The oracle of open-interest-change for the bodies the tests send (sessionDate, filter.tickers,
 * sort, includes/excludes): rows in (sort value, row) order as the view stores them.
 */
export function changeOracle(f: OiFixture, body: Record<string, unknown>): Record<string, unknown>[] {
  const session = (body.sessionDate as string | undefined) ?? f.sessions[f.sessions.length - 1];
  const tickers = (body.filter as { tickers?: string | string[] } | undefined)?.tickers;
  const want = tickers === undefined ? null : new Set([tickers].flat());
  const sort = (body.sort as { field: string; direction?: string } | undefined) ?? { field: 'CREATED_TIME', direction: 'DESCENDING' };
  const field = OI_CHANGE_FIELDS.lookup(sort.field)!;
  const desc = sort.direction === 'DESCENDING';
  const keyed = changeRowsOf(f, session)
    .filter((r) => !want || want.has(r.ticker))
    .map((r) => ({ r, k: encodeSortKey(field.get(r as never) as number | string | null), id: r.id.split('-')[0] }));
  keyed.sort((a, b) => {
    const c = a.k < b.k ? -1 : a.k > b.k ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return desc ? -c : c;
  });
  const includes = body.includes as string[] | undefined;
  const excludes = body.excludes as string[] | undefined;
  const keys = (names: string[]) => new Set(names.map((n) => OI_CHANGE_FIELDS.lookup(n)!.responseKey!));
  return keyed.map(({ r }) => {
    const row = r as unknown as Record<string, unknown>;
    if (includes) {
      const keep = keys(includes);
      return Object.fromEntries(Object.entries(row).filter(([k]) => keep.has(k)));
    }
    if (excludes) {
      const drop = keys(excludes);
      return Object.fromEntries(Object.entries(row).filter(([k]) => !drop.has(k)));
    }
    return row;
  });
}
