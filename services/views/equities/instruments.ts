/**
 * The instruments view: the reference data of every symbol (reference.instruments, a compacted
 * topic of one partition), for the market map. One hash in partition 0:
 *
 *   i   hash  symbol -> JSON {companyName, sector, industry, exchange, isIndex, sharesOutstanding, marketCap}
 *
 * The latest event of a symbol replaces its entry; a tombstone removes it.
 */

export const INSTRUMENTS_VIEW = 'instruments';
export const INSTRUMENTS_FORMAT = 1;

export interface InstrumentRecord {
  companyName: string;
  sector: string;
  industry: string;
  exchange: string;
  isIndex: boolean;
  sharesOutstanding: number;
  marketCap: number;
}
