import { Packr } from 'msgpackr';
import { openInterestFlags, type ComprisingTrade, type OrderFlowCommon } from '../../domain/order-flow';
import { upgradeOrderFlowEvent } from '../../domain/order-flow-upgrade';
import { configuredRiskFreeRate } from '../../domain/rates';
import type { Greeks } from '../../domain/pricing';
import type { OrderFlowRow } from './keys';

// ---------------------------------------------------------------------------------------------
// Stored row encoding. A row is kept as a positional array (no field names, closed value sets
// as their index, booleans as 0/1) in MessagePack (msgpackr); rowKey and sessionDate are not
// stored (the hash field and the key carry them) and the three open-interest flags are not
// stored either: they are a function of the row and its stored openInterest
// (openInterestFlags), re-derived on decode. Every value is kept exactly (a double as its 8
// bytes, an integer as an integer).
//
// Why MessagePack rather than JSON text: printing ~20 doubles per row made JSON.stringify the
// projector's largest single cost, and the packed row is a third smaller. The same array stored
// as JSON text (the earlier form) still decodes (a JSON array starts with '[', 0x5b; a
// MessagePack array with 0x90-0x9f, 0xdc or 0xdd), so an older view needs no rebuild: the
// projector replaces such a row when it writes it again (the stored bytes differ, the row does not).
//
//   [id, osi, ticker, contractType#, strikePrice, expirationDate, dte, premium, size, volume,
//    stockPrice, askPrice, bidPrice, bidAskSpread, optionPrice, impliedVolatility|null,
//    [charm, color, delta, gamma, omega, rho, sigma, speed, theta, ultima, vanna, vega, veta,
//     vomma, zomma]|null (GREEK_NAMES order), [degree, degreeInPercent, moneyType#],
//    tradeSideCode#, sentimentType#, tradeType#|string, isETF, isIndex, sector, industry,
//    exchange, tradeTime, openInterest
//    (consolidated:) , tradeConsolidationType#, isGoldenSweep, lastTradeTime
//    , 2 (the layout)]
// ---------------------------------------------------------------------------------------------

// Layout 2 (ORDER_FLOW_LAYOUT_FORMAT, projections/order-flow/projections.ts): a change to the
// positions or to a dictionary's order needs that format bumped, which rebuilds older views.
// A layout-2 row ends with its layout number; a layout-1 row (one element shorter: seven greeks,
// moneyness as a fraction of the strike, the earlier trade-type names) still decodes, upgraded
// to the current shape (upgradeOrderFlowEvent), because the API reads the old version of a view
// while the projector rebuilds the new one.
// The codec's own dictionaries (a value is stored as its index here; a value not listed is stored
// as its string). They are copies, not the domain lists, so that a change to a domain list never
// changes how stored rows decode: append only — reordering would need a view rebuild.
const CONTRACT_TYPES = ['CALL', 'PUT'] as const;
const CODEC_MONEY_TYPES = ['ATM', 'ITM', 'OTM'] as const;
const CODEC_TRADE_SIDES = ['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID'] as const;
const CODEC_SENTIMENTS = ['BULLISH', 'BEARISH', 'NEUTRAL'] as const;
const CODEC_TRADE_TYPES = [
  'AUTO',
  'ISO',
  'AUCT',
  'AUCT_ISO',
  'CROSS',
  'CROSS_ISO',
  'FLR',
  'MULTI_AUTO',
  'MULTI_AUCT',
  'MULTI_CROSS',
  'MULTI_FLR',
  'M2S_AUTO',
  'M2S_AUCT',
  'M2S_FLR',
  'TIED_AUTO',
  'TIED_AUCT',
  'TIED_CROSS',
  'TIED_FLR',
] as const;
const CODEC_CONSOLIDATION_TYPES = ['SWEEP', 'BLOCK', 'SPLIT'] as const;
/** Greek positions in the stored array (copied like the dictionaries). */
const CODEC_GREEKS = [
  'charm',
  'color',
  'delta',
  'gamma',
  'omega',
  'rho',
  'sigma',
  'speed',
  'theta',
  'ultima',
  'vanna',
  'vega',
  'veta',
  'vomma',
  'zomma',
] as const satisfies readonly (keyof Greeks)[];
const PRINT_ROW_LENGTH = 28;
const CONSOLIDATED_ROW_LENGTH = 31;
const ROW_LAYOUT = 2;
/** Layout 1's dictionaries and greek positions (to decode rows stored before layout 2). */
const LAYOUT1_TRADE_TYPES = ['ELECTRONIC', 'AUCTION', 'INTERMARKET_SWEEP', 'CROSS', 'MULTI_LEG', 'OTHER'] as const;
const LAYOUT1_CONSOLIDATION_TYPES = ['SWEEP', 'BLOCK', 'SPLIT', 'SINGLE'] as const;
const LAYOUT1_GREEKS = ['delta', 'gamma', 'theta', 'vega', 'rho', 'charm', 'vanna'] as const;
/**
 * Plain MessagePack: arrays, numbers, strings and nil only (no msgpackr record extension). `pack`
 * returns a slice of msgpackr's output buffer, which later packs write after, never over.
 */
const STORED_PACKR = new Packr({ useRecords: false });
const JSON_ARRAY_START = 0x5b; // '['

function idx(list: readonly string[], v: string): number | string {
  const i = list.indexOf(v);
  return i < 0 ? v : i;
}
function sym<T extends string>(list: readonly T[], v: unknown): T {
  return (typeof v === 'number' ? list[v] : v) as T;
}

/** The stored form of a row (see above). */
export function encodeRow(row: OrderFlowRow): Buffer {
  const g = row.greeks;
  const m = row.moneyness;
  const a: unknown[] = [
    row.id,
    row.osi,
    row.ticker,
    idx(CONTRACT_TYPES, row.contractType),
    row.strikePrice,
    row.expirationDate,
    row.dte,
    row.premium,
    row.size,
    row.volume,
    row.stockPrice,
    row.askPrice,
    row.bidPrice,
    row.bidAskSpread,
    row.optionPrice,
    row.impliedVolatility ?? null,
    g ? CODEC_GREEKS.map((n) => g[n]) : null,
    [m.degree, m.degreeInPercent, idx(CODEC_MONEY_TYPES, m.moneyType)],
    idx(CODEC_TRADE_SIDES, row.tradeSideCode),
    idx(CODEC_SENTIMENTS, row.sentimentType),
    idx(CODEC_TRADE_TYPES, row.tradeType),
    row.isETF ? 1 : 0,
    row.isIndex ? 1 : 0,
    row.sector,
    row.industry,
    row.exchange,
    row.tradeTime,
    row.openInterest,
  ];
  if ('tradeConsolidationType' in row) a.push(idx(CODEC_CONSOLIDATION_TYPES, row.tradeConsolidationType), row.isGoldenSweep ? 1 : 0, row.lastTradeTime);
  a.push(ROW_LAYOUT);
  return STORED_PACKR.pack(a);
}

function decodeGreeks(g: readonly number[]): Greeks {
  const out = {} as Record<keyof Greeks, number>;
  for (let i = 0; i < CODEC_GREEKS.length; i++) out[CODEC_GREEKS[i]] = g[i];
  return out;
}

/** A stored array: MessagePack, or JSON text (rows and comprising trades of the earlier form). */
function unpackStored(stored: Buffer | string): unknown[] {
  const json = typeof stored === 'string' || stored[0] === JSON_ARRAY_START;
  return (json ? JSON.parse(stored.toString()) : STORED_PACKR.unpack(stored)) as unknown[];
}

/**
 * The ticker of a stored row read from its MessagePack bytes without decoding the row (the move
 * to the warm tier groups a session's rows by ticker before it decodes any); undefined for a row
 * stored as JSON, or whose id, OSI or ticker is not a string of up to 65,535 bytes.
 */
export function storedTicker(stored: Buffer | string): string | undefined {
  if (typeof stored === 'string') return undefined;
  const h = stored[0];
  let at = h >= 0x93 && h <= 0x9f ? 1 : h === 0xdc ? 3 : h === 0xdd ? 5 : -1;
  if (at < 0) return undefined;
  // Positions 0, 1 and 2: id, osi, ticker (encodeRow).
  for (let field = 0; ; field++) {
    const t = stored[at];
    let len: number;
    let start: number;
    if (t >= 0xa0 && t <= 0xbf) [len, start] = [t & 0x1f, at + 1];
    else if (t === 0xd9 && at + 1 < stored.length) [len, start] = [stored[at + 1], at + 2];
    else if (t === 0xda && at + 2 < stored.length) [len, start] = [stored.readUInt16BE(at + 1), at + 3];
    else return undefined;
    if (start + len > stored.length) return undefined;
    if (field === 2) return stored.toString('utf8', start, start + len);
    at = start + len;
  }
}

/** A row from its stored form, the hash field (rowKey) and the session of its key. */
export function decodeRow<R extends OrderFlowRow = OrderFlowRow>(stored: Buffer | string, rowKey: string, sessionDate: string): R {
  const a = unpackStored(stored);
  const layout1 = a.length === PRINT_ROW_LENGTH || a.length === CONSOLIDATED_ROW_LENGTH;
  const g = a[16] as number[] | null;
  const m = a[17] as [number, number, number | string];
  // One object built in place (decoding is the reader's hot path when it scans candidates).
  const row: Record<string, unknown> = {
    rowKey,
    id: a[0],
    sessionDate,
    osi: a[1],
    ticker: a[2],
    contractType: sym(CONTRACT_TYPES, a[3]),
    strikePrice: a[4],
    expirationDate: a[5],
    dte: a[6],
    premium: a[7],
    size: a[8],
    volume: a[9],
    stockPrice: a[10],
    askPrice: a[11],
    bidPrice: a[12],
    bidAskSpread: a[13],
    optionPrice: a[14],
    impliedVolatility: a[15],
    greeks: g ? (layout1 ? decodeLayout1Greeks(g) : decodeGreeks(g)) : null,
    moneyness: { degree: m[0], degreeInPercent: m[1], moneyType: sym(CODEC_MONEY_TYPES, m[2]) },
    tradeSideCode: sym(CODEC_TRADE_SIDES, a[18]),
    sentimentType: sym(CODEC_SENTIMENTS, a[19]),
    tradeType: sym(layout1 ? LAYOUT1_TRADE_TYPES : CODEC_TRADE_TYPES, a[20]),
    isETF: a[21] === 1,
    isIndex: a[22] === 1,
    sector: a[23],
    industry: a[24],
    exchange: a[25],
    tradeTime: a[26],
  };
  if (a.length >= CONSOLIDATED_ROW_LENGTH) {
    row.tradeConsolidationType = sym(layout1 ? LAYOUT1_CONSOLIDATION_TYPES : CODEC_CONSOLIDATION_TYPES, a[28]);
    row.isGoldenSweep = a[29] === 1;
    row.lastTradeTime = a[30];
  }
  const f = openInterestFlags({ size: a[8] as number, volume: a[9] as number, premium: a[7] as number }, a[27] as number);
  row.openInterest = f.openInterest;
  row.isOpeningPosition = f.isOpeningPosition;
  row.isVolumeGreaterThanOpenInterest = f.isVolumeGreaterThanOpenInterest;
  row.isUnusual = f.isUnusual;
  if (layout1) {
    row.rowFormat = 1;
    upgradeOrderFlowEvent(row as unknown as OrderFlowCommon, riskFreeRate());
    delete row.rowFormat;
  }
  return row as unknown as R;
}

// The rate layout-1 rows are re-priced with (the processor's): read once, on first need.
let rate: number | undefined;
function riskFreeRate(): number {
  return (rate ??= configuredRiskFreeRate());
}

function decodeLayout1Greeks(g: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < LAYOUT1_GREEKS.length; i++) out[LAYOUT1_GREEKS[i]] = g[i];
  return out;
}

/**
 * Stored comprising trades, MessagePack like the rows: `[osi, [id, tradeTime, exchange,
 * optionPrice, size, premium, tradeSideCode#, bidPrice, askPrice(, osi when it differs from the
 * first)], ...]`.
 */
export function encodeComprising(trades: readonly ComprisingTrade[]): Buffer {
  const osi = trades.length ? trades[0].osi : '';
  const out: unknown[] = [osi];
  for (const t of trades) {
    const e: unknown[] = [t.id, t.tradeTime, t.exchange, t.optionPrice, t.size, t.premium, idx(CODEC_TRADE_SIDES, t.tradeSideCode), t.bidPrice, t.askPrice];
    if (t.osi !== osi) e.push(t.osi);
    out.push(e);
  }
  return STORED_PACKR.pack(out);
}

export function decodeComprising(stored: Buffer | string): ComprisingTrade[] {
  const [osi, ...trades] = unpackStored(stored) as [string, ...unknown[][]];
  return trades.map((e) => ({
    id: e[0] as string,
    osi: (e[9] as string | undefined) ?? osi,
    tradeTime: e[1] as number,
    exchange: e[2] as string,
    optionPrice: e[3] as number,
    size: e[4] as number,
    premium: e[5] as number,
    tradeSideCode: sym(CODEC_TRADE_SIDES, e[6]),
    bidPrice: e[7] as number,
    askPrice: e[8] as number,
  }));
}
