import { optionExpiryMs } from '../../domain/calendar';
import { moneynessOf, openInterestFlags, type Moneyness } from '../../domain/order-flow';
import { bsmGreeks, impliedVolatility, type Greeks } from '../../domain/pricing';
import { RISK_FREE_RATE, configuredRiskFreeRate, dividendYield } from '../../domain/rates';
import type { OrderFlowRow } from './keys';

// ---------------------------------------------------------------------------------------------
// The warm tier's block codec of the order-flow views. A warm block holds up to a few hundred
// rows of ONE ticker of one session in (tradeTime, rowKey) order; the table engine stores it as
// brotli(MessagePack(pack(rows))). This codec only turns the rows into that packed value, shaped
// so that brotli finds little left to squeeze:
//
// - columnar: one array per field, so similar values sit together;
// - integers instead of doubles wherever exact: prices as cents (when c / 100 gives back the very
//   double), times, offsets, sizes and volumes as differences from a prediction (the previous
//   row, the contract's previous row, the bid), so most stored numbers are small;
// - dictionaries (first-appearance order) for strings, and a column that holds one value is
//   stored as that value once;
// - derive and verify: a field that the pipeline computes from other fields of the row (greeks,
//   implied volatility, moneyness, dte, premium, spread, trade side, sentiment, the contract's
//   right, strike and expiration, the golden-sweep flag) is computed again at pack time and
//   compared bit for bit with the row's value; only a value that differs is stored, explicitly.
//   The inputs that are not in the row (the risk-free rate and the dividend yield priced with)
//   are stored in the block, so a later configuration change cannot alter how a block decodes.
// - the row id (a UUID) as its 16 bytes.
//
// Decoding gives exactly decodeRow(encodeRow(row), rowKey, sessionDate) (row-codec.ts): every
// number bit for bit (Object.is), -0 as 0 as MessagePack stores it, the open-interest flags
// re-derived from the stored open interest, and the same keys in the same order.
//
// Stored blocks decode with the derivation functions as they are when read: a change to
// bsmGreeks, impliedVolatility, moneynessOf, optionExpiryMs or this file's own rules (contract
// terms, trade side, sentiment, golden sweep) changes what old blocks decode to, so it needs the order-flow views'
// format bumped (a rebuild). A unit test pins those functions' outputs to catch such a change.
// ---------------------------------------------------------------------------------------------

/** Version of the packed layout (position 0 of a block); unpack refuses any other. */
const WARM_CODEC_VERSION = 1;

// Block positions.
const B_VERSION = 0;
const B_COUNT = 1;
const B_KIND = 2;
const B_RATE = 3;
const B_DIVIDENDS = 4;
const B_ROW_KEY_PREFIX = 5;
const B_ROW_KEY_OFFSET = 6;
const B_IDS = 7;
const B_OSI = 8;
const B_TICKER = 9;
const B_TRADE_TIME = 10;
const B_STOCK = 11;
const B_BID = 12;
const B_ASK = 13;
const B_SIZE = 14;
const B_PRICE_MODE = 15;
const B_PRICE = 16;
const B_PREMIUM_MODE = 17;
const B_PREMIUM = 18;
const B_VOLUME = 19;
const B_OPEN_INTEREST = 20;
const B_IV_MODE = 21;
const B_GREEKS_MODE = 22;
const B_TRADE_TYPE = 23;
const B_EXCHANGE = 24;
const B_SECTOR = 25;
const B_INDUSTRY = 26;
const B_IS_ETF = 27;
const B_IS_INDEX = 28;
const B_CONSOLIDATION_TYPE = 29;
const B_LAST_TRADE_TIME = 30;
const B_EXCEPTIONS = 31;
const B_IV = 32;
const BLOCK_LENGTH = 33;

const KIND_PRINTS = 0;
const KIND_CONSOLIDATED = 1;

// Fields whose value may be stored explicitly (the block's exceptions, by row index).
const F_ROW_KEY = 0;
const F_ID = 1;
const F_CONTRACT_TYPE = 2;
const F_STRIKE = 3;
const F_EXPIRATION = 4;
const F_DTE = 5;
const F_PREMIUM = 6;
const F_SIZE = 7;
const F_VOLUME = 8;
const F_STOCK = 9;
const F_ASK = 10;
const F_BID = 11;
const F_SPREAD = 12;
const F_PRICE = 13;
const F_IV = 14;
const F_GREEKS = 15;
const F_MONEYNESS = 16;
const F_SIDE = 17;
const F_SENTIMENT = 18;
const F_TRADE_TIME = 19;
const F_OPEN_INTEREST = 20;
const F_GOLDEN = 21;
const F_LAST_TRADE_TIME = 22;
const FIELD_COUNT = 23;
const FIELD_NAMES = [
  'rowKey',
  'id',
  'contractType',
  'strikePrice',
  'expirationDate',
  'dte',
  'premium',
  'size',
  'volume',
  'stockPrice',
  'askPrice',
  'bidPrice',
  'bidAskSpread',
  'optionPrice',
  'impliedVolatility',
  'greeks',
  'moneyness',
  'tradeSideCode',
  'sentimentType',
  'tradeTime',
  'openInterest',
  'isGoldenSweep',
  'lastTradeTime',
] as const;

// Modes of the fields derived in more than one way (0 is always "stored explicitly").
const EXPLICIT = 0;
const PRICE_CENTS = 1;
const PRICE_FROM_PREMIUM = 2;
const PREMIUM_CENTS = 1;
const PREMIUM_FROM_PRICE = 2;
const IV_FROM_MID = 1;
const IV_FROM_PRICE = 2;
const IV_NULL = 3;
const IV_STORED = 4;
const GREEKS_DERIVED = 1;
const GREEKS_NULL = 2;

/** Greek order of an explicitly stored greeks array (the codec's own copy, like row-codec's). */
const WARM_GREEKS = [
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

const MS_PER_DAY = 86_400_000;
const DAYS_PER_YEAR = 365;
// Copies of the processor's rules (projections/enrich/enrich-print.ts tradeSideOf, sentimentOf;
// consolidate.ts isGoldenSweep): services do not import projections, and a copy here changes
// only with this codec (a unit test checks they agree with the originals).
const SIDE_TOLERANCE = 1e-6;
const GOLDEN_SWEEP_PREMIUM = 1_000_000;

function tradeSideOf(price: number, bid: number, ask: number): string {
  if (price > ask + SIDE_TOLERANCE) return 'ABOVE_ASK';
  if (price >= ask - SIDE_TOLERANCE) return 'ASK';
  if (price < bid - SIDE_TOLERANCE) return 'BELOW_BID';
  if (price <= bid + SIDE_TOLERANCE) return 'BID';
  return 'MID_MARKET';
}
function sentimentOf(right: string, side: string): string {
  if (side === 'MID_MARKET') return 'NEUTRAL';
  const buy = side === 'ASK' || side === 'ABOVE_ASK';
  return buy === (right === 'CALL') ? 'BULLISH' : 'BEARISH';
}
function isGoldenSweepOf(type: unknown, side: string, premium: number): boolean {
  return type === 'SWEEP' && (side === 'ASK' || side === 'ABOVE_ASK') && premium >= GOLDEN_SWEEP_PREMIUM;
}

/** A number as MessagePack gives it back (-0 is stored as the integer 0); anything else as is. */
export function norm<T>(v: T): T {
  return (v === 0 ? 0 : v) as T;
}

/** The integer number of cents of a value when cents / 100 is exactly that value. */
export function centsOf(v: unknown): number | undefined {
  if (typeof v !== 'number') return undefined;
  const c = Math.round(v * 100);
  return Number.isSafeInteger(c) && Object.is(c / 100, v) ? c : undefined;
}

/** A column of small integers, or the one value they all have. */
export type IntColumn = number | number[];
export function compactInts(a: number[]): IntColumn {
  for (let i = 1; i < a.length; i++) if (a[i] !== a[0]) return a;
  return a.length ? a[0] : 0;
}
export function intAt(c: IntColumn, i: number): number {
  return typeof c === 'number' ? c : c[i];
}

/** A column of values by a first-appearance dictionary: [value] when they are all one, else [dictionary, indexes]. */
export function dictColumn(values: unknown[]): unknown {
  let one = true;
  for (let i = 1; i < values.length && one; i++) one = values[i] === values[0];
  if (one) return values.length ? [values[0]] : [];
  const dict: unknown[] = [];
  const pos = new Map<unknown, number>();
  const idx: number[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    let p = pos.get(values[i]);
    if (p === undefined) {
      p = dict.length;
      pos.set(values[i], p);
      dict.push(values[i]);
    }
    idx[i] = p;
  }
  return dict.length <= 1 ? dict : [dict, idx];
}
/** The dictionary and per-row indexes of a stored dictionary column. */
export function readDict(stored: unknown): { dict: unknown[]; idx: IntColumn } {
  const s = stored as unknown[];
  return s.length === 2 && Array.isArray(s[0]) ? { dict: s[0] as unknown[], idx: s[1] as IntColumn } : { dict: s, idx: 0 };
}

/**
 * The contracts of a block: a dictionary column whose dictionary, when every symbol is an OSI
 * symbol in its canonical 21-character form, is sorted and stored as its parts (root dictionary,
 * yymmdd, right, strike in thousandths, the numbers as differences from the previous entry):
 * a full chain's block holds a hundred or more contracts, whose 21-character names brotli
 * squeezes far less than these small numbers. [0, roots, yymmdd, rights, strikes, indexes]
 * (six elements) tells it from a plain dictionary column (one or two).
 */
function osiColumn(values: unknown[]): { stored: unknown; dict: unknown[]; idx: IntColumn } {
  const stored = dictColumn(values);
  const plain = { stored, ...readDict(stored) };
  if (plain.dict.length < 2) return plain;
  const sorted = [...plain.dict].sort() as string[];
  const roots: string[] = [];
  const dates: number[] = [];
  const rights: number[] = [];
  const strikes: number[] = [];
  let prevDate = 0;
  let prevStrike = 0;
  for (const osi of sorted) {
    if (typeof osi !== 'string' || osi.length !== 21) return plain;
    const root = osi.slice(0, 6).trimEnd();
    const date = Number(osi.slice(6, 12));
    const right = osi[12] === 'C' ? 0 : 1;
    const strike = Number(osi.slice(13));
    if (!Number.isSafeInteger(date) || !Number.isSafeInteger(strike) || osiOf(root, date, right, strike) !== osi) return plain;
    roots.push(root);
    dates.push(date - prevDate);
    rights.push(right);
    strikes.push(strike - prevStrike);
    prevDate = date;
    prevStrike = strike;
  }
  const pos = new Map(sorted.map((osi, i) => [osi, i]));
  const idx = (plain.idx as number[]).map((k) => pos.get(plain.dict[k] as string)!);
  return { stored: [0, dictColumn(roots), dates, compactInts(rights), strikes, idx], dict: sorted, idx };
}
function osiOf(root: string, yymmdd: number, right: number, strikeThousandths: number): string {
  return root.padEnd(6, ' ') + String(yymmdd).padStart(6, '0') + (right === 0 ? 'C' : 'P') + String(strikeThousandths).padStart(8, '0');
}
function readOsiColumn(stored: unknown): { dict: unknown[]; idx: IntColumn } {
  const s = stored as unknown[];
  if (s.length !== 6) return readDict(stored);
  const roots = readDict(s[1]);
  const dates = s[2] as number[];
  const rights = s[3] as IntColumn;
  const strikes = s[4] as number[];
  const dict: string[] = new Array(dates.length);
  let date = 0;
  let strike = 0;
  for (let i = 0; i < dates.length; i++) {
    date += dates[i];
    strike += strikes[i];
    dict[i] = osiOf(roots.dict[intAt(roots.idx, i)] as string, date, intAt(rights, i), strike);
  }
  return { dict, idx: s[5] as number[] };
}

/**
 * Doubles as their 8 bytes each, byte-transposed (every value's first byte, then every second
 * byte...): values of similar magnitude share sign, exponent and leading mantissa bytes, which
 * brotli then finds as runs.
 */
export function packDoubles(xs: readonly number[]): Buffer {
  const k = xs.length;
  const raw = Buffer.allocUnsafe(8 * k);
  for (let i = 0; i < k; i++) raw.writeDoubleLE(xs[i], 8 * i);
  const out = Buffer.allocUnsafe(8 * k);
  for (let i = 0; i < k; i++) for (let j = 0; j < 8; j++) out[j * k + i] = raw[8 * i + j];
  return out;
}
export function unpackDoubles(b: Uint8Array): number[] {
  const k = b.length / 8;
  const raw = Buffer.allocUnsafe(8 * k);
  for (let i = 0; i < k; i++) for (let j = 0; j < 8; j++) raw[8 * i + j] = b[j * k + i];
  const out: number[] = new Array(k);
  for (let i = 0; i < k; i++) out[i] = raw.readDoubleLE(8 * i);
  return out;
}

/** Values stored explicitly, by field: [row indexes, values]. */
class Exceptions {
  private readonly byField: ([number[], unknown[]] | undefined)[] = new Array(FIELD_COUNT);
  /** Stores row i's value of a field; returns 0, the placeholder of its column. */
  add(field: number, i: number, v: unknown): 0 {
    const e = (this.byField[field] ??= [[], []]);
    e[0].push(i);
    e[1].push(v);
    return 0;
  }
  /** Whether row i's value of a field is stored explicitly (rows are added in order). */
  has(field: number, i: number): boolean {
    const e = this.byField[field];
    return e !== undefined && e[0][e[0].length - 1] === i;
  }
  /** Flat [field, indexes, values, ...], only fields that have exceptions. */
  toStored(): unknown[] {
    const out: unknown[] = [];
    for (let f = 0; f < FIELD_COUNT; f++) {
      const e = this.byField[f];
      if (e) out.push(f, e[0], e[1]);
    }
    return out;
  }
}

/** Reads a block's exceptions: per field, row index -> value (undefined: the field has none). */
function readExceptions(stored: unknown[]): (Map<number, unknown> | undefined)[] {
  const out: (Map<number, unknown> | undefined)[] = new Array(FIELD_COUNT);
  for (let k = 0; k + 2 < stored.length; k += 3) {
    const idx = stored[k + 1] as number[];
    const vals = stored[k + 2] as unknown[];
    const m = new Map<number, unknown>();
    for (let j = 0; j < idx.length; j++) m.set(idx[j], vals[j]);
    out[stored[k] as number] = m;
  }
  return out;
}

/**
 * Integers stored as differences from a prediction both sides can make; a value that is not a
 * safe integer (in its unit) is an exception and leaves the predictor's state as it was.
 */
function residual(v: unknown, pred: number, unitCents: boolean): number | undefined {
  const x = unitCents ? centsOf(v) : typeof v === 'number' && Number.isSafeInteger(v) ? (v as number) : undefined;
  if (x === undefined || !Number.isSafeInteger(pred)) return undefined;
  const r = x - pred;
  return Number.isSafeInteger(r) ? r : undefined;
}

type Row = OrderFlowRow & Partial<Record<'tradeConsolidationType' | 'isGoldenSweep' | 'lastTradeTime', unknown>>;

/**
 * A contract's terms as the row carries them, read from its OSI symbol's fixed positions (root
 * padded to 6, yymmdd, C or P, strike in thousandths as 8 digits; years 2000-2099): what
 * parseOsi gives for every well-formed symbol, without its validation — a symbol it would refuse
 * still gives some terms here, which then differ from the row's and are stored explicitly.
 */
interface ContractTerms {
  right: string;
  strike: number;
  expiration: string;
  /** optionExpiryMs of the expiration (NaN when it is no date) */
  expiryMs: number;
}
function contractOf(osi: unknown): ContractTerms | null {
  if (typeof osi !== 'string' || osi.length !== 21) return null;
  const expiration = `20${osi.slice(6, 8)}-${osi.slice(8, 10)}-${osi.slice(10, 12)}`;
  return { right: osi[12] === 'C' ? 'CALL' : 'PUT', strike: Number(osi.slice(13)) / 1000, expiration, expiryMs: expiryMsOf(expiration) };
}
const CACHE_MAX = 100_000;
const expiryCache = new Map<string, number>();
function expiryMsOf(expirationDate: unknown): number {
  if (typeof expirationDate !== 'string') return NaN;
  let ms = expiryCache.get(expirationDate);
  if (ms === undefined) {
    try {
      ms = optionExpiryMs(expirationDate);
    } catch {
      ms = NaN; // not a date: a dte is then never derived, always stored
    }
    if (expiryCache.size >= CACHE_MAX) expiryCache.clear();
    expiryCache.set(expirationDate, ms);
  }
  return ms;
}

/** Days to expiration as enrichPrint computes them; the contract's expiry instant when the row's expiration is the contract's. */
function dteOf(expirationDate: unknown, tradeTime: number, c: ContractTerms | null | undefined): number {
  const expiryMs = c && c.expiration === expirationDate ? c.expiryMs : expiryMsOf(expirationDate);
  return norm((expiryMs - tradeTime) / MS_PER_DAY);
}

function ivOf(price: number, right: string, spot: number, strike: number, dte: number, rate: number, dividend: number): number | null {
  return norm(impliedVolatility(price, { right: right as 'CALL' | 'PUT', spot, strike, t: Math.max(dte, 0) / DAYS_PER_YEAR, rate, dividend }));
}

/** bsmGreeks as enrichPrint calls it, zeros made positive (a fresh object, keys in WARM_GREEKS order). */
function derivedGreeks(right: string, spot: number, strike: number, dte: number, rate: number, dividend: number, vol: number): Greeks {
  const g = bsmGreeks({ right: right as 'CALL' | 'PUT', spot, strike, t: Math.max(dte, 0) / DAYS_PER_YEAR, rate, dividend, vol });
  // Named, not looped over names: keyed access by a variable name is several times slower here.
  g.charm = norm(g.charm);
  g.color = norm(g.color);
  g.delta = norm(g.delta);
  g.gamma = norm(g.gamma);
  g.omega = norm(g.omega);
  g.rho = norm(g.rho);
  g.sigma = norm(g.sigma);
  g.speed = norm(g.speed);
  g.theta = norm(g.theta);
  g.ultima = norm(g.ultima);
  g.vanna = norm(g.vanna);
  g.vega = norm(g.vega);
  g.veta = norm(g.veta);
  g.vomma = norm(g.vomma);
  g.zomma = norm(g.zomma);
  return g;
}

/** Whether the row's greeks (b, any object) are exactly the derived ones (a, normalised). */
function sameGreeks(a: Greeks, b: Greeks): boolean {
  return (
    Object.is(a.charm, norm(b.charm)) &&
    Object.is(a.color, norm(b.color)) &&
    Object.is(a.delta, norm(b.delta)) &&
    Object.is(a.gamma, norm(b.gamma)) &&
    Object.is(a.omega, norm(b.omega)) &&
    Object.is(a.rho, norm(b.rho)) &&
    Object.is(a.sigma, norm(b.sigma)) &&
    Object.is(a.speed, norm(b.speed)) &&
    Object.is(a.theta, norm(b.theta)) &&
    Object.is(a.ultima, norm(b.ultima)) &&
    Object.is(a.vanna, norm(b.vanna)) &&
    Object.is(a.vega, norm(b.vega)) &&
    Object.is(a.veta, norm(b.veta)) &&
    Object.is(a.vomma, norm(b.vomma)) &&
    Object.is(a.zomma, norm(b.zomma))
  );
}

/**
 * Writes a canonical (lower-case, dashed) UUID's 16 bytes at `at`; false, writing nothing
 * meaningful, for any other value.
 */
export function writeUuid(id: unknown, to: Buffer, at: number): boolean {
  if (typeof id !== 'string' || id.length !== 36) return false;
  let j = at;
  for (let k = 0; k < 36;) {
    if (k === 8 || k === 13 || k === 18 || k === 23) {
      if (id.charCodeAt(k++) !== 45) return false;
      continue;
    }
    const hi = hexDigit(id.charCodeAt(k++));
    const lo = hexDigit(id.charCodeAt(k++));
    if (hi < 0 || lo < 0) return false;
    to[j++] = (hi << 4) | lo;
  }
  return true;
}
/** The i-th UUID (canonical form) of the hex digits of ids written by writeUuid. */
export function uuidAt(hex: string, i: number): string {
  const h = 32 * i;
  return `${hex.slice(h, h + 8)}-${hex.slice(h + 8, h + 12)}-${hex.slice(h + 12, h + 16)}-${hex.slice(h + 16, h + 20)}-${hex.slice(h + 20, h + 32)}`;
}
function hexDigit(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
}

function sameMoneyness(a: Moneyness, b: Moneyness): boolean {
  return Object.is(norm(a.degree), norm(b.degree)) && Object.is(norm(a.degreeInPercent), norm(b.degreeInPercent)) && a.moneyType === b.moneyType;
}

export interface OrderFlowWarmCodecOptions {
  /**
   * Re-derive implied volatility (a Black-Scholes-Merton solve per row at pack and at unpack)
   * instead of storing it (~6.4 bytes a row after brotli). Off by default: the solve costs more
   * CPU than the bytes are worth to the hot-to-warm move and to warm reads. A block records per
   * row which it did, so blocks of either setting decode with any codec.
   */
  deriveImpliedVolatility?: boolean;
  /** The risk-free rates to try for the greeks (first matching wins); default the configured rate, then RISK_FREE_RATE. */
  rates?: () => readonly number[];
}

export interface OrderFlowWarmCodec {
  /** Rows of one ticker and one session, in (tradeTime, rowKey) order. */
  pack(rows: readonly OrderFlowRow[]): unknown;
  /** The rows of a packed block, in the order packed. */
  unpack(packed: unknown, sessionDate: string): OrderFlowRow[];
}

export function createOrderFlowWarmCodec(o: OrderFlowWarmCodecOptions = {}): OrderFlowWarmCodec {
  const deriveIv = o.deriveImpliedVolatility ?? false;
  const rates = o.rates ?? (() => [configuredRiskFreeRate(), RISK_FREE_RATE]);
  return { pack: (rows) => pack(rows as readonly Row[], deriveIv, rates), unpack };
}

/** The codec of both order-flow views' warm blocks (implied volatility stored). */
export const orderFlowWarmCodec: OrderFlowWarmCodec = createOrderFlowWarmCodec();

/** The dividend yield a ticker is priced with (0 for anything that is not a plain ticker). */
function dividendOf(ticker: unknown): number {
  const q = typeof ticker === 'string' ? dividendYield(ticker) : 0;
  return typeof q === 'number' ? q : 0; // dividendYield('constructor') is no number
}

/** The rate a block's greeks are derived with: the first candidate that reproduces the first row with greeks. */
function chooseRate(rows: readonly Row[], candidates: readonly number[]): number {
  const r = rows.find((x) => x.greeks && typeof x.impliedVolatility === 'number');
  if (r) {
    for (const rate of candidates) {
      const g = derivedGreeks(r.contractType, norm(r.stockPrice), norm(r.strikePrice), norm(r.dte), rate, dividendOf(r.ticker), norm(r.impliedVolatility!));
      if (sameGreeks(g, r.greeks!)) return rate;
    }
  }
  return candidates[0];
}

function pack(rows: readonly Row[], deriveIv: boolean, rateCandidates: () => readonly number[]): unknown[] {
  const n = rows.length;
  const block: unknown[] = new Array(BLOCK_LENGTH).fill(0);
  block[B_VERSION] = WARM_CODEC_VERSION;
  block[B_COUNT] = n;
  if (n === 0) return block.slice(0, B_COUNT + 1);
  const consolidated = 'tradeConsolidationType' in rows[0];
  const sessionDate = rows[0].sessionDate;
  for (const r of rows) {
    if ('tradeConsolidationType' in r !== consolidated) throw new Error('a warm block holds rows of one order-flow view only');
    if (r.sessionDate !== sessionDate) throw new Error(`a warm block holds rows of one session (${sessionDate}, ${r.sessionDate})`);
  }
  const rate = chooseRate(rows, rateCandidates());
  const ex = new Exceptions();

  const tickers = dictColumn(rows.map((r) => r.ticker));
  const tickerDict = readDict(tickers);
  const dividends = tickerDict.dict.map(dividendOf);

  const rowKeyPrefix: unknown[] = new Array(n);
  const rowKeyOffset: number[] = new Array(n);
  const ids = Buffer.alloc(16 * n);
  const tradeTime: number[] = new Array(n);
  const stock: number[] = new Array(n);
  const bid: number[] = new Array(n);
  const ask: number[] = new Array(n);
  const size: number[] = new Array(n);
  const priceMode: number[] = new Array(n);
  const price: number[] = new Array(n);
  const premiumMode: number[] = new Array(n);
  const premium: number[] = new Array(n);
  const volume: number[] = new Array(n);
  const openInterest: number[] = new Array(n);
  const ivMode: number[] = new Array(n);
  const ivs: number[] = [];
  const greeksMode: number[] = new Array(n);
  const lastTradeTime: number[] = consolidated ? new Array(n) : [];

  // Predictor state, advanced exactly as unpack advances it.
  let prevOffset = 0;
  let prevTime = 0;
  let prevStock = 0;
  // Per contract (its index in the block's OSI dictionary): its terms and the predictors' state.
  const osis = osiColumn(rows.map((r) => r.osi));
  const contracts = osis.dict.map(contractOf);
  const lastBid: number[] = new Array(osis.dict.length).fill(0);
  const lastVolume: number[] = new Array(osis.dict.length).fill(0);
  const lastOi: number[] = new Array(osis.dict.length).fill(0);

  for (let i = 0; i < n; i++) {
    const r = rows[i];
    const k = intAt(osis.idx, i);
    // Every derivation below runs on the values as unpack will have them (normalised), so a
    // value found derivable here is derived to the same bits there.
    const t = norm(r.tradeTime);
    const dte = norm(r.dte);
    const stockPrice = norm(r.stockPrice);
    const strikePrice = norm(r.strikePrice);
    const bidPrice = norm(r.bidPrice);
    const askPrice = norm(r.askPrice);
    const sz = norm(r.size);
    const p = norm(r.optionPrice);
    const q = norm(r.premium);
    const right = r.contractType;

    // rowKey: 2-digit partition + 8 base-36 digits of the offset.
    const rk = r.rowKey;
    const off = typeof rk === 'string' && rk.length === 10 ? parseInt(rk.slice(2), 36) : NaN;
    if (Number.isSafeInteger(off) && rk.slice(0, 2) + off.toString(36).padStart(8, '0') === rk) {
      rowKeyPrefix[i] = rk.slice(0, 2);
      rowKeyOffset[i] = off - prevOffset;
      prevOffset = off;
    } else {
      rowKeyPrefix[i] = '';
      rowKeyOffset[i] = 0;
      ex.add(F_ROW_KEY, i, rk);
    }
    if (!writeUuid(r.id, ids, 16 * i)) ex.add(F_ID, i, r.id);

    // The contract's right, strike and expiration, from its OSI symbol.
    const c = contracts[k];
    if (!(c && c.right === right)) ex.add(F_CONTRACT_TYPE, i, right);
    if (!(c && Object.is(c.strike, strikePrice))) ex.add(F_STRIKE, i, strikePrice);
    if (!(c && c.expiration === r.expirationDate)) ex.add(F_EXPIRATION, i, r.expirationDate);

    tradeTime[i] = residual(t, prevTime, false) ?? ex.add(F_TRADE_TIME, i, t);
    if (!ex.has(F_TRADE_TIME, i)) prevTime = t;
    if (!Object.is(dteOf(r.expirationDate, t, c), dte)) ex.add(F_DTE, i, dte);

    stock[i] = residual(stockPrice, prevStock, true) ?? ex.add(F_STOCK, i, stockPrice);
    if (!ex.has(F_STOCK, i)) prevStock += stock[i];
    const bidPred = lastBid[k];
    bid[i] = residual(bidPrice, bidPred, true) ?? ex.add(F_BID, i, bidPrice);
    // The bid in cents as unpack knows it (0 when stored explicitly): the base of ask and price.
    let bidCents = 0;
    if (!ex.has(F_BID, i)) lastBid[k] = bidCents = bidPred + bid[i];
    ask[i] = residual(askPrice, bidCents, true) ?? ex.add(F_ASK, i, askPrice);
    const spread = norm(r.bidAskSpread);
    if (!Object.is(norm(Math.round((askPrice - bidPrice) * 1e6) / 1e6), spread)) ex.add(F_SPREAD, i, spread);
    size[i] = residual(sz, 0, false) ?? ex.add(F_SIZE, i, sz);

    // Option price and premium: one of them may be derived from the other, never both.
    const pc = residual(p, bidCents, true);
    const qc = residual(q, 0, true);
    const premiumFromPrice = Object.is(norm(p * sz * 100), q);
    if (pc !== undefined || premiumFromPrice) {
      priceMode[i] = pc !== undefined ? PRICE_CENTS : EXPLICIT;
      price[i] = pc ?? ex.add(F_PRICE, i, p);
      premiumMode[i] = premiumFromPrice ? PREMIUM_FROM_PRICE : qc !== undefined ? PREMIUM_CENTS : EXPLICIT;
      premium[i] = premiumFromPrice ? 0 : (qc ?? ex.add(F_PREMIUM, i, q));
    } else {
      premiumMode[i] = qc !== undefined ? PREMIUM_CENTS : EXPLICIT;
      premium[i] = qc ?? ex.add(F_PREMIUM, i, q);
      const fromPremium = Object.is(norm(q / sz / 100), p);
      priceMode[i] = fromPremium ? PRICE_FROM_PREMIUM : EXPLICIT;
      price[i] = fromPremium ? 0 : ex.add(F_PRICE, i, p);
    }

    // Cumulative session volume: the contract's previous volume in the block plus this size.
    const vol = norm(r.volume);
    const volPred = lastVolume[k] + (ex.has(F_SIZE, i) ? 0 : size[i]);
    volume[i] = residual(vol, volPred, false) ?? ex.add(F_VOLUME, i, vol);
    if (!ex.has(F_VOLUME, i)) lastVolume[k] = vol;
    const oi = norm(r.openInterest);
    openInterest[i] = residual(oi, lastOi[k], false) ?? ex.add(F_OPEN_INTEREST, i, oi);
    if (!ex.has(F_OPEN_INTEREST, i)) lastOi[k] = oi;

    // Implied volatility and greeks, priced as enrichPrint prices them.
    const dividend = dividends[intAt(tickerDict.idx, i)];
    const iv = r.impliedVolatility === undefined ? null : norm(r.impliedVolatility);
    if (iv === null) ivMode[i] = IV_NULL;
    else if (deriveIv && Object.is(ivOf((bidPrice + askPrice) / 2, right, stockPrice, strikePrice, dte, rate, dividend), iv)) ivMode[i] = IV_FROM_MID;
    else if (deriveIv && Object.is(ivOf(p, right, stockPrice, strikePrice, dte, rate, dividend), iv)) ivMode[i] = IV_FROM_PRICE;
    else if (typeof iv === 'number') {
      ivMode[i] = IV_STORED;
      ivs.push(iv);
    } else ivMode[i] = ex.add(F_IV, i, iv);
    const g = r.greeks;
    if (!g) greeksMode[i] = GREEKS_NULL;
    else if (typeof iv === 'number' && sameGreeks(derivedGreeks(right, stockPrice, strikePrice, dte, rate, dividend, iv), g)) greeksMode[i] = GREEKS_DERIVED;
    else
      greeksMode[i] = ex.add(
        F_GREEKS,
        i,
        WARM_GREEKS.map((name) => norm(g[name] as number)),
      );
    const m = r.moneyness;
    if (!sameMoneyness(moneynessOf(right, stockPrice, strikePrice), m)) ex.add(F_MONEYNESS, i, [norm(m.degree), norm(m.degreeInPercent), m.moneyType]);
    if (tradeSideOf(p, bidPrice, askPrice) !== r.tradeSideCode) ex.add(F_SIDE, i, r.tradeSideCode);
    if (sentimentOf(right, r.tradeSideCode) !== r.sentimentType) ex.add(F_SENTIMENT, i, r.sentimentType);

    if (consolidated) {
      const golden = !!r.isGoldenSweep;
      if (isGoldenSweepOf(r.tradeConsolidationType, r.tradeSideCode, q) !== golden) ex.add(F_GOLDEN, i, golden);
      const last = norm(r.lastTradeTime);
      lastTradeTime[i] = residual(last, Number.isSafeInteger(t) ? t : 0, false) ?? ex.add(F_LAST_TRADE_TIME, i, last);
    }
  }
  block[B_KIND] = consolidated ? KIND_CONSOLIDATED : KIND_PRINTS;
  block[B_RATE] = rate;
  block[B_DIVIDENDS] = dividends;
  block[B_ROW_KEY_PREFIX] = dictColumn(rowKeyPrefix);
  block[B_ROW_KEY_OFFSET] = compactInts(rowKeyOffset);
  block[B_IDS] = ids;
  block[B_OSI] = osis.stored;
  block[B_TICKER] = tickers;
  block[B_TRADE_TIME] = compactInts(tradeTime);
  block[B_STOCK] = compactInts(stock);
  block[B_BID] = compactInts(bid);
  block[B_ASK] = compactInts(ask);
  block[B_SIZE] = compactInts(size);
  block[B_PRICE_MODE] = compactInts(priceMode);
  block[B_PRICE] = compactInts(price);
  block[B_PREMIUM_MODE] = compactInts(premiumMode);
  block[B_PREMIUM] = compactInts(premium);
  block[B_VOLUME] = compactInts(volume);
  block[B_OPEN_INTEREST] = compactInts(openInterest);
  block[B_IV_MODE] = compactInts(ivMode);
  block[B_IV] = packDoubles(ivs);
  block[B_GREEKS_MODE] = compactInts(greeksMode);
  block[B_TRADE_TYPE] = dictColumn(rows.map((r) => r.tradeType));
  block[B_EXCHANGE] = dictColumn(rows.map((r) => r.exchange));
  block[B_SECTOR] = dictColumn(rows.map((r) => r.sector));
  block[B_INDUSTRY] = dictColumn(rows.map((r) => r.industry));
  block[B_IS_ETF] = dictColumn(rows.map((r) => !!r.isETF));
  block[B_IS_INDEX] = dictColumn(rows.map((r) => !!r.isIndex));
  block[B_CONSOLIDATION_TYPE] = consolidated ? dictColumn(rows.map((r) => r.tradeConsolidationType)) : 0;
  block[B_LAST_TRADE_TIME] = consolidated ? compactInts(lastTradeTime) : 0;
  block[B_EXCEPTIONS] = ex.toStored();
  return block;
}

/**
 * What a packed block holds: its rows, and per field the number of values stored explicitly
 * (not derivable, or not representable as the compact integers of their column). Implied
 * volatilities kept as doubles count under `impliedVolatility`.
 */
export function orderFlowWarmBlockStats(packed: unknown): { rows: number; explicit: Partial<Record<(typeof FIELD_NAMES)[number], number>> } {
  const b = packed as unknown[];
  const explicit: Partial<Record<(typeof FIELD_NAMES)[number], number>> = {};
  if ((b[B_COUNT] as number) === 0) return { rows: 0, explicit };
  const e = b[B_EXCEPTIONS] as unknown[];
  for (let k = 0; k + 2 < e.length; k += 3) explicit[FIELD_NAMES[e[k] as number]] = (e[k + 1] as number[]).length;
  const ivs = (b[B_IV] as Uint8Array).length / 8;
  if (ivs) explicit.impliedVolatility = (explicit.impliedVolatility ?? 0) + ivs;
  return { rows: b[B_COUNT] as number, explicit };
}

function unpack(packed: unknown, sessionDate: string): OrderFlowRow[] {
  const b = packed as unknown[];
  if (!Array.isArray(b) || b[B_VERSION] !== WARM_CODEC_VERSION) throw new Error(`not an order-flow warm block of version ${WARM_CODEC_VERSION}`);
  const n = b[B_COUNT] as number;
  if (n === 0) return [];
  const consolidated = b[B_KIND] === KIND_CONSOLIDATED;
  const rate = b[B_RATE] as number;
  const dividends = b[B_DIVIDENDS] as number[];
  const ex = readExceptions(b[B_EXCEPTIONS] as unknown[]);
  const has = (f: number, i: number) => ex[f] !== undefined && ex[f].has(i);
  const get = (f: number, i: number) => ex[f]!.get(i);

  const rkPrefix = readDict(b[B_ROW_KEY_PREFIX]);
  const rkOffset = b[B_ROW_KEY_OFFSET] as IntColumn;
  const ids = (b[B_IDS] as Uint8Array).length ? Buffer.from(b[B_IDS] as Uint8Array).toString('hex') : '';
  const osis = readOsiColumn(b[B_OSI]);
  const tickers = readDict(b[B_TICKER]);
  const tradeTime = b[B_TRADE_TIME] as IntColumn;
  const stock = b[B_STOCK] as IntColumn;
  const bid = b[B_BID] as IntColumn;
  const ask = b[B_ASK] as IntColumn;
  const size = b[B_SIZE] as IntColumn;
  const priceMode = b[B_PRICE_MODE] as IntColumn;
  const price = b[B_PRICE] as IntColumn;
  const premiumMode = b[B_PREMIUM_MODE] as IntColumn;
  const premium = b[B_PREMIUM] as IntColumn;
  const volume = b[B_VOLUME] as IntColumn;
  const openInterest = b[B_OPEN_INTEREST] as IntColumn;
  const ivMode = b[B_IV_MODE] as IntColumn;
  const ivs = unpackDoubles(b[B_IV] as Uint8Array);
  let ivAt = 0;
  const greeksMode = b[B_GREEKS_MODE] as IntColumn;
  const tradeTypes = readDict(b[B_TRADE_TYPE]);
  const exchanges = readDict(b[B_EXCHANGE]);
  const sectors = readDict(b[B_SECTOR]);
  const industries = readDict(b[B_INDUSTRY]);
  const etf = readDict(b[B_IS_ETF]);
  const index = readDict(b[B_IS_INDEX]);
  const consolidationTypes = consolidated ? readDict(b[B_CONSOLIDATION_TYPE]) : undefined;
  const lastTradeTime = b[B_LAST_TRADE_TIME] as IntColumn;

  let prevOffset = 0;
  let prevTime = 0;
  let prevStock = 0;
  const contracts: (ContractTerms | null | undefined)[] = new Array(osis.dict.length);
  const lastBid: number[] = new Array(osis.dict.length).fill(0);
  const lastVolume: number[] = new Array(osis.dict.length).fill(0);
  const lastOi: number[] = new Array(osis.dict.length).fill(0);
  const out: OrderFlowRow[] = new Array(n);

  for (let i = 0; i < n; i++) {
    let rowKey: string;
    if (has(F_ROW_KEY, i)) rowKey = get(F_ROW_KEY, i) as string;
    else {
      prevOffset += intAt(rkOffset, i);
      rowKey = (rkPrefix.dict[intAt(rkPrefix.idx, i)] as string) + prevOffset.toString(36).padStart(8, '0');
    }
    let id: string;
    if (has(F_ID, i)) id = get(F_ID, i) as string;
    else {
      id = uuidAt(ids, i);
    }
    const k = intAt(osis.idx, i);
    const osi = osis.dict[k];
    const tickerIdx = intAt(tickers.idx, i);
    const c = contracts[k] === undefined ? (contracts[k] = contractOf(osi)) : contracts[k];
    const contractType = (has(F_CONTRACT_TYPE, i) ? get(F_CONTRACT_TYPE, i) : c!.right) as string;
    const strikePrice = (has(F_STRIKE, i) ? get(F_STRIKE, i) : c!.strike) as number;
    const expirationDate = has(F_EXPIRATION, i) ? get(F_EXPIRATION, i) : c!.expiration;

    let t: number;
    if (has(F_TRADE_TIME, i)) t = get(F_TRADE_TIME, i) as number;
    else t = prevTime += intAt(tradeTime, i);
    const dte = (has(F_DTE, i) ? get(F_DTE, i) : dteOf(expirationDate, t, c)) as number;

    let stockPrice: number;
    if (has(F_STOCK, i)) stockPrice = get(F_STOCK, i) as number;
    else stockPrice = (prevStock += intAt(stock, i)) / 100;
    let bidPrice: number;
    let bidCents = 0;
    if (has(F_BID, i)) bidPrice = get(F_BID, i) as number;
    else {
      bidCents = lastBid[k] += intAt(bid, i);
      bidPrice = bidCents / 100;
    }
    const askPrice = (has(F_ASK, i) ? get(F_ASK, i) : (bidCents + intAt(ask, i)) / 100) as number;
    const bidAskSpread = (has(F_SPREAD, i) ? get(F_SPREAD, i) : norm(Math.round((askPrice - bidPrice) * 1e6) / 1e6)) as number;
    const sz = has(F_SIZE, i) ? (get(F_SIZE, i) as number) : intAt(size, i);
    const sizeResidual = has(F_SIZE, i) ? 0 : sz;

    const pm = intAt(priceMode, i);
    const qm = intAt(premiumMode, i);
    let optionPrice = 0;
    if (pm === PRICE_CENTS) optionPrice = (bidCents + intAt(price, i)) / 100;
    else if (pm === EXPLICIT) optionPrice = get(F_PRICE, i) as number;
    let prem: number;
    if (qm === PREMIUM_FROM_PRICE) prem = norm(optionPrice * sz * 100);
    else if (qm === PREMIUM_CENTS) prem = intAt(premium, i) / 100;
    else prem = get(F_PREMIUM, i) as number;
    if (pm === PRICE_FROM_PREMIUM) optionPrice = norm(prem / sz / 100);

    let vol: number;
    if (has(F_VOLUME, i)) vol = get(F_VOLUME, i) as number;
    else {
      vol = lastVolume[k] = lastVolume[k] + sizeResidual + intAt(volume, i);
    }
    let oi: number;
    if (has(F_OPEN_INTEREST, i)) oi = get(F_OPEN_INTEREST, i) as number;
    else {
      oi = lastOi[k] += intAt(openInterest, i);
    }

    const dividend = dividends[tickerIdx];
    const im = intAt(ivMode, i);
    let iv: number | null;
    if (im === IV_NULL) iv = null;
    else if (im === IV_STORED) iv = ivs[ivAt++];
    else if (im === EXPLICIT) iv = get(F_IV, i) as number | null;
    else iv = ivOf(im === IV_FROM_MID ? (bidPrice + askPrice) / 2 : optionPrice, contractType, stockPrice, strikePrice, dte, rate, dividend);
    const gm = intAt(greeksMode, i);
    let greeks: Greeks | null;
    if (gm === GREEKS_NULL) greeks = null;
    else if (gm === GREEKS_DERIVED) greeks = derivedGreeks(contractType, stockPrice, strikePrice, dte, rate, dividend, iv!);
    else {
      const g = get(F_GREEKS, i) as number[];
      const o = {} as Record<keyof Greeks, number>;
      for (let k = 0; k < WARM_GREEKS.length; k++) o[WARM_GREEKS[k]] = g[k];
      greeks = o;
    }
    let moneyness: Moneyness;
    if (has(F_MONEYNESS, i)) {
      const m = get(F_MONEYNESS, i) as [number, number, Moneyness['moneyType']];
      moneyness = { degree: m[0], degreeInPercent: m[1], moneyType: m[2] };
    } else {
      const m = moneynessOf(contractType as 'CALL' | 'PUT', stockPrice, strikePrice);
      moneyness = { degree: norm(m.degree), degreeInPercent: norm(m.degreeInPercent), moneyType: m.moneyType };
    }
    const side = (has(F_SIDE, i) ? get(F_SIDE, i) : tradeSideOf(optionPrice, bidPrice, askPrice)) as string;
    const sentiment = has(F_SENTIMENT, i) ? get(F_SENTIMENT, i) : sentimentOf(contractType, side);

    // Built in decodeRow's key order, so a decoded row has the same keys in the same order.
    const row: Record<string, unknown> = {
      rowKey,
      id,
      sessionDate,
      osi,
      ticker: tickers.dict[tickerIdx],
      contractType,
      strikePrice,
      expirationDate,
      dte,
      premium: prem,
      size: sz,
      volume: vol,
      stockPrice,
      askPrice,
      bidPrice,
      bidAskSpread,
      optionPrice,
      impliedVolatility: iv,
      greeks,
      moneyness,
      tradeSideCode: side,
      sentimentType: sentiment,
      tradeType: tradeTypes.dict[intAt(tradeTypes.idx, i)],
      isETF: etf.dict[intAt(etf.idx, i)],
      isIndex: index.dict[intAt(index.idx, i)],
      sector: sectors.dict[intAt(sectors.idx, i)],
      industry: industries.dict[intAt(industries.idx, i)],
      exchange: exchanges.dict[intAt(exchanges.idx, i)],
      tradeTime: t,
    };
    if (consolidationTypes) {
      const type = consolidationTypes.dict[intAt(consolidationTypes.idx, i)];
      row.tradeConsolidationType = type;
      row.isGoldenSweep = has(F_GOLDEN, i) ? get(F_GOLDEN, i) : isGoldenSweepOf(type, side, prem);
      row.lastTradeTime = has(F_LAST_TRADE_TIME, i) ? get(F_LAST_TRADE_TIME, i) : (Number.isSafeInteger(t) ? t : 0) + intAt(lastTradeTime, i);
    }
    const f = openInterestFlags({ size: sz, volume: vol, premium: prem }, oi);
    row.openInterest = f.openInterest;
    row.isOpeningPosition = f.isOpeningPosition;
    row.isVolumeGreaterThanOpenInterest = f.isVolumeGreaterThanOpenInterest;
    row.isUnusual = f.isUnusual;
    out[i] = row as unknown as OrderFlowRow;
  }
  return out;
}
