import { EXCHANGES } from '../../services/domain/universe';
import { FieldSet } from '../request/fields';
import type { FilterParam } from '../request/filter-object';
import { EnumLookup } from '../request/names';
import { industryLookup, sectorLookup } from './option-trade';

/** A market-map entry before it is written: reference data and the two prices. */
export interface MarketMapEntry {
  symbol: string;
  companyName: string;
  exchange: string;
  sector: string;
  industry: string;
  /** Market capitalization at the snapshot: shares outstanding x currentValue, dollars. */
  size: number;
  currentValue: number;
  previousValue: number;
}

const exchangeLookup = new EnumLookup('listing exchange', EXCHANGES);

/**
 * The market-map field reference (spec: filterExpression form B over COMPANY_NAME, EXCHANGE,
 * INDUSTRY, MARKET_CAP alias MARKET_CAPITALIZATION, SECTOR, SYMBOL alias TICKER). The endpoint
 * has no projection, so no field is projectable.
 */
export const MARKET_MAP_FIELDS = new FieldSet<MarketMapEntry>([
  { name: 'COMPANY_NAME', type: 'text', filterable: true, projectable: false, get: (r) => r.companyName },
  { name: 'EXCHANGE', aliases: ['EXCHANGES'], type: 'enum', enumLookup: exchangeLookup, filterable: true, projectable: false, get: (r) => r.exchange },
  { name: 'INDUSTRY', aliases: ['INDUSTRIES'], type: 'enum', enumLookup: industryLookup, filterable: true, projectable: false, get: (r) => r.industry },
  { name: 'MARKET_CAP', aliases: ['MARKET_CAPITALIZATION'], type: 'number', filterable: true, projectable: false, get: (r) => r.size },
  { name: 'SECTOR', aliases: ['SECTORS'], type: 'enum', enumLookup: sectorLookup, filterable: true, projectable: false, get: (r) => r.sector },
  { name: 'SYMBOL', aliases: ['TICKER', 'TICKERS', 'SYMBOLS'], type: 'symbol', filterable: true, projectable: false, get: (r) => r.symbol },
]);

export const MARKET_MAP_FILTERS: FilterParam[] = [
  { key: 'sectors', aliases: ['sector'], kind: 'in', field: 'SECTOR' },
  { key: 'industries', aliases: ['industry'], kind: 'in', field: 'INDUSTRY' },
];

/** Words kept upper-case in labels. */
const ACRONYMS = new Set(['REIT', 'ETF', 'US']);

/**
 * The display label of a sector or industry constant (the vendor's responses carry labels such
 * as "Technology", "Semiconductors"): words capitalized, AND as "&", a double underscore (a
 * sub-category) as " - ". Filters accept either form.
 */
export function displayLabel(constant: string): string {
  return constant
    .split('__')
    .map((part) =>
      part
        .split('_')
        .map((w) => (w === 'AND' ? '&' : ACRONYMS.has(w) ? w : w.charAt(0) + w.slice(1).toLowerCase()))
        .join(' '),
    )
    .join(' - ');
}
