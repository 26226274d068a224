import type { OiChangeRow } from '../../services/views/open-interest';
import { FieldSet, show, type FieldDef } from '../request/fields';
import type { FilterParam } from '../request/filter-object';
import { EnumLookup } from '../request/names';
import { invalid } from '../request/problem';
import { TICKER_FILTER } from '../request/required-ticker';

/**
 * The open-interest change row's field reference (spec "Open interest change row"): the eleven
 * fields are all filterable, projectable and sortable, and the filter object's keys.
 */

const contractTypeLookup = new EnumLookup('contract type', ['CALL', 'PUT']);

type R = OiChangeRow;
const field = (
  name: string,
  type: FieldDef<R>['type'],
  responseKey: string,
  get: (r: R) => string | number | null,
  extra: Partial<FieldDef<R>> = {},
): FieldDef<R> => ({
  name,
  type,
  filterable: true,
  projectable: true,
  responseKey,
  get,
  ...extra,
});

function parseRowId(raw: unknown, path: string): string {
  if (typeof raw !== 'string' || !/^[A-Za-z0-9]{1,6}\d{6}[CPcp]\d{8}-\d{8}$/.test(raw))
    throw invalid(path, `ID takes a row id such as SPY260116C00450000-20260105, got ${show(raw)}`);
  return raw.toUpperCase();
}

export const OI_CHANGE_FIELDS = new FieldSet<R>([
  field('ID', 'symbol', 'id', (r) => r.id, { parse: parseRowId }),
  field('TICKER', 'symbol', 'ticker', (r) => r.ticker, { aliases: ['TICKERS'] }),
  field('CONTRACT_TYPE', 'enum', 'contractType', (r) => r.contractType, { aliases: ['CONTRACT_TYPES'], enumLookup: contractTypeLookup }),
  field('STRIKE_PRICE', 'number', 'strikePrice', (r) => r.strikePrice, { aliases: ['STRIKE_PRICES', 'STRIKE'] }),
  field('EXPIRATION_DATE', 'date', 'expirationDate', (r) => r.expirationDate, { aliases: ['EXPIRATION_DATES'] }),
  field('PREVIOUS_OPEN_INTEREST', 'integer', 'previousOpenInterest', (r) => r.previousOpenInterest),
  field('CURRENT_OPEN_INTEREST', 'integer', 'currentOpenInterest', (r) => r.currentOpenInterest, { aliases: ['OPEN_INTEREST', 'OI'] }),
  field('CHANGE_IN_OPEN_INTEREST', 'integer', 'changeInOpenInterest', (r) => r.changeInOpenInterest),
  field('PERCENT_CHANGE_IN_OPEN_INTEREST', 'number', 'percentChangeInOpenInterest', (r) => r.percentChangeInOpenInterest),
  field('SESSION_DATE', 'date', 'sessionDate', (r) => r.sessionDate),
  field('CREATED_TIME', 'time', 'createdTime', (r) => r.createdTime),
]);

export const OI_CHANGE_FILTERS: FilterParam[] = [
  TICKER_FILTER,
  { key: 'contractTypes', aliases: ['contractType'], kind: 'in', field: 'CONTRACT_TYPE' },
  { key: 'strikePrices', aliases: ['strikePrice'], kind: 'in', field: 'STRIKE_PRICE' },
  { key: 'strikePriceRange', kind: 'range', field: 'STRIKE_PRICE' },
  { key: 'expirationDates', aliases: ['expirationDate'], kind: 'in', field: 'EXPIRATION_DATE' },
  { key: 'expirationDateRange', kind: 'dateRange', field: 'EXPIRATION_DATE' },
  { key: 'previousOpenInterestRange', kind: 'range', field: 'PREVIOUS_OPEN_INTEREST' },
  { key: 'currentOpenInterestRange', kind: 'range', field: 'CURRENT_OPEN_INTEREST' },
  { key: 'changeInOpenInterestRange', kind: 'range', field: 'CHANGE_IN_OPEN_INTEREST' },
  { key: 'percentChangeInOpenInterestRange', kind: 'range', field: 'PERCENT_CHANGE_IN_OPEN_INTEREST' },
];

export const OI_CHANGE_EXCLUSIVE = [
  ['strikePrices', 'strikePriceRange'],
  ['expirationDates', 'expirationDateRange'],
] as const;
