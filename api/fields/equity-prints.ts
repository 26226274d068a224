import { TRADE_SIDES, TRADE_SIDE_ALIASES } from '../../services/domain/order-flow';
import { PRINT_TYPES, type EquityPrintRow } from '../../services/views/equities/equity-prints';
import { FieldDef, FieldSet } from '../request/fields';
import type { FilterParam } from '../request/filter-object';
import { EnumLookup } from '../request/names';
import { TICKER_FILTER } from '../request/required-ticker';

/**
 * The equity print field reference (spec "Equity print row"). Every field but ID is filterable,
 * and so sortable; ID is projectable only. printType is LIT or DARK_POOL; tradeSide is the print
 * against the NBBO at the print (ABOVE_ASK, ASK, MID_MARKET, BID, BELOW_BID), short codes
 * accepted as input.
 */

export const printTypeLookup = new EnumLookup('print type', PRINT_TYPES);
const tradeSideLookup = new EnumLookup('trade side', TRADE_SIDES, TRADE_SIDE_ALIASES);

type R = EquityPrintRow;
const num = (name: string, responseKey: keyof R, type: 'number' | 'integer', aliases: string[] = []): FieldDef<R> => ({
  name,
  aliases,
  type,
  filterable: true,
  projectable: true,
  responseKey,
  get: (r) => r[responseKey] as number,
});

export const EQUITY_PRINT_FIELDS = new FieldSet<R>([
  { name: 'ID', type: 'symbol', filterable: false, projectable: true, responseKey: 'id', get: (r) => r.id },
  { name: 'TICKER', aliases: ['TICKERS'], type: 'symbol', filterable: true, projectable: true, responseKey: 'ticker', get: (r) => r.ticker },
  num('PRICE', 'price', 'number'),
  num('SIZE', 'size', 'integer'),
  num('NOTIONAL_VALUE', 'notionalValue', 'number', ['NOTIONAL']),
  {
    name: 'PRINT_TYPE',
    aliases: ['PRINT_TYPES', 'EQUITY_PRINT_TYPE', 'EQUITY_PRINT_TYPES', 'TYPE', 'TYPES'],
    type: 'enum',
    enumLookup: printTypeLookup,
    filterable: true,
    projectable: true,
    responseKey: 'printType',
    get: (r) => r.printType,
  },
  {
    name: 'TRADE_SIDE',
    aliases: ['TRADE_SIDES', 'TRADE_SIDE_CODE', 'TRADE_SIDE_CODES'],
    type: 'enum',
    enumLookup: tradeSideLookup,
    filterable: true,
    projectable: true,
    responseKey: 'tradeSide',
    get: (r) => r.tradeSide,
  },
  num('ASK_PRICE', 'askPrice', 'number'),
  num('BID_PRICE', 'bidPrice', 'number'),
  num('ASK_SIZE', 'askSize', 'integer'),
  num('BID_SIZE', 'bidSize', 'integer'),
  { name: 'IS_DELAYED_PRINT', type: 'boolean', filterable: true, projectable: true, responseKey: 'isDelayedPrint', get: (r) => r.isDelayedPrint },
  { name: 'TRADE_TIME', type: 'time', filterable: true, projectable: true, responseKey: 'tradeTime', get: (r) => r.tradeTime },
]);

export const EQUITY_PRINT_FILTERS: FilterParam[] = [
  TICKER_FILTER,
  { key: 'equityPrintTypes', aliases: ['equityPrintType', 'printType', 'printTypes', 'type', 'types'], kind: 'in', field: 'PRINT_TYPE' },
  { key: 'tradeSideCodes', aliases: ['tradeSideCode', 'tradeSide', 'tradeSides'], kind: 'in', field: 'TRADE_SIDE' },
  { key: 'priceRange', kind: 'range', field: 'PRICE' },
  { key: 'sizeRange', kind: 'range', field: 'SIZE' },
  { key: 'askPriceRange', kind: 'range', field: 'ASK_PRICE' },
  { key: 'askSizeRange', kind: 'range', field: 'ASK_SIZE' },
  { key: 'bidPriceRange', kind: 'range', field: 'BID_PRICE' },
  { key: 'bidSizeRange', kind: 'range', field: 'BID_SIZE' },
  { key: 'notionalValueRange', kind: 'range', field: 'NOTIONAL_VALUE' },
  { key: 'isDelayedPrint', kind: 'bool', field: 'IS_DELAYED_PRINT' },
];
