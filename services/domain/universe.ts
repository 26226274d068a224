// The instrument universe the simulator and projections work over, seeded from
// seeds/universe.json and validated once at load so a bad seed fails fast, naming the symbol,
// instead of leaking an off-contract sector or a zero price into generated data.
//
// Classification conventions (sector/industry must be constants from the API contract):
// - Operating companies: the issuer's sector and industry.
// - Broad index ETFs (SPY, QQQ, IWM, DIA, EEM, EFA, FXI, ARKK): NOT_APPLICABLE / NOT_APPLICABLE,
//   because their holdings span every sector.
// - Sector ETFs (the 11 SPDR funds): the sector they track, with industry NOT_APPLICABLE because
//   each spans several industries.
// - Single-industry ETFs: that sector and industry (SMH -> SEMICONDUCTORS, KRE -> BANKS__REGIONAL,
//   XBI -> BIOTECHNOLOGY, XOP -> exploration & production, GDX and GLD -> GOLD, SLV -> SILVER,
//   USO -> OIL_AND_GAS_ENERGY).
// - Funds holding bonds, bitcoin or leveraged swaps rather than equities: FINANCIAL_SERVICES with
//   the contract's fund categories ASSET_MANAGEMENT__BONDS / __CRYPTOCURRENCY / __LEVERAGED.
// - Cash indexes (SPX, NDX, RUT, VIX): NOT_APPLICABLE / NOT_APPLICABLE on exchange CBOE, where
//   their options list.
//
// Numeric conventions: marketCap is the whole company's value, so share classes of one issuer
// (GOOGL/GOOG, BRK.B, BF.B) carry the company figure while sharesOutstanding counts only that
// class. An ETF's marketCap is its net assets. A cash index has no shares, so its marketCap is the
// aggregate constituent value (VIX borrows the S&P 500's, the options it is computed from) and
// sharesOutstanding is marketCap / level, keeping price x shares ~ cap uniform for the simulator.

import rawUniverse from '../../seeds/universe.json';
import { type Industry, type Sector, isIndustry, isSector } from './enums';

export { INDUSTRIES, SECTORS, type Industry, type Sector } from './enums';

/** Primary listing venue codes. NYSEARCA and AMEX are NYSE Arca and NYSE American. */
export const EXCHANGES = ['NASDAQ', 'NYSE', 'NYSEARCA', 'CBOE', 'AMEX'] as const;
export type Exchange = (typeof EXCHANGES)[number];

export interface Instrument {
  readonly symbol: string;
  readonly companyName: string;
  readonly sector: Sector;
  readonly industry: Industry;
  readonly exchange: Exchange;
  readonly isETF: boolean;
  readonly isIndex: boolean;
  /** dollars */
  readonly marketCap: number;
  readonly sharesOutstanding: number;
  /** dollars (index level for cash indexes) */
  readonly typicalPrice: number;
  /** fractional, e.g. 0.28 for 28% */
  readonly annualVolatility: number;
  /** relative share of options activity; only ratios between instruments matter */
  readonly optionsActivityWeight: number;
}

export class UniverseValidationError extends Error {
  constructor(
    readonly symbol: string | undefined,
    reason: string,
  ) {
    super(`Invalid universe entry ${symbol ?? '(no symbol)'}: ${reason}`);
    this.name = 'UniverseValidationError';
  }
}

const FIELDS = [
  'symbol',
  'companyName',
  'sector',
  'industry',
  'exchange',
  'isETF',
  'isIndex',
  'marketCap',
  'sharesOutstanding',
  'typicalPrice',
  'annualVolatility',
  'optionsActivityWeight',
] as const satisfies readonly (keyof Instrument)[];

const POSITIVE_FIELDS = [
  'marketCap',
  'sharesOutstanding',
  'typicalPrice',
  'annualVolatility',
  'optionsActivityWeight',
] as const satisfies readonly (keyof Instrument)[];

// Upper-case tickers with an optional one-letter share class (BRK.B).
const SYMBOL_RE = /^[A-Z][A-Z0-9]{0,5}(\.[A-Z])?$/;
// Even VIX stays near 100%; anything above 300% is almost certainly a percent typed as a number.
const MAX_ANNUAL_VOLATILITY = 3;

const exchangeSet: ReadonlySet<string> = new Set(EXCHANGES);

function validateEntry(entry: unknown, index: number): Instrument {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new UniverseValidationError(undefined, `entry #${index} is not an object`);
  }
  const e = entry as Record<string, unknown>;
  const symbol = typeof e.symbol === 'string' ? e.symbol : undefined;
  const fail = (reason: string): never => {
    throw new UniverseValidationError(symbol ?? `#${index}`, reason);
  };

  if (symbol === undefined || !SYMBOL_RE.test(symbol)) fail(`bad symbol ${JSON.stringify(e.symbol)}`);
  // Unknown keys are usually misspelt known ones, whose real value would then silently be missing.
  for (const key of Object.keys(e)) {
    if (!(FIELDS as readonly string[]).includes(key)) fail(`unknown field ${key}`);
  }
  for (const key of FIELDS) {
    if (!(key in e)) fail(`missing field ${key}`);
  }
  if (typeof e.companyName !== 'string' || e.companyName.trim() === '') fail('companyName must be a non-empty string');
  if (!isSector(e.sector)) fail(`sector ${JSON.stringify(e.sector)} is not in SECTORS`);
  if (!isIndustry(e.industry)) fail(`industry ${JSON.stringify(e.industry)} is not in INDUSTRIES`);
  if (typeof e.exchange !== 'string' || !exchangeSet.has(e.exchange)) fail(`exchange ${JSON.stringify(e.exchange)} is not in EXCHANGES`);
  if (typeof e.isETF !== 'boolean') fail('isETF must be a boolean');
  if (typeof e.isIndex !== 'boolean') fail('isIndex must be a boolean');
  for (const key of POSITIVE_FIELDS) {
    const v = e[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(`${key} must be a positive number, got ${JSON.stringify(v)}`);
  }
  if (!Number.isInteger(e.sharesOutstanding)) fail('sharesOutstanding must be an integer');
  if ((e.annualVolatility as number) > MAX_ANNUAL_VOLATILITY) {
    fail(`annualVolatility ${String(e.annualVolatility)} looks like a percent; it must be fractional`);
  }

  const inst = e as unknown as Instrument;
  if (inst.isETF && inst.isIndex) fail('cannot be both an ETF and an index');
  // An industry implies its sector, so a known industry under NOT_APPLICABLE is a seed mistake.
  if (inst.sector === 'NOT_APPLICABLE' && inst.industry !== 'NOT_APPLICABLE') fail('industry set without a sector');
  if (inst.isIndex && (inst.sector !== 'NOT_APPLICABLE' || inst.industry !== 'NOT_APPLICABLE')) {
    fail('an index must have sector and industry NOT_APPLICABLE');
  }
  if (inst.isIndex && inst.exchange !== 'CBOE') fail('index options list on CBOE');
  if (!inst.isETF && !inst.isIndex && (inst.sector === 'NOT_APPLICABLE' || inst.industry === 'NOT_APPLICABLE')) {
    fail('an operating company must have a sector and an industry');
  }

  // Copy only the known fields so the frozen result cannot alias the caller's object.
  const out = {} as Record<string, unknown>;
  for (const key of FIELDS) out[key] = e[key];
  return Object.freeze(out) as unknown as Instrument;
}

/** Validates raw seed data; throws UniverseValidationError naming the first offending symbol. */
export function validateUniverse(raw: unknown): Instrument[] {
  if (!Array.isArray(raw)) throw new UniverseValidationError(undefined, 'universe must be a JSON array');
  const seen = new Set<string>();
  return raw.map((entry, i) => {
    const inst = validateEntry(entry, i);
    if (seen.has(inst.symbol)) throw new UniverseValidationError(inst.symbol, 'duplicate symbol');
    seen.add(inst.symbol);
    return inst;
  });
}

let cache: { list: readonly Instrument[]; bySymbol: ReadonlyMap<string, Instrument> } | undefined;

function loaded(): NonNullable<typeof cache> {
  if (!cache) {
    const list = Object.freeze(validateUniverse(rawUniverse as unknown));
    cache = { list, bySymbol: new Map(list.map((i) => [i.symbol, i])) };
  }
  return cache;
}

/** All instruments in seed order. The array is a fresh copy; the instruments are frozen. */
export function loadUniverse(): Instrument[] {
  return [...loaded().list];
}

/** Looks an instrument up by ticker (case-insensitive); undefined when it is not in the universe. */
export function instrument(symbol: string): Instrument | undefined {
  return loaded().bySymbol.get(symbol.trim().toUpperCase());
}
