import { Packr } from 'msgpackr';
import {
  TRADE_SIDES,
  openInterestFlags,
  type ComprisingTrade,
  type ConsolidatedTradeEvent,
  type EnrichedPrintEvent,
  type OpenInterestFlags,
} from '../domain/order-flow';
import { SECTORS } from '../domain/enums';
import type { PartitionKeys } from './keys';

/**
 * The order-flow views (one per tape), shared by the projectors (writers) and the API (reader).
 * Every key lives under its partition's hash tag; data keys are per session so a session can be
 * read, rebuilt or dropped on its own.
 *
 *   s                      zset  (lex)  session dates that have rows in this partition
 *   oi:<D>:<ROOT_YYMMDD>   hash  C/P+strike -> start-of-session open interest of session D, one
 *                                hash per contract root and expiration (the OSI's first 12
 *                                characters, spaces as '_'): small hashes stay listpack-encoded,
 *                                ~17 bytes a contract instead of ~87 in one big hash per session
 *   <D>:r                  hash  rowKey -> row, MessagePack (OrderFlowPrintRow / OrderFlowConsolidatedRow; encodeRow)
 *   <D>:ct                 hash  rowKey -> comprising trades, MessagePack (consolidated view only)
 *   <D>:x:<sort>           zset  every row, ordered by a sort field (SORT_INDEXES)
 *   <D>:tk:<TICKER>        zset  rows of one underlying, by tradeTime
 *   <D>:os:<OSI>           zset  rows of one contract, by tradeTime (also drives the open-interest join)
 *   <D>:pt:<tier>          zset  rows with premium >= tier dollars (PREMIUM_TIERS), by tradeTime
 *   <D>:un                 zset  rows with isUnusual, by tradeTime
 *   <D>:cx:<tier>:<CT>:<SIDE>:<SECTOR>
 *                          zset  rows of one (premium tier, contract type, trade side, sector)
 *                                combination, by tradeTime (COMBO_DIMENSIONS): a filter on these
 *                                fields reads a union of a few such sets, holding only matches
 *   <D>:st                 hash  statistics counters of every row (statField)
 *   <D>:st:<TICKER>        hash  the same per underlying
 *
 * Index zsets have all scores 0 and members `<sortKey>:<rowKey>`: ZRANGE BYLEX walks
 * (sort value, rowKey) in order, so the tie-break on rowKey is exact and a cursor
 * (sortKey, rowKey) resumes with no row served twice or skipped, however many rows tie.
 */

export const ORDER_FLOW_PRINTS_VIEW = 'order-flow-prints';
export const ORDER_FLOW_CONSOLIDATED_VIEW = 'order-flow-consolidated';

/** A stored unconsolidated row: the enriched print plus the open-interest join. */
export type OrderFlowPrintRow = Omit<EnrichedPrintEvent, 'printId'> & OpenInterestFlags;
/** A stored consolidated row (comprising trades are stored beside it, read only on request). */
export type OrderFlowConsolidatedRow = Omit<ConsolidatedTradeEvent, 'comprisingTrades' | 'version'> & OpenInterestFlags;
export type OrderFlowRow = OrderFlowPrintRow | OrderFlowConsolidatedRow;
export type { ComprisingTrade };

/** Sort orders kept as indexes: the canonical field name -> index suffix and the row value. */
export const SORT_INDEXES = {
  TRADE_TIME: { suffix: 'time', value: (r: OrderFlowRow) => r.tradeTime },
  PREMIUM: { suffix: 'premium', value: (r: OrderFlowRow) => r.premium },
  SIZE: { suffix: 'size', value: (r: OrderFlowRow) => r.size },
  VOLUME: { suffix: 'volume', value: (r: OrderFlowRow) => r.volume },
  DTE: { suffix: 'dte', value: (r: OrderFlowRow) => r.dte },
  STRIKE_PRICE: { suffix: 'strike', value: (r: OrderFlowRow) => r.strikePrice },
} as const;
export type IndexedSort = keyof typeof SORT_INDEXES;
export const INDEXED_SORTS = Object.keys(SORT_INDEXES) as IndexedSort[];

/** Premium thresholds (dollars) with their own by-time index, for "big flow" filters. */
export const PREMIUM_TIERS = [100_000, 500_000, 1_000_000] as const;

/**
 * The dimensions of the combination index (`<D>:cx:...`): every row is in exactly one set, named
 * by the highest premium tier it reaches (0 below the lowest), its contract type, trade side and
 * sector. A query pinning some of them reads the union of the sets its values allow (an
 * unpinned dimension enumerates every value), each in tradeTime order, so a selective filter
 * such as "PUT, premium >= $500k, ASK, TECHNOLOGY" reads only the matching rows. A value outside
 * these lists (not produced today) is filed under the dimension's last value: an unpinned
 * dimension enumerates it, and a pinned filter value (always a listed one) never matches such a
 * row anyway, so no match is ever missed (the row predicate still decides).
 */
export const COMBO_DIMENSIONS = {
  tier: [0, ...PREMIUM_TIERS] as readonly number[],
  contractType: ['CALL', 'PUT'] as readonly string[],
  tradeSide: TRADE_SIDES as readonly string[],
  sector: SECTORS as readonly string[],
};

/** The highest premium tier a premium reaches, 0 below the lowest. */
export function premiumTierOf(premium: number): number {
  return COMBO_DIMENSIONS.tier[premiumTierPosition(premium)];
}

export type Combo = [tier: number, contractType: string, tradeSide: string, sector: string];

/** The set a dimension value is filed under: itself, or the dimension's last value when off-list. */
function inList(list: readonly string[], v: string): string {
  return list[listPosition(list, v)];
}

/** The combination set of a row. */
export function comboOf(row: Pick<OrderFlowRow, 'premium' | 'contractType' | 'tradeSideCode' | 'sector'>): Combo {
  const d = COMBO_DIMENSIONS;
  return [premiumTierOf(row.premium), inList(d.contractType, row.contractType), inList(d.tradeSide, row.tradeSideCode), inList(d.sector, row.sector)];
}

/**
 * Every combination set that can hold a row with these values (absent: any value) and a premium
 * within [lo, hi] (null: open): the tiers whose premium span overlaps the range, times the sets
 * the values are filed under.
 */
export function combosAllowing(o: {
  contractTypes?: readonly string[];
  tradeSides?: readonly string[];
  sectors?: readonly string[];
  premium?: readonly [number | null, number | null];
}): Combo[] {
  const D = COMBO_DIMENSIONS;
  const [lo, hi] = o.premium ?? [null, null];
  // A tier's set holds premiums from the tier up to the next tier.
  const tiers = D.tier.filter((t, i) => (hi === null || t <= hi) && (lo === null || i === D.tier.length - 1 || D.tier[i + 1] > lo));
  const pick = (all: readonly string[], want?: readonly string[]) => (want ? [...new Set(want.map((v) => inList(all, v)))] : all);
  const out: Combo[] = [];
  for (const t of tiers)
    for (const c of pick(D.contractType, o.contractTypes))
      for (const s of pick(D.tradeSide, o.tradeSides)) for (const x of pick(D.sector, o.sectors)) out.push([t, c, s, x]);
  return out;
}

/**
 * The keys of one partition of an order-flow view. A class rather than an object of arrow
 * functions: the API builds one per partition per request, and an object literal of closures
 * costs an allocation (and, run through tsx, a name-keeping call) per function each time.
 */
export class OrderFlowKeys {
  readonly sessions: string;
  private readonly sessionKeys = new Map<string, SessionIndexKeys>();

  constructor(private readonly p: PartitionKeys) {
    this.sessions = p.key('s');
  }

  /**
   * The index keys of session D, each string built once for the life of this object: a
   * projector chunk names every index key once per row, and a reused string also keeps its
   * hash for the writer's per-key maps.
   */
  indexKeys(d: string): SessionIndexKeys {
    let s = this.sessionKeys.get(d);
    if (!s) this.sessionKeys.set(d, (s = new SessionIndexKeys(this, d)));
    return s;
  }

  /** The open-interest hash holding a contract of session D (field: openInterestField(osi)). */
  openInterest(d: string, osi: string): string {
    return this.p.key('oi', d, osiBucket(osi));
  }
  rows(d: string): string {
    return this.p.key(d, 'r');
  }
  comprising(d: string): string {
    return this.p.key(d, 'ct');
  }
  sorted(d: string, s: IndexedSort): string {
    return this.p.key(d, 'x', SORT_INDEXES[s].suffix);
  }
  ticker(d: string, t: string): string {
    return this.p.key(d, 'tk', t);
  }
  contract(d: string, osi: string): string {
    return this.p.key(d, 'os', osi.replace(/ /g, '_'));
  }
  premiumTier(d: string, tier: number): string {
    return this.p.key(d, 'pt', String(tier));
  }
  unusual(d: string): string {
    return this.p.key(d, 'un');
  }
  combo(d: string, c: Readonly<Combo>): string {
    return this.p.key(d, 'cx', String(c[0]), c[1], c[2], c[3]);
  }
  stats(d: string): string {
    return this.p.key(d, 'st');
  }
  tickerStats(d: string, t: string): string {
    return this.p.key(d, 'st', t);
  }
}

export function orderFlowKeys(p: PartitionKeys): OrderFlowKeys {
  return new OrderFlowKeys(p);
}

/** Memoized index keys of one session of one partition (OrderFlowKeys.indexKeys). */
export class SessionIndexKeys {
  /** By INDEXED_SORTS position. */
  readonly sorted: readonly string[];
  /** By PREMIUM_TIERS position. */
  readonly premiumTiers: readonly string[];
  readonly unusual: string;
  readonly stats: string;
  private readonly tickers = new Map<string, string>();
  private readonly tickerStatKeys = new Map<string, string>();
  private readonly contracts = new Map<string, string>();
  private readonly combos = new Map<number, string>();

  constructor(
    private readonly k: OrderFlowKeys,
    readonly d: string,
  ) {
    this.sorted = INDEXED_SORTS.map((x) => k.sorted(d, x));
    this.premiumTiers = PREMIUM_TIERS.map((t) => k.premiumTier(d, t));
    this.unusual = k.unusual(d);
    this.stats = k.stats(d);
  }

  ticker(t: string): string {
    return this.memo(this.tickers, t, 'ticker');
  }

  contract(osi: string): string {
    return this.memo(this.contracts, osi, 'contract');
  }

  tickerStats(t: string): string {
    return this.memo(this.tickerStatKeys, t, 'tickerStats');
  }

  // The key builder by name rather than a closure per call: this runs ~3 times per projected row.
  private memo(m: Map<string, string>, x: string, build: 'ticker' | 'contract' | 'tickerStats'): string {
    let key = m.get(x);
    if (key === undefined) m.set(x, (key = this.k[build](this.d, x)));
    return key;
  }

  /** The combination set of a row (comboOf), found by a number rather than a joined string. */
  combo(row: Pick<OrderFlowRow, 'premium' | 'contractType' | 'tradeSideCode' | 'sector'>): string {
    const D = COMBO_DIMENSIONS;
    const id =
      ((premiumTierPosition(row.premium) * D.contractType.length + listPosition(D.contractType, row.contractType)) * D.tradeSide.length +
        listPosition(D.tradeSide, row.tradeSideCode)) *
        D.sector.length +
      listPosition(D.sector, row.sector);
    let key = this.combos.get(id);
    if (key === undefined) this.combos.set(id, (key = this.k.combo(this.d, comboOf(row))));
    return key;
  }
}

/** Position of the highest premium tier reached in COMBO_DIMENSIONS.tier (0: below the lowest). */
function premiumTierPosition(premium: number): number {
  let i = 0;
  for (let j = 0; j < PREMIUM_TIERS.length; j++) if (premium >= PREMIUM_TIERS[j]) i = j + 1;
  return i;
}

/** The position of the set a value is filed under (inList): itself, or the last when off-list. */
function listPosition(list: readonly string[], v: string): number {
  const i = list.indexOf(v);
  return i < 0 ? list.length - 1 : i;
}

function osiBucket(osi: string): string {
  return (osi.length === 21 ? osi.slice(0, 12) : osi).replace(/ /g, '_');
}

/** A contract's field in its open-interest hash: right and strike (the OSI's last 9 characters). */
export function openInterestField(osi: string): string {
  return osi.length === 21 ? osi.slice(12) : '-';
}

/** Statistics counter field: `<contractType>|<tradeSide>|<p|n|v>` (premium cents, trade count, contracts). */
export function statField(contractType: string, side: string, what: 'p' | 'n' | 'v'): string {
  return `${contractType}|${side}|${what}`;
}

export const ROW_KEY_LENGTH = 10;

/** The partition a rowKey came from (its first two digits). */
export function partitionOfRowKey(rowKey: string): number {
  return Number(rowKey.slice(0, 2));
}

/**
 * Order-preserving string encoding of a sort value: numbers as 'n' + 16 hex digits of the IEEE
 * 754 bits with the sign handled (so string order = numeric order, negatives included), strings
 * as 's' + the string, booleans 'b0'/'b1', null as '0' (sorts lowest). Index members use the
 * numeric form only, which is fixed width.
 */
export function encodeSortKey(v: number | string | boolean | null | undefined): string {
  if (v === null || v === undefined) return '0';
  if (typeof v === 'boolean') return v ? 'b1' : 'b0';
  if (typeof v === 'string') return `s${v}`;
  // The projector encodes ~7 keys per row: one scratch word and a byte -> hex table instead of a
  // Buffer and its hex codec per call.
  SCRATCH.setFloat64(0, v === 0 ? 0 : v); // big-endian; -0 sorts as 0
  let hi = SCRATCH.getUint32(0);
  let lo = SCRATCH.getUint32(4);
  if (hi & 0x80000000) {
    hi = ~hi;
    lo = ~lo;
  } else hi |= 0x80000000;
  return `n${HEX[(hi >>> 24) & 0xff]}${HEX[(hi >>> 16) & 0xff]}${HEX[(hi >>> 8) & 0xff]}${HEX[hi & 0xff]}${HEX[(lo >>> 24) & 0xff]}${HEX[(lo >>> 16) & 0xff]}${HEX[(lo >>> 8) & 0xff]}${HEX[lo & 0xff]}`;
}
const SCRATCH = new DataView(new ArrayBuffer(8));
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Whether a key (from a client's cursor) has the shape encodeSortKey gives values of that kind. */
export function isSortKeyOf(kind: 'number' | 'boolean' | 'string', key: string): boolean {
  if (key === '0') return true; // null
  if (kind === 'number') return /^n[0-9a-f]{16}$/.test(key);
  if (kind === 'boolean') return key === 'b0' || key === 'b1';
  return /^s.{1,64}$/s.test(key);
}

export function decodeNumericSortKey(key: string): number | null {
  if (!/^n[0-9a-f]{16}$/.test(key)) return null;
  const buf = Buffer.from(key.slice(1), 'hex');
  if (buf[0] & 0x80) buf[0] &= 0x7f;
  else for (let i = 0; i < 8; i++) buf[i] = ~buf[i] & 0xff;
  return buf.readDoubleBE(0);
}

export function indexMember(sortKey: string, rowKey: string): string {
  return `${sortKey}:${rowKey}`;
}

export function parseIndexMember(member: string): { sortKey: string; rowKey: string } {
  return { sortKey: member.slice(0, member.length - ROW_KEY_LENGTH - 1), rowKey: member.slice(member.length - ROW_KEY_LENGTH) };
}

/**
 * Statistics of a result (includeStatistics): per contract type, per trade side, the premium
 * (dollars), the number of rows and the contracts traded. Every type and side is present.
 */
export type SideStatistics = { premium: number; tradeCount: number; volume: number };
export type OrderFlowStatistics = Record<'CALL' | 'PUT', Record<'ABOVE_ASK' | 'ASK' | 'MID_MARKET' | 'BID' | 'BELOW_BID', SideStatistics>>;

/** Order of two (sortKey, rowKey) pairs, ascending: negative, zero or positive. */
export function compareKeys(aSort: string, aRow: string, bSort: string, bRow: string): number {
  if (aSort !== bSort) return aSort < bSort ? -1 : 1;
  return aRow < bRow ? -1 : aRow > bRow ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Stored row encoding. A row is kept as a positional array (no field names, closed value sets
// as their index, booleans as 0/1) in MessagePack (msgpackr); rowKey and sessionDate are not
// stored (the hash field and the key carry them) and the three open-interest flags are not
// stored either: they are a function of the row and its stored openInterest
// (openInterestFlags), re-derived on decode. Every value is kept exactly (a double as its 8
// bytes, an integer as an integer).
//
// Until 2026-11-25 the array was JSON text. Printing ~20 doubles per row made JSON.stringify
// the projector's largest single cost (3.4 µs against 1.4 µs packed, 3.0-3.3 µs against 1.9
// µs to read back; 427 against 284 bytes per print row), so rows are MessagePack now. Rows
// stored as JSON still decode (a JSON array starts with '[', 0x5b; a MessagePack array with
// 0x90-0x9f, 0xdc or 0xdd), so a view written before needs no rebuild: the projector replaces
// such a row when it writes it again (the stored bytes differ, the row does not).
//
//   [id, osi, ticker, contractType#, strikePrice, expirationDate, dte, premium, size, volume,
//    stockPrice, askPrice, bidPrice, bidAskSpread, optionPrice, impliedVolatility|null,
//    [delta, gamma, theta, vega, rho, charm, vanna]|null, [degree, degreeInPercent, moneyType#],
//    tradeSideCode#, sentimentType#, tradeType#|string, isETF, isIndex, sector, industry,
//    exchange, tradeTime, openInterest
//    (consolidated:) , tradeConsolidationType#, isGoldenSweep, lastTradeTime]
// ---------------------------------------------------------------------------------------------

// The codec's own dictionaries (a value is stored as its index here; a value not listed is stored
// as its string). They are copies, not the domain lists, so that a change to a domain list never
// changes how stored rows decode: append only — reordering would need a view rebuild.
const CONTRACT_TYPES = ['CALL', 'PUT'] as const;
const CODEC_MONEY_TYPES = ['ATM', 'ITM', 'OTM'] as const;
const CODEC_TRADE_SIDES = ['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID'] as const;
const CODEC_SENTIMENTS = ['BULLISH', 'BEARISH', 'NEUTRAL'] as const;
const CODEC_TRADE_TYPES = ['ELECTRONIC', 'AUCTION', 'INTERMARKET_SWEEP', 'CROSS', 'MULTI_LEG', 'OTHER'] as const;
const CODEC_CONSOLIDATION_TYPES = ['SWEEP', 'BLOCK', 'SPLIT', 'SINGLE'] as const;
const PRINT_ROW_LENGTH = 28;
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
    g ? [g.delta, g.gamma, g.theta, g.vega, g.rho, g.charm, g.vanna] : null,
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
  return STORED_PACKR.pack(a);
}

/** A stored array: MessagePack, or JSON text (rows and comprising trades written before 2026-11-25). */
function unpackStored(stored: Buffer | string): unknown[] {
  const json = typeof stored === 'string' || stored[0] === JSON_ARRAY_START;
  return (json ? JSON.parse(stored.toString()) : STORED_PACKR.unpack(stored)) as unknown[];
}

/** A row from its stored form, the hash field (rowKey) and the session of its key. */
export function decodeRow<R extends OrderFlowRow = OrderFlowRow>(stored: Buffer | string, rowKey: string, sessionDate: string): R {
  const a = unpackStored(stored);
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
    greeks: g ? { delta: g[0], gamma: g[1], theta: g[2], vega: g[3], rho: g[4], charm: g[5], vanna: g[6] } : null,
    moneyness: { degree: m[0], degreeInPercent: m[1], moneyType: sym(CODEC_MONEY_TYPES, m[2]) },
    tradeSideCode: sym(CODEC_TRADE_SIDES, a[18]),
    sentimentType: sym(CODEC_SENTIMENTS, a[19]),
    tradeType: sym(CODEC_TRADE_TYPES, a[20]),
    isETF: a[21] === 1,
    isIndex: a[22] === 1,
    sector: a[23],
    industry: a[24],
    exchange: a[25],
    tradeTime: a[26],
  };
  if (a.length > PRINT_ROW_LENGTH) {
    row.tradeConsolidationType = sym(CODEC_CONSOLIDATION_TYPES, a[28]);
    row.isGoldenSweep = a[29] === 1;
    row.lastTradeTime = a[30];
  }
  const f = openInterestFlags({ size: a[8] as number, volume: a[9] as number, premium: a[7] as number }, a[27] as number);
  row.openInterest = f.openInterest;
  row.isOpeningPosition = f.isOpeningPosition;
  row.isVolumeGreaterThanOpenInterest = f.isVolumeGreaterThanOpenInterest;
  row.isUnusual = f.isUnusual;
  return row as unknown as R;
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

/** Premium in integer cents, as the statistics counters hold it. */
export function premiumCents(premium: number): number {
  return Math.round(premium * 100);
}

/** Every index a row is a member of: [key, member] pairs (one partition, one session). */
export function rowIndexEntries(k: OrderFlowKeys, row: OrderFlowRow): [key: string, member: string][] {
  const out: [string, string][] = [];
  eachIndexEntry(k, row, (key, member) => out.push([key, member]));
  return out;
}

/** rowIndexEntries without the list: the projector's path for every new row. */
export function eachIndexEntry(k: OrderFlowKeys, row: OrderFlowRow, to: (key: string, member: string) => void): void {
  const s = k.indexKeys(row.sessionDate);
  for (let i = 0; i < SORT_VALUES.length; i++) to(s.sorted[i], indexMember(encodeSortKey(SORT_VALUES[i](row)), row.rowKey));
  const byTime = indexMember(encodeSortKey(row.tradeTime), row.rowKey);
  to(s.ticker(row.ticker), byTime);
  to(s.contract(row.osi), byTime);
  for (let i = 0; i < PREMIUM_TIERS.length; i++) if (row.premium >= PREMIUM_TIERS[i]) to(s.premiumTiers[i], byTime);
  if (row.isUnusual) to(s.unusual, byTime);
  to(s.combo(row), byTime);
}
const SORT_VALUES = INDEXED_SORTS.map((x) => SORT_INDEXES[x].value);

/** Every statistics counter field, in a fixed order (2 types x 5 sides x 3). */
export const STAT_FIELDS: readonly string[] = CONTRACT_TYPES.flatMap((t) =>
  TRADE_SIDES.flatMap((s) => (['p', 'n', 'v'] as const).map((w) => statField(t, s, w))),
);

/**
 * Where a row's counters are in STAT_FIELDS: the premium field's position (the trade count and the
 * contracts follow it), or -1 for a contract type or side outside the lists (never counted).
 */
export function statFieldPosition(contractType: string, side: string): number {
  const t = (CONTRACT_TYPES as readonly string[]).indexOf(contractType);
  const s = (TRADE_SIDES as readonly string[]).indexOf(side);
  return t < 0 || s < 0 ? -1 : (t * TRADE_SIDES.length + s) * 3;
}

/** Statistics with every type and side present and zero. */
export function emptyStatistics(): OrderFlowStatistics {
  const side = () => ({ premium: 0, tradeCount: 0, volume: 0 });
  const type = () => ({ ABOVE_ASK: side(), ASK: side(), MID_MARKET: side(), BID: side(), BELOW_BID: side() });
  return { CALL: type(), PUT: type() };
}

/** Statistics from counter fields (premium cents, count, contracts); missing fields count zero. */
export function statisticsFromCounters(counters: ReadonlyMap<string, number>): OrderFlowStatistics {
  const out = emptyStatistics();
  for (const t of CONTRACT_TYPES) {
    for (const s of TRADE_SIDES) {
      out[t][s] = {
        premium: (counters.get(statField(t, s, 'p')) ?? 0) / 100,
        tradeCount: counters.get(statField(t, s, 'n')) ?? 0,
        volume: counters.get(statField(t, s, 'v')) ?? 0,
      };
    }
  }
  return out;
}
