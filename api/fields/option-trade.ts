import { INDUSTRIES, SECTORS } from '../../services/domain/enums';
import { CONSOLIDATION_TYPES, MONEY_TYPES, SENTIMENT_TYPES, TRADE_SIDES, TRADE_SIDE_ALIASES, TRADE_TYPES } from '../../services/domain/order-flow';
import { parseOsi } from '../../services/domain/osi';
import { GREEK_NAMES } from '../../services/domain/pricing';
import { OPTION_EXCHANGE_CODES } from '../../services/domain/venues';
import type { OrderFlowConsolidatedRow, OrderFlowPrintRow, OrderFlowRow } from '../../services/views/order-flow';
import { FieldDef, FieldSet, Scalar, show } from '../request/fields';
import type { FilterParam } from '../request/filter-object';
import { EnumLookup } from '../request/names';
import { invalid } from '../request/problem';
import { TICKER_FILTER } from '../request/required-ticker';

/**
 * The option-trade field reference (spec "Option-trade filter set" and the order-flow rows):
 * every filterable and projectable field of a consolidated or unconsolidated row, and the
 * convenience filters of the filter object. Shared by every endpoint over option trades.
 *
 * Nested objects project as a whole (GREEKS, MONEYNESS); their members are filterable and
 * sortable on their own (the fifteen greeks CHARM ... ZOMMA, MONEY_TYPE, DEGREE,
 * DEGREE_IN_PERCENT). A row without greeks (no implied volatility) matches no greek condition.
 */

export const sectorLookup = new EnumLookup('sector', SECTORS);
export const industryLookup = new EnumLookup('industry', INDUSTRIES);
export const tradeSideLookup = new EnumLookup('trade side', TRADE_SIDES, TRADE_SIDE_ALIASES);
const contractTypeLookup = new EnumLookup('contract type', ['CALL', 'PUT']);
const moneyTypeLookup = new EnumLookup('money type', MONEY_TYPES);
const sentimentLookup = new EnumLookup('sentiment type', SENTIMENT_TYPES);
const tradeTypeLookup = new EnumLookup('trade type', TRADE_TYPES);
const exchangeLookup = new EnumLookup('options exchange', OPTION_EXCHANGE_CODES);
const consolidationLookup = new EnumLookup('consolidation type', CONSOLIDATION_TYPES);

function parseId(raw: unknown, path: string): Scalar {
  if (typeof raw !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(raw)) throw invalid(path, `ID takes a row id, got ${show(raw)}`);
  return raw.toLowerCase();
}

/** An OSI option symbol: exactly 21 characters (root padded with spaces), e.g. "SPY   261218C00450000". */
export function parseOsiValue(raw: unknown, path: string): Scalar {
  if (typeof raw !== 'string' || raw.length !== 21 || !parseOsi(raw.toUpperCase())) {
    throw invalid(path, `must be a 21-character OSI option symbol (root padded to 6 with spaces, yymmdd, C or P, strike x 1000 in 8 digits), got ${show(raw)}`);
  }
  return raw.toUpperCase();
}

type R = OrderFlowRow;
const num = (name: string, responseKey: string, get: (r: R) => number | null, extra: Partial<FieldDef<R>> = {}): FieldDef<R> => ({
  name,
  type: 'number',
  filterable: true,
  projectable: true,
  responseKey,
  get,
  ...extra,
});
const int = (name: string, responseKey: string, get: (r: R) => number, extra: Partial<FieldDef<R>> = {}): FieldDef<R> =>
  num(name, responseKey, get, { type: 'integer', ...extra });
const bool = (name: string, responseKey: string, get: (r: R) => boolean): FieldDef<R> => ({
  name,
  type: 'boolean',
  filterable: true,
  projectable: true,
  responseKey,
  get,
});
const enumField = (name: string, aliases: string[], lookup: EnumLookup, responseKey: string | undefined, get: (r: R) => string): FieldDef<R> => ({
  name,
  aliases,
  type: 'enum',
  enumLookup: lookup,
  filterable: true,
  projectable: responseKey !== undefined,
  responseKey,
  get,
});
const greek = (name: keyof NonNullable<R['greeks']>) =>
  num(name.toUpperCase(), 'greeks', (r) => r.greeks?.[name] ?? null, { projectable: false, responseKey: undefined });

const COMMON: FieldDef<R>[] = [
  { name: 'ID', type: 'symbol', parse: parseId, filterable: true, projectable: true, responseKey: 'id', get: (r) => r.id },
  { name: 'TICKER', aliases: ['TICKERS'], type: 'symbol', filterable: true, projectable: true, responseKey: 'ticker', get: (r) => r.ticker },
  enumField('CONTRACT_TYPE', ['CONTRACT_TYPES'], contractTypeLookup, 'contractType', (r) => r.contractType),
  {
    name: 'EXPIRATION_DATE',
    aliases: ['EXPIRATION_DATES'],
    type: 'date',
    filterable: true,
    projectable: true,
    responseKey: 'expirationDate',
    get: (r) => r.expirationDate,
  },
  num('DTE', 'dte', (r) => r.dte),
  num('STRIKE_PRICE', 'strikePrice', (r) => r.strikePrice, { aliases: ['STRIKE_PRICES'] }),
  enumField('SECTOR', ['SECTORS'], sectorLookup, 'sector', (r) => r.sector),
  enumField('INDUSTRY', ['INDUSTRIES'], industryLookup, 'industry', (r) => r.industry),
  enumField('EXCHANGE', ['EXCHANGES'], exchangeLookup, 'exchange', (r) => r.exchange),
  num('PREMIUM', 'premium', (r) => r.premium),
  int('SIZE', 'size', (r) => r.size),
  int('VOLUME', 'volume', (r) => r.volume),
  int('OPEN_INTEREST', 'openInterest', (r) => r.openInterest),
  num('OPTION_PRICE', 'optionPrice', (r) => r.optionPrice),
  num('ASK_PRICE', 'askPrice', (r) => r.askPrice),
  num('BID_PRICE', 'bidPrice', (r) => r.bidPrice),
  num('BID_ASK_SPREAD', 'bidAskSpread', (r) => r.bidAskSpread),
  num('STOCK_PRICE', 'stockPrice', (r) => r.stockPrice),
  num('IMPLIED_VOLATILITY', 'impliedVolatility', (r) => r.impliedVolatility),
  enumField('TRADE_SIDE_CODE', ['TRADE_SIDE_CODES', 'TRADE_SIDE'], tradeSideLookup, 'tradeSideCode', (r) => r.tradeSideCode),
  enumField('TRADE_TYPE', ['TRADE_TYPES'], tradeTypeLookup, 'tradeType', (r) => r.tradeType),
  enumField('SENTIMENT_TYPE', ['SENTIMENT_TYPES', 'SENTIMENT'], sentimentLookup, 'sentimentType', (r) => r.sentimentType),
  bool('IS_UNUSUAL', 'isUnusual', (r) => r.isUnusual),
  bool('IS_OPENING_POSITION', 'isOpeningPosition', (r) => r.isOpeningPosition),
  bool('IS_ETF', 'isETF', (r) => r.isETF),
  bool('IS_INDEX', 'isIndex', (r) => r.isIndex),
  bool('IS_VOLUME_GREATER_THAN_OPEN_INTEREST', 'isVolumeGreaterThanOpenInterest', (r) => r.isVolumeGreaterThanOpenInterest),
  // Nested objects: projected as a whole, filtered and sorted by member.
  { name: 'GREEKS', type: 'number', filterable: false, projectable: true, responseKey: 'greeks', get: () => null },
  ...GREEK_NAMES.map(greek),
  { name: 'MONEYNESS', type: 'number', filterable: false, projectable: true, responseKey: 'moneyness', get: () => null },
  enumField('MONEY_TYPE', ['MONEY_TYPES'], moneyTypeLookup, undefined, (r) => r.moneyness.moneyType),
  num('DEGREE', 'moneyness', (r) => r.moneyness.degree, { projectable: false, responseKey: undefined }),
  num('DEGREE_IN_PERCENT', 'moneyness', (r) => r.moneyness.degreeInPercent, { projectable: false, responseKey: undefined }),
  { name: 'TRADE_TIME', type: 'time', filterable: true, projectable: true, responseKey: 'tradeTime', get: (r) => r.tradeTime },
];

export const UNCONSOLIDATED_FIELDS = new FieldSet<OrderFlowPrintRow>([
  ...(COMMON as FieldDef<OrderFlowPrintRow>[]),
  { name: 'OSI', type: 'symbol', parse: parseOsiValue, filterable: true, projectable: true, responseKey: 'osi', get: (r) => r.osi },
]);

export const CONSOLIDATED_FIELDS = new FieldSet<OrderFlowConsolidatedRow>([
  ...(COMMON as FieldDef<OrderFlowConsolidatedRow>[]),
  enumField(
    'TRADE_CONSOLIDATION_TYPE',
    ['TRADE_CONSOLIDATION_TYPES'],
    consolidationLookup,
    'tradeConsolidationType',
    (r) => (r as OrderFlowConsolidatedRow).tradeConsolidationType,
  ) as FieldDef<OrderFlowConsolidatedRow>,
  bool('IS_GOLDEN_SWEEP', 'isGoldenSweep', (r) => (r as OrderFlowConsolidatedRow).isGoldenSweep) as FieldDef<OrderFlowConsolidatedRow>,
  { name: 'COMPRISING_TRADES', type: 'number', filterable: false, projectable: true, responseKey: 'comprisingTrades', get: () => null },
]);

/** The option-trade filter set (spec), shared by every option-trade endpoint. */
export const OPTION_TRADE_FILTERS: FilterParam[] = [
  TICKER_FILTER,
  { key: 'sectors', aliases: ['sector'], kind: 'in', field: 'SECTOR' },
  { key: 'industries', aliases: ['industry'], kind: 'in', field: 'INDUSTRY' },
  { key: 'contractTypes', aliases: ['contractType'], kind: 'in', field: 'CONTRACT_TYPE' },
  { key: 'moneyTypes', aliases: ['moneyType'], kind: 'in', field: 'MONEY_TYPE' },
  { key: 'strikePrices', aliases: ['strikePrice'], kind: 'in', field: 'STRIKE_PRICE' },
  { key: 'strikePriceRange', kind: 'range', field: 'STRIKE_PRICE' },
  { key: 'expirationDates', aliases: ['expirationDate'], kind: 'in', field: 'EXPIRATION_DATE' },
  { key: 'expirationDateRange', kind: 'dateRange', field: 'EXPIRATION_DATE' },
  { key: 'tradeSideCodes', aliases: ['tradeSideCode'], kind: 'in', field: 'TRADE_SIDE_CODE' },
  { key: 'tradeTypes', aliases: ['tradeType'], kind: 'in', field: 'TRADE_TYPE' },
  { key: 'sentimentTypes', aliases: ['sentimentType'], kind: 'in', field: 'SENTIMENT_TYPE' },
  { key: 'exchanges', aliases: ['exchange'], kind: 'in', field: 'EXCHANGE' },
  { key: 'premiumRange', kind: 'range', field: 'PREMIUM' },
  { key: 'volumeRange', kind: 'range', field: 'VOLUME' },
  { key: 'moneynessInDollarsRange', kind: 'range', field: 'DEGREE' },
  { key: 'moneynessInPercentRange', kind: 'range', field: 'DEGREE_IN_PERCENT' },
  // The vendor's greek ranges, deltaRange ... zommaRange.
  ...GREEK_NAMES.map((n): FilterParam => ({ key: `${n}Range`, kind: 'range', field: n.toUpperCase() })),
];

/** Additions of both order-flow tapes. */
export const ORDER_FLOW_FILTERS: FilterParam[] = [
  ...OPTION_TRADE_FILTERS,
  { key: 'sizeRange', kind: 'range', field: 'SIZE' },
  { key: 'isUnusual', kind: 'bool', field: 'IS_UNUSUAL' },
  { key: 'isOpeningPosition', kind: 'bool', field: 'IS_OPENING_POSITION' },
  { key: 'isVolumeGreaterThanOpenInterest', kind: 'bool', field: 'IS_VOLUME_GREATER_THAN_OPEN_INTEREST' },
];

export const CONSOLIDATED_FILTERS: FilterParam[] = [
  ...ORDER_FLOW_FILTERS,
  { key: 'tradeConsolidationTypes', aliases: ['tradeConsolidationType'], kind: 'in', field: 'TRADE_CONSOLIDATION_TYPE' },
  { key: 'isGoldenSweep', kind: 'bool', field: 'IS_GOLDEN_SWEEP' },
];

export const UNCONSOLIDATED_FILTERS: FilterParam[] = [...ORDER_FLOW_FILTERS, { key: 'osi', kind: 'eq', field: 'OSI' }];

/** A single value and a range of the same field are mutually exclusive (spec). */
export const OPTION_TRADE_EXCLUSIVE = [
  ['strikePrices', 'strikePriceRange'],
  ['expirationDates', 'expirationDateRange'],
] as const;
