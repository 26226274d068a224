import type { EndpointDef } from '../api/request/endpoint';
import { previousTradingDay, sessionDateOf } from '../services/domain/calendar';

/**
 * An endpoint's documented example moved onto the data a running service holds: the default
 * time selection (or a session some sessions back), the ticker asked for, an expiration with open
 * interest and a contract with prints of it. `npm run smoke` and the client tests use it, so every
 * endpoint can be asked something that has an answer whatever the day.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of thirty shapes, probed loosely
type Json = any;

/** POSTs a body to a path under /v1 and gives the status and the JSON answer. */
export type Poster = (path: string, body: unknown) => Promise<{ status: number; json: Json }>;

export interface Landmarks {
  expiration: string;
  osi: string;
  contract: Record<string, unknown>;
  sessionDate?: string;
}

/** What the running data offers: an expiration and a contract of the ticker with prints (of the session `sessionsBack` trading sessions before the latest with prints). */
export async function landmarks(post: Poster, ticker: string, sessionsBack = 0): Promise<Landmarks | null> {
  let sessionDate: string | undefined;
  if (sessionsBack > 0) {
    const time = (await post('/options/tool/order-flow/unconsolidated', { filter: { ticker: ticker }, size: 1 })).json?.data?.[0]?.tradeTime;
    if (typeof time !== 'number') return null;
    sessionDate = sessionDateOf(time);
    for (let i = 0; i < sessionsBack; i++) sessionDate = previousTradingDay(sessionDate!);
  }
  const tape = await post('/options/tool/order-flow/unconsolidated', { filter: { ticker: ticker }, size: 1, ...(sessionDate ? { sessionDate } : {}) });
  const row = tape.json?.data?.[0];
  if (!row) return null;
  // An expiration with open interest (max-pain needs one), else the print's.
  const oi = await post('/options/tool/open-interest-by-expiration', { filter: { ticker: ticker }, ...(sessionDate ? { sessionDate } : {}) });
  const withOi = Object.entries((oi.json?.data ?? {}) as Record<string, { callOpenInterest: number; putOpenInterest: number }>).find(
    ([, t]) => t.callOpenInterest + t.putOpenInterest > 0,
  );
  return {
    sessionDate,
    expiration: withOi?.[0] ?? row.expirationDate,
    osi: row.osi,
    contract: { ticker: ticker, expirationDate: row.expirationDate, strikePrice: row.strikePrice, contractType: row.contractType },
  };
}

/** An example moved onto the running data: default time selection (or the landmarks' session), the ticker, the landmarks. */
export function adapt(request: Record<string, unknown>, l: Landmarks, takesSession: boolean, ticker: string): Record<string, unknown> {
  const { sessionDate: _s, snapshotTime: _t, timeRange: _r, ...rest } = request;
  const out: Record<string, unknown> = { ...rest };
  if (l.sessionDate && takesSession) out.sessionDate = l.sessionDate;
  if (out.sessionDateRange) out.sessionDateRange = { startDate: new Date(Date.now() - 45 * 86_400_000).toISOString().slice(0, 10) };
  const filter = { ...((out.filter as Record<string, unknown>) ?? {}) };
  if (filter.osi) filter.osi = l.osi;
  if (filter.ticker || filter.tickers) {
    delete filter.tickers;
    Object.assign(filter, filter.contractType ? l.contract : { ticker: ticker });
  }
  for (const k of ['expirationDate', 'expirationDates']) if (filter[k] && !filter.contractType) filter[k] = l.expiration;
  for (const k of ['strikePrice', 'strikePrices', 'minStrikePrice', 'maxStrikePrice', 'strikePriceRange']) if (!filter.contractType) delete filter[k];
  delete out.minStrikePrice;
  delete out.maxStrikePrice;
  if (Object.keys(filter).length || out.filter) out.filter = filter;
  return out;
}

/** Whether an endpoint takes a sessionDate. */
export function takesSession(def: EndpointDef): boolean {
  return 'sessionDate' in ((def.requestSchema as { properties?: object }).properties ?? {});
}
