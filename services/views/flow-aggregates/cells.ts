import type { MoneyType, SentimentType, TradeSide } from '../../domain/order-flow';
import { premiumCents } from '../order-flow/statistics';

/**
 * The flow-aggregates cube, the pure part shared by the projector (writer), the API (reader) and
 * its scan fallback: what one print contributes and how contributions combine.
 *
 * Every aggregate counts **prints** (the unconsolidated tape, derived.order-flow.prints): a print
 * is immutable and appears once, so sums only ever grow, and trade counts agree with the
 * unconsolidated tape's statistics. Consolidated trades are not counted (their side is recomputed
 * from the averaged price, so they would split premium differently).
 *
 * A cell is one combination of the dimensions the endpoints filter on (contract type, trade side,
 * expiration, strike, money type, exchange, sector, industry, isETF, isIndex) within one
 * underlying and one minute (or one whole session); it holds premium in integer cents, prints and
 * contracts. Sentiment is a function of contract type and trade side (projections/enrich), so a
 * sentiment filter is answered from cells too.
 *
 * Cells come at two levels: **contract** cells carry every dimension; **coarse** cells drop the
 * expiration and the strike, which multiply the cells of a busy underlying into nearly one per
 * print. A request that filters on neither (most: one ticker, the whole market, by side, type,
 * exchange or money type) reads the coarse cells, a few hundred per underlying and session.
 */

export interface CellDims {
  ticker: string;
  contractType: 'CALL' | 'PUT';
  tradeSideCode: TradeSide;
  expirationDate: string;
  strikePrice: number;
  moneyness: { moneyType: MoneyType };
  exchange: string;
  sector: string;
  industry: string;
  isETF: boolean;
  isIndex: boolean;
  sentimentType: SentimentType;
}

/** A cell: dimensions named as on an order-flow row (so a row predicate over them applies), and sums. */
export interface FlowCell extends CellDims {
  /** Start of the cell's minute (epoch-ms), or null for a whole-session cell. */
  minute: number | null;
  /** A whole-session cell's session date, once read (reader.ts); absent on minute cells. */
  sessionDate?: string;
  premiumCents: number;
  tradeCount: number;
  volume: number;
  /** A premium-tier cell's premium: one within its tier (tierPremium), for the request's premium range to test. */
  premium?: number;
}

/** The fields of a print that the cube reads. */
export type CubePrint = Omit<CellDims, 'moneyness' | 'sentimentType'> & {
  moneyness: { moneyType: MoneyType };
  sentimentType?: SentimentType;
  rowKey: string;
  sessionDate: string;
  osi: string;
  premium: number;
  size: number;
  optionPrice: number;
  stockPrice: number;
  tradeTime: number;
};

/** The row fields a cell carries: a filter or expression reading only these is answered from the cube. */
export const CUBE_FIELDS: ReadonlySet<string> = new Set([
  'TICKER',
  'CONTRACT_TYPE',
  'TRADE_SIDE_CODE',
  'EXPIRATION_DATE',
  'STRIKE_PRICE',
  'MONEY_TYPE',
  'EXCHANGE',
  'SECTOR',
  'INDUSTRY',
  'IS_ETF',
  'IS_INDEX',
  'SENTIMENT_TYPE',
]);

/** The row fields only contract-level cells carry. */
export const CONTRACT_FIELDS: ReadonlySet<string> = new Set(['EXPIRATION_DATE', 'STRIKE_PRICE']);

/**
 * The row fields net cells carry: contract type and side (sentiment follows from them). An answer
 * that folds by nothing else and filters on nothing else reads the market's net cells.
 */
export const NET_FIELDS: ReadonlySet<string> = new Set(['CONTRACT_TYPE', 'TRADE_SIDE_CODE', 'SENTIMENT_TYPE']);

/** The row fields an exchange cell carries: contract type, side, exchange and the two flags (market-share). */
export const EXCHANGE_FIELDS: ReadonlySet<string> = new Set([...NET_FIELDS, 'EXCHANGE', 'IS_ETF', 'IS_INDEX']);

/**
 * The row fields a ticker-net cell carries: the underlying with what is constant per underlying
 * (sector, industry, the flags), contract type and side (gainers-losers).
 */
export const TICKER_NET_FIELDS: ReadonlySet<string> = new Set([...NET_FIELDS, 'TICKER', 'SECTOR', 'INDUSTRY', 'IS_ETF', 'IS_INDEX']);

/**
 * Premium tiers, by these bounds in dollars: a tier is one bound exactly or the open interval
 * between two neighbours (below the first, above the last). A premium range whose bounds are all
 * tier bounds gives every premium of a tier the same verdict, inclusive or exclusive, so such a
 * filter is answered from tier cells instead of a scan of the prints.
 */
export const PREMIUM_TIER_BOUNDS: readonly number[] = [
  1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000,
];

/** The pseudo field of a premium tier: a filter on PREMIUM with tier bounds only reads it instead. */
export const PREMIUM_TIER = 'PREMIUM_TIER';

/** The row fields a premium-tier net cell carries: contract type, side and the premium's tier. */
export const PREMIUM_TIER_FIELDS: ReadonlySet<string> = new Set([...NET_FIELDS, PREMIUM_TIER]);

/** The tier of a premium (dollars, as on the print): `=i` for exactly bound i, else i = the bounds below it. */
export function premiumTier(premium: number): string {
  let i = 0;
  while (i < PREMIUM_TIER_BOUNDS.length && PREMIUM_TIER_BOUNDS[i] < premium) i++;
  return i < PREMIUM_TIER_BOUNDS.length && PREMIUM_TIER_BOUNDS[i] === premium ? `=${i}` : String(i);
}

/** A premium within tier `t`: for a range bounded by tier bounds it gets the verdict of every premium of the tier. */
export function tierPremium(t: string): number {
  const b = PREMIUM_TIER_BOUNDS;
  if (t[0] === '=') return b[Number(t.slice(1))];
  const i = Number(t);
  const lo = i === 0 ? 0 : b[i - 1];
  const hi = i === b.length ? 2 * b[b.length - 1] : b[i];
  return (lo + hi) / 2;
}

/** Whether a premium bound (dollars, or null for none) is a tier bound. */
export const isTierBound = (x: number | null): boolean => x === null || PREMIUM_TIER_BOUNDS.includes(x);

/** contract: every dimension; coarse: no expiration or strike; net: contract type and side only. */
export type CellLevel = 'contract' | 'coarse' | 'net';

/** What a coarse or net cell holds for the dimensions it drops (never read: a request reading them uses finer cells). */
const DROPPED = '*';

export const MINUTE_MS = 60_000;

export function minuteOf(tradeTime: number): number {
  return Math.floor(tradeTime / MINUTE_MS) * MINUTE_MS;
}

const SIDE_CODE: Record<TradeSide, string> = { ABOVE_ASK: 'AA', ASK: 'A', MID_MARKET: 'M', BID: 'B', BELOW_BID: 'BB' };
const SIDE_OF: Record<string, TradeSide> = { AA: 'ABOVE_ASK', A: 'ASK', M: 'MID_MARKET', B: 'BID', BB: 'BELOW_BID' };

/** Sentiment from contract type and side (the enrichment's rule, projections/enrich/enrich-print.ts). */
export function sentimentOfCell(contractType: 'CALL' | 'PUT', side: TradeSide): SentimentType {
  if (side === 'MID_MARKET') return 'NEUTRAL';
  const buy = side === 'ASK' || side === 'ABOVE_ASK';
  return buy === (contractType === 'CALL') ? 'BULLISH' : 'BEARISH';
}

/**
 * A cell's hash field within its underlying's hash: the dimensions, '|'-separated, prefixed by the
 * minute (epoch minutes) in minute hashes. The ticker is the hash's, not the field's.
 */
export function cellField(p: CubePrint, withMinute: boolean, level: CellLevel = 'contract'): string {
  const coarse = level === 'coarse';
  const dims =
    level === 'net'
      ? `${p.contractType === 'CALL' ? 'C' : 'P'}|${SIDE_CODE[p.tradeSideCode]}`
      : [
          p.contractType === 'CALL' ? 'C' : 'P',
          SIDE_CODE[p.tradeSideCode],
          coarse ? DROPPED : p.expirationDate,
          coarse ? DROPPED : String(p.strikePrice),
          p.moneyness.moneyType,
          p.exchange,
          p.sector,
          p.industry,
          `${p.isETF ? 1 : 0}${p.isIndex ? 1 : 0}`,
        ].join('|');
  return withMinute ? `${p.tradeTime >= 0 ? Math.floor(p.tradeTime / MINUTE_MS) : 0}|${dims}` : dims;
}

/**
 * cellField at every level, with and without the minute, built once: the projection files each
 * print under six of them, and joining the dimensions six times was a large part of its CPU.
 * Equal to cellField's strings (unit-tested).
 */
export function cellFields(p: CubePrint): {
  minute: string;
  contract: string;
  coarse: string;
  net: string;
  exchange: string;
  tickerNet: string;
  premiumNet: string;
} {
  const net = `${p.contractType === 'CALL' ? 'C' : 'P'}|${SIDE_CODE[p.tradeSideCode]}`;
  const flags = `${p.isETF ? 1 : 0}${p.isIndex ? 1 : 0}`;
  const rest = `${p.moneyness.moneyType}|${p.exchange}|${p.sector}|${p.industry}|${flags}`;
  return {
    minute: String(p.tradeTime >= 0 ? Math.floor(p.tradeTime / MINUTE_MS) : 0),
    contract: `${net}|${p.expirationDate}|${p.strikePrice}|${rest}`,
    coarse: `${net}|${DROPPED}|${DROPPED}|${rest}`,
    net,
    exchange: `${net}|${p.exchange}|${flags}`,
    tickerNet: `${net}|${p.sector}|${p.industry}|${flags}`,
    premiumNet: `${net}|${premiumTier(p.premium)}`,
  };
}

/** A cell with only contract type, side and sums known; the level's parser fills in what it carries. */
function bareCell(ticker: string, ct: string, side: string, value: string): FlowCell {
  const [p, n, v] = value.split(',').map(Number);
  const contractType = ct === 'C' ? 'CALL' : 'PUT';
  const tradeSideCode = SIDE_OF[side];
  return {
    minute: null,
    ticker,
    contractType,
    tradeSideCode,
    expirationDate: DROPPED,
    strikePrice: NaN,
    moneyness: { moneyType: DROPPED as MoneyType },
    exchange: DROPPED,
    sector: DROPPED,
    industry: DROPPED,
    isETF: false,
    isIndex: false,
    sentimentType: sentimentOfCell(contractType, tradeSideCode),
    premiumCents: p,
    tradeCount: n,
    volume: v,
  };
}

/** A whole-session exchange cell (cellFields().exchange) back as a FlowCell; the ticker is dropped. */
export function parseExchangeCell(field: string, value: string): FlowCell {
  const [ct, side, exchange, flags] = field.split('|');
  const c = bareCell(DROPPED, ct, side, value);
  c.exchange = exchange;
  c.isETF = flags[0] === '1';
  c.isIndex = flags[1] === '1';
  return c;
}

/** A premium-tier net cell (cellFields().premiumNet, after the minute in minute hashes) back as a FlowCell, its premium one within the tier. */
export function parsePremiumNetCell(field: string, value: string, withMinute: boolean): FlowCell {
  const parts = field.split('|');
  const minute = withMinute ? Number(parts.shift()) * MINUTE_MS : null;
  const [ct, side, tier] = parts;
  const c = bareCell(DROPPED, ct, side, value);
  c.minute = minute;
  c.premium = tierPremium(tier);
  return c;
}

/** A ticker-net cell (cellFields().tickerNet, after the minute in minute hashes) of underlying `ticker` back as a FlowCell. */
export function parseTickerNetCell(ticker: string, field: string, value: string, withMinute: boolean): FlowCell {
  const parts = field.split('|');
  const minute = withMinute ? Number(parts.shift()) * MINUTE_MS : null;
  const [ct, side, sector, industry, flags] = parts;
  const c = bareCell(ticker, ct, side, value);
  c.minute = minute;
  c.sector = sector;
  c.industry = industry;
  c.isETF = flags[0] === '1';
  c.isIndex = flags[1] === '1';
  return c;
}

/** A stored cell (field and value) of underlying `ticker` back as a FlowCell. */
export function parseCell(ticker: string, field: string, value: string, withMinute: boolean): FlowCell {
  const parts = field.split('|');
  const minute = withMinute ? Number(parts.shift()) * MINUTE_MS : null;
  // A net cell's field ends after the side: every other dimension is dropped.
  const [ct, side, exp = DROPPED, strike = DROPPED, money = DROPPED, exchange = DROPPED, sector = DROPPED, industry = DROPPED, flags = DROPPED] = parts;
  const [p, n, v] = value.split(',').map(Number);
  const contractType = ct === 'C' ? 'CALL' : 'PUT';
  const tradeSideCode = SIDE_OF[side];
  return {
    minute,
    ticker,
    contractType,
    tradeSideCode,
    expirationDate: exp,
    strikePrice: strike === DROPPED ? NaN : Number(strike),
    moneyness: { moneyType: money as MoneyType },
    exchange,
    sector,
    industry,
    isETF: flags[0] === '1',
    isIndex: flags[1] === '1',
    sentimentType: sentimentOfCell(contractType, tradeSideCode),
    premiumCents: p,
    tradeCount: n,
    volume: v,
  };
}

/** A print as a one-print cell (the scan fallback's unit; the projector sums the same values). */
export function cellOfPrint(p: CubePrint, withMinute: boolean): FlowCell {
  return {
    minute: withMinute ? minuteOf(p.tradeTime) : null,
    ticker: p.ticker,
    contractType: p.contractType,
    tradeSideCode: p.tradeSideCode,
    expirationDate: p.expirationDate,
    strikePrice: p.strikePrice,
    moneyness: { moneyType: p.moneyness.moneyType },
    exchange: p.exchange,
    sector: p.sector,
    industry: p.industry,
    isETF: p.isETF,
    isIndex: p.isIndex,
    sentimentType: sentimentOfCell(p.contractType, p.tradeSideCode),
    premiumCents: premiumCents(p.premium),
    tradeCount: 1,
    volume: p.size,
  };
}

/** Sums `value` ("cents,prints,contracts", or null for none) and a change. */
export function addSums(value: string | null, cents: number, prints: number, contracts: number): string {
  if (value === null) return `${cents},${prints},${contracts}`;
  const [p, n, v] = value.split(',').map(Number);
  return `${p + cents},${n + prints},${v + contracts}`;
}

// --- the last underlying price of a minute -------------------------------------------------

/** The print latest in (tradeTime, rowKey) order wins; rowKey breaks ties, so the result never depends on arrival order. */
export interface LastPrice {
  time: number;
  rowKey: string;
  price: number;
}

export function encodeLast(l: LastPrice): string {
  return `${l.time}|${l.rowKey}|${l.price}`;
}

export function decodeLast(s: string): LastPrice {
  const [t, rk, p] = s.split('|');
  return { time: Number(t), rowKey: rk, price: Number(p) };
}

function later(a: { time: number; rowKey: string }, b: { time: number; rowKey: string }): boolean {
  return a.time > b.time || (a.time === b.time && a.rowKey > b.rowKey);
}

export function laterOf(a: LastPrice | null, b: LastPrice): LastPrice {
  return a === null || later(b, a) ? b : a;
}

// --- the print nearest the money per minute and expiration (volatility-drift) -----------------

/**
 * A print of one underlying, expiration and minute carrying an implied volatility, as the
 * candidate for the minute's at-the-money IV: the print whose strike is nearest its underlying
 * price (|strike - stockPrice|, both as on the print) wins; at equal distance the later in
 * (tradeTime, rowKey) order. That is a total order, so the winner of a minute does not depend on
 * how the topic was chunked (a rebuild gives the same bytes).
 */
export interface AtmPrint {
  strike: number;
  stockPrice: number;
  time: number;
  rowKey: string;
  iv: number;
}

export const atmDistance = (a: Pick<AtmPrint, 'strike' | 'stockPrice'>): number => Math.abs(a.strike - a.stockPrice);

export function nearerAtmOf(a: AtmPrint | null, b: AtmPrint): AtmPrint {
  if (a === null) return b;
  const da = atmDistance(a);
  const db = atmDistance(b);
  if (db !== da) return db < da ? b : a;
  return later(b, a) ? b : a;
}

export function encodeAtm(a: AtmPrint): string {
  return `${a.strike}|${a.stockPrice}|${a.time}|${a.rowKey}|${a.iv}`;
}

export function decodeAtm(s: string): AtmPrint {
  const [k, p, t, rk, iv] = s.split('|');
  return { strike: Number(k), stockPrice: Number(p), time: Number(t), rowKey: rk, iv: Number(iv) };
}

// --- per-contract bars -----------------------------------------------------------------------

/**
 * A trade bar of one contract: open and close are the prints first and last in (tradeTime, rowKey)
 * order, so merging bars is commutative and associative (a replay in any chunking gives the same
 * bar), high and low the extreme prices, volume the contracts.
 */
export interface Bar {
  openTime: number;
  openKey: string;
  open: number;
  high: number;
  low: number;
  closeTime: number;
  closeKey: string;
  close: number;
  volume: number;
}

export function barOfPrint(p: Pick<CubePrint, 'tradeTime' | 'rowKey' | 'optionPrice' | 'size'>): Bar {
  return {
    openTime: p.tradeTime,
    openKey: p.rowKey,
    open: p.optionPrice,
    high: p.optionPrice,
    low: p.optionPrice,
    closeTime: p.tradeTime,
    closeKey: p.rowKey,
    close: p.optionPrice,
    volume: p.size,
  };
}

export function mergeBars(a: Bar | null, b: Bar): Bar {
  if (a === null) return b;
  const bOpensFirst = later({ time: a.openTime, rowKey: a.openKey }, { time: b.openTime, rowKey: b.openKey });
  const bClosesLast = later({ time: b.closeTime, rowKey: b.closeKey }, { time: a.closeTime, rowKey: a.closeKey });
  return {
    openTime: bOpensFirst ? b.openTime : a.openTime,
    openKey: bOpensFirst ? b.openKey : a.openKey,
    open: bOpensFirst ? b.open : a.open,
    high: Math.max(a.high, b.high),
    low: Math.min(a.low, b.low),
    closeTime: bClosesLast ? b.closeTime : a.closeTime,
    closeKey: bClosesLast ? b.closeKey : a.closeKey,
    close: bClosesLast ? b.close : a.close,
    volume: a.volume + b.volume,
  };
}

export function encodeBar(b: Bar): string {
  return [b.openTime, b.openKey, b.open, b.high, b.low, b.closeTime, b.closeKey, b.close, b.volume].join('|');
}

export function decodeBar(s: string): Bar {
  const x = s.split('|');
  return {
    openTime: Number(x[0]),
    openKey: x[1],
    open: Number(x[2]),
    high: Number(x[3]),
    low: Number(x[4]),
    closeTime: Number(x[5]),
    closeKey: x[6],
    close: Number(x[7]),
    volume: Number(x[8]),
  };
}

/** A contract's identity as the cube keys it: underlying, expiration, C/P, strike (the OSI root may differ from the ticker). */
export function contractId(ticker: string, expirationDate: string, contractType: 'CALL' | 'PUT', strikePrice: number): string {
  return `${ticker}|${expirationDate}|${contractType === 'CALL' ? 'C' : 'P'}|${strikePrice}`;
}
