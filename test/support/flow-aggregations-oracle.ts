import { nyLocalToEpochMs, sessionDateOf } from '../../services/domain/calendar';
import { matcher, type OracleRow } from './order-flow-oracle';

/**
 * Brute-force answers of the six flow-aggregation endpoints over print rows held in memory, from
 * the spec and the project's documented choices (docs/flow-aggregations.md), written without the
 * API's cube, reader or aggregation kit: select the matching prints with the order-flow oracle's
 * filter and expression evaluation, then sum. Money is summed in integer cents, as documented.
 */

type Body = Record<string, any>;
export interface Window {
  startMs: number;
  endMs: number;
}

const cents = (premium: number) => Math.round(premium * 100);
const MINUTE = 60_000;
const PERIOD_MS: Record<string, number> = { '1m': MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1h': 60 * MINUTE };

/** The start of the bucket holding `ms`: clock periods from the epoch, 1d the New York midnight of its date. */
export function bucketOf(period: string, ms: number): number {
  if (period in PERIOD_MS) return Math.floor(ms / PERIOD_MS[period]) * PERIOD_MS[period];
  if (period === '1d') return nyLocalToEpochMs(sessionDateOf(ms), 0, 0);
  throw new Error(`oracle: period ${period} not modelled`);
}

/** The rows a request's time selection covers: its session, its window, or the latest session. */
export function selected(rows: readonly OracleRow[], body: Body): { rows: OracleRow[]; window?: Window } {
  if (body.timeRange) {
    const window = { startMs: Date.parse(body.timeRange.startTime), endMs: Date.parse(body.timeRange.endTime) };
    return { rows: [...rows], window };
  }
  const latest = rows.reduce((d, r) => (r.sessionDate > d ? r.sessionDate : d), '');
  const d = body.sessionDate ?? latest;
  return { rows: rows.filter((r) => r.sessionDate === d) };
}

/** An expression with its field names in the canonical UPPER_SNAKE form the order-flow oracle reads. */
function canonical(node: Body | undefined): Body | undefined {
  if (!node) return node;
  if ('conjunction' in node) return { ...node, filters: node.filters.map(canonical) };
  return {
    ...node,
    field: String(node.field)
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toUpperCase(),
  };
}

/** The prints a request matches (time, filter, filterExpression). */
export function matching(rows: readonly OracleRow[], body: Body): OracleRow[] {
  const s = selected(rows, body);
  const b = { filter: body.filter, filterExpression: canonical(body.filterExpression) };
  return s.rows.filter(matcher(b, s.window));
}

const SIDES = ['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID'];
const bought = (side: string) => side === 'ASK' || side === 'ABOVE_ASK';
const sold = (side: string) => side === 'BID' || side === 'BELOW_BID';

export function contractTradeSideStatistics(rows: readonly OracleRow[], body: Body): Record<string, any> {
  const field = ({ PREMIUM: 'premium', TRADE_COUNT: 'tradeCount', VOLUME: 'volume' } as Record<string, string>)[body.dataMode];
  const data: Record<string, Record<string, Record<string, number>>> = {};
  const ms = matching(rows, body);
  for (const ct of ['CALL', 'PUT']) {
    for (const side of SIDES) {
      const rs = ms.filter((r) => r.contractType === ct && r.tradeSideCode === side);
      if (!rs.length) continue;
      const v =
        field === 'premium' ? rs.reduce((s, r) => s + cents(r.premium), 0) / 100 : field === 'tradeCount' ? rs.length : rs.reduce((s, r) => s + r.size, 0);
      (data[ct] ??= {})[side] = { [field]: v };
    }
  }
  return { data };
}

/** contract-statistics: per contract type, premium (dollars from summed cents), prints and contracts; a type without prints omitted. */
export function contractStatistics(rows: readonly OracleRow[], body: Body): Record<string, any> {
  const data: Record<string, { premium: number; tradeCount: number; volume: number }> = {};
  const ms = matching(rows, body);
  for (const ct of ['CALL', 'PUT']) {
    const rs = ms.filter((r) => r.contractType === ct);
    if (!rs.length) continue;
    data[ct] = { premium: rs.reduce((s, r) => s + cents(r.premium), 0) / 100, tradeCount: rs.length, volume: rs.reduce((s, r) => s + r.size, 0) };
  }
  return { data };
}

export function marketShare(rows: readonly OracleRow[], body: Body): Record<string, any> {
  const ms = matching(rows, body);
  const data: Record<string, Record<string, number>> = {};
  for (const ex of [...new Set(ms.map((r) => r.exchange))].sort()) {
    const rs = ms.filter((r) => r.exchange === ex);
    const leg = (pred: (r: OracleRow) => boolean) => {
      const l = rs.filter(pred);
      return { p: l.reduce((s, r) => s + cents(r.premium), 0) / 100, n: l.length, v: l.reduce((s, r) => s + r.size, 0) };
    };
    const call = leg((r) => !r.isIndex && r.contractType === 'CALL');
    const put = leg((r) => !r.isIndex && r.contractType === 'PUT');
    const index = leg((r) => r.isIndex);
    data[ex] = {
      equityCallPremium: call.p,
      equityCallTradeCount: call.n,
      equityCallVolume: call.v,
      equityPutPremium: put.p,
      equityPutTradeCount: put.n,
      equityPutVolume: put.v,
      indexPremium: index.p,
      indexTradeCount: index.n,
      indexVolume: index.v,
    };
  }
  return { data };
}

export function gainersLosers(rows: readonly OracleRow[], body: Body): Record<string, any> {
  const ms = matching(rows, body);
  const data: Record<string, Record<string, number>> = {};
  for (const t of [...new Set(ms.map((r) => r.ticker))].sort()) {
    const rs = ms.filter((r) => r.ticker === t);
    const sum = (pred: (r: OracleRow) => boolean) => rs.filter(pred).reduce((s, r) => s + cents(r.premium), 0);
    // Bullish: calls bought or puts sold; bearish: puts bought or calls sold.
    const bull = sum((r) => (r.contractType === 'CALL' ? bought(r.tradeSideCode) : sold(r.tradeSideCode)));
    const bear = sum((r) => (r.contractType === 'PUT' ? bought(r.tradeSideCode) : sold(r.tradeSideCode)));
    data[t] = {
      bullishPremium: bull / 100,
      bearishPremium: bear / 100,
      premium: sum(() => true) / 100,
      premiumRatio: bull === 0 ? 0 : bear / bull,
      tradeCount: rs.length,
      volume: rs.reduce((s, r) => s + r.size, 0),
    };
  }
  return { data };
}

/** The underlying's last price per bucket: the ticker's last print (any contract) in the bucket and window. */
function lastPrices(rows: readonly OracleRow[], body: Body, ticker: string): Map<number, number> {
  const s = selected(rows, body);
  const out = new Map<number, OracleRow>();
  for (const r of s.rows) {
    if (r.ticker !== ticker || (s.window && (r.tradeTime < s.window.startMs || r.tradeTime >= s.window.endMs))) continue;
    const b = bucketOf(body.aggregationPeriod, r.tradeTime);
    const was = out.get(b);
    if (!was || r.tradeTime > was.tradeTime || (r.tradeTime === was.tradeTime && r.rowKey > was.rowKey)) out.set(b, r);
  }
  return new Map([...out].map(([b, r]) => [b, r.stockPrice]));
}

function byBucket(rows: readonly OracleRow[], period: string): Map<number, OracleRow[]> {
  const out = new Map<number, OracleRow[]>();
  for (const r of rows) {
    const b = bucketOf(period, r.tradeTime);
    const list = out.get(b);
    if (list) list.push(r);
    else out.set(b, [r]);
  }
  return new Map([...out].sort((a, b) => a[0] - b[0]));
}

function singleTicker(body: Body): string | null {
  const t = body.filter?.tickers ?? body.filter?.ticker;
  if (t === undefined) return null;
  const list = Array.isArray(t) ? t : [t];
  return list.length === 1 ? list[0] : null;
}

/** net = bought minus sold, mid-market excluded; in cents (premium) or contracts. */
function net(rs: OracleRow[], ct: string, what: 'cents' | 'contracts'): number {
  let n = 0;
  for (const r of rs) {
    if (r.contractType !== ct) continue;
    const v = what === 'cents' ? cents(r.premium) : r.size;
    if (bought(r.tradeSideCode)) n += v;
    else if (sold(r.tradeSideCode)) n -= v;
  }
  return n;
}

export function netFlow(rows: readonly OracleRow[], body: Body): Record<string, any> {
  const what = body.dataMode === 'NET_PREMIUM' ? 'cents' : 'contracts';
  const t = singleTicker(body);
  const prices = t ? lastPrices(rows, body, t) : null;
  const data: Record<string, any> = {};
  for (const [b, rs] of byBucket(matching(rows, body), body.aggregationPeriod)) {
    data[String(b)] = { callSum: net(rs, 'CALL', what), putSum: net(rs, 'PUT', what), ...(prices ? { stockPrice: prices.get(b) } : {}) };
  }
  return { data };
}

export function netDrift(rows: readonly OracleRow[], body: Body): Record<string, any> {
  const t = singleTicker(body);
  const prices = t ? lastPrices(rows, body, t) : null;
  const mid = (rs: OracleRow[], ct: string) => {
    const m = rs.filter((r) => r.contractType === ct && r.tradeSideCode === 'MID_MARKET');
    const contracts = m.reduce((s, r) => s + r.size, 0);
    return contracts === 0 ? 0 : m.reduce((s, r) => s + cents(r.premium), 0) / contracts / 100;
  };
  const data: Record<string, any> = {};
  for (const [b, rs] of byBucket(matching(rows, body), body.aggregationPeriod)) {
    data[String(b)] = {
      midMarketCallPremium: mid(rs, 'CALL'),
      midMarketPutPremium: mid(rs, 'PUT'),
      netCallPremium: net(rs, 'CALL', 'cents') / 100,
      netPutPremium: net(rs, 'PUT', 'cents') / 100,
      netCallVolume: net(rs, 'CALL', 'contracts'),
      netPutVolume: net(rs, 'PUT', 'contracts'),
      ...(prices ? { stockPrice: prices.get(b) } : {}),
    };
  }
  return { data };
}

export function optionPriceOverTime(rows: readonly OracleRow[], body: Body): Record<string, any> {
  const f = body.filter;
  const s = selected(rows, body);
  const rs = s.rows.filter(
    (r) =>
      (!s.window || (r.tradeTime >= s.window.startMs && r.tradeTime < s.window.endMs)) &&
      (f.osi
        ? r.osi === f.osi.toUpperCase()
        : r.ticker === f.ticker && r.expirationDate === f.expirationDate && r.strikePrice === f.strikePrice && r.contractType === f.contractType),
  );
  const data: Record<string, any> = {};
  for (const [b, bs] of byBucket(rs, body.aggregationPeriod)) {
    const ordered = [...bs].sort((x, y) => x.tradeTime - y.tradeTime || (x.rowKey < y.rowKey ? -1 : 1));
    data[String(b)] = {
      openPrice: ordered[0].optionPrice,
      highPrice: Math.max(...bs.map((r) => r.optionPrice)),
      lowPrice: Math.min(...bs.map((r) => r.optionPrice)),
      closePrice: ordered[ordered.length - 1].optionPrice,
      volume: bs.reduce((n, r) => n + r.size, 0),
    };
  }
  return { data };
}
