import { MONEY_TYPES, type MoneyType } from '../../services/domain/order-flow';
import { FieldSet, type FieldDef } from '../request/fields';
import type { FilterParam } from '../request/filter-object';
import { EnumLookup } from '../request/names';
import { TICKER_FILTER } from '../request/required-ticker';

/** A contract's identity: what the heat-map's contracts and the surface legs have in common. */
export interface ContractKeyRow {
  ticker: string;
  expirationDate: string;
  strikePrice: number;
  contractType: 'CALL' | 'PUT';
}

/**
 * A leg of a volatility surface as the snapshot endpoints filter it (term-structure,
 * exposure-by-strike): one contract at one snapshot with its moneyness at the snapshot's price.
 */
export interface SurfaceLegRow extends ContractKeyRow {
  moneyType: MoneyType;
  delta: number;
  impliedVolatility: number;
}

const contractTypeLookup = new EnumLookup('contract type', ['CALL', 'PUT']);
const moneyTypeLookup = new EnumLookup('money type', MONEY_TYPES);

/** The fields of a contract's identity, shared by the surface legs and the heat-map's contracts. */
const CONTRACT_KEY_FIELDS: FieldDef<ContractKeyRow>[] = [
  { name: 'TICKER', aliases: ['TICKERS'], type: 'symbol', filterable: true, projectable: false, get: (r) => r.ticker },
  { name: 'EXPIRATION_DATE', aliases: ['EXPIRATION_DATES'], type: 'date', filterable: true, projectable: false, get: (r) => r.expirationDate },
  { name: 'STRIKE_PRICE', aliases: ['STRIKE_PRICES', 'STRIKE'], type: 'number', filterable: true, projectable: false, get: (r) => r.strikePrice },
  {
    name: 'CONTRACT_TYPE',
    aliases: ['CONTRACT_TYPES'],
    type: 'enum',
    enumLookup: contractTypeLookup,
    filterable: true,
    projectable: false,
    get: (r) => r.contractType,
  },
];

export const SURFACE_FIELDS = new FieldSet<SurfaceLegRow>([
  ...CONTRACT_KEY_FIELDS,
  { name: 'MONEY_TYPE', aliases: ['MONEY_TYPES'], type: 'enum', enumLookup: moneyTypeLookup, filterable: true, projectable: false, get: (r) => r.moneyType },
  { name: 'DELTA', type: 'number', filterable: true, projectable: false, get: (r) => r.delta },
  { name: 'IMPLIED_VOLATILITY', aliases: ['IV'], type: 'number', filterable: true, projectable: false, get: (r) => r.impliedVolatility },
]);

/** The spec's snapshot filters (term-structure, exposure-by-strike); `filter.ticker` is required by each endpoint. */
export const SURFACE_FILTERS: FilterParam[] = [
  TICKER_FILTER,
  { key: 'expirationDates', aliases: ['expirationDate'], kind: 'in', field: 'EXPIRATION_DATE' },
  { key: 'expirationDateRange', kind: 'dateRange', field: 'EXPIRATION_DATE' },
  { key: 'strikePrices', aliases: ['strikePrice'], kind: 'in', field: 'STRIKE_PRICE' },
  { key: 'strikePriceRange', kind: 'range', field: 'STRIKE_PRICE' },
  { key: 'moneyTypes', aliases: ['moneyType'], kind: 'in', field: 'MONEY_TYPE' },
];

/** Term Structure adds deltaRange, each bound within -1..1 (spec Limits). */
export const DELTA_RANGE_FILTER: FilterParam = { key: 'deltaRange', kind: 'range', field: 'DELTA', bounds: { min: -1, max: 1 } };

export const SURFACE_EXCLUSIVE: readonly (readonly [string, string])[] = [
  ['strikePrices', 'strikePriceRange'],
  ['expirationDates', 'expirationDateRange'],
];

/** exposure-by-expiration: the snapshot filters without moneyTypes (vendor notes section 3). */
export const EXPOSURE_BY_EXPIRATION_FILTERS: FilterParam[] = SURFACE_FILTERS.filter((p) => p.key !== 'moneyTypes');

/** volatility-skew: ticker, contract types and expirations. */
export const SKEW_FILTERS: FilterParam[] = [
  TICKER_FILTER,
  { key: 'contractTypes', aliases: ['contractType'], kind: 'in', field: 'CONTRACT_TYPE' },
  ...SURFACE_FILTERS.filter((p) => p.key === 'expirationDates' || p.key === 'expirationDateRange'),
];

/**
 * A contract as heat-map filters it: only what names it, because heat-map's modes read three
 * sources (the surface, the session's open interest, the flow cube's contract cells) and these
 * four fields are what all three carry under the same names.
 */

export const HEAT_MAP_FIELDS = new FieldSet<ContractKeyRow>(CONTRACT_KEY_FIELDS);

/** heat-map: the snapshot filters without moneyTypes, over HEAT_MAP_FIELDS. */
export const HEAT_MAP_FILTERS: FilterParam[] = EXPOSURE_BY_EXPIRATION_FILTERS;
