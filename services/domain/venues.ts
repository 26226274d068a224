/**
 * Trading venues. The spec leaves the exchange value sets open ("not shown"); these are the
 * US options exchanges and the US equity venues, by short code, as documented in docs/ingest.md. Off-exchange (FINRA TRF) equity prints are the DARK_POOL print type.
 */

/** US options exchanges: code -> name. */
export const OPTION_EXCHANGES = {
  AMEX: 'NYSE American Options',
  ARCA: 'NYSE Arca Options',
  BOX: 'BOX Options Exchange',
  BZX: 'Cboe BZX Options',
  C2: 'Cboe C2 Options',
  CBOE: 'Cboe Options Exchange',
  EDGX: 'Cboe EDGX Options',
  EMLD: 'MIAX Emerald',
  GEMX: 'Nasdaq GEMX',
  ISE: 'Nasdaq ISE',
  MEMX: 'MEMX Options',
  MIAX: 'MIAX Options',
  MPRL: 'MIAX Pearl',
  MRX: 'Nasdaq MRX',
  NOBO: 'Nasdaq BX Options',
  NSDQ: 'Nasdaq Options Market',
  PHLX: 'Nasdaq PHLX',
  SPHR: 'MIAX Sapphire',
} as const;
export type OptionExchange = keyof typeof OPTION_EXCHANGES;
export const OPTION_EXCHANGE_CODES = Object.keys(OPTION_EXCHANGES) as OptionExchange[];

/** Lit US equity exchanges: code -> name. */
export const LIT_EQUITY_VENUES = {
  NYSE: 'New York Stock Exchange',
  NASDAQ: 'Nasdaq Stock Market',
  ARCA: 'NYSE Arca',
  AMEX: 'NYSE American',
  BZX: 'Cboe BZX',
  BYX: 'Cboe BYX',
  EDGX: 'Cboe EDGX',
  EDGA: 'Cboe EDGA',
  IEX: 'Investors Exchange',
  MEMX: 'Members Exchange',
  BX: 'Nasdaq BX',
  PSX: 'Nasdaq PSX',
  CHX: 'NYSE Chicago',
  NSX: 'NYSE National',
  MIAX: 'MIAX Pearl Equities',
  LTSE: 'Long-Term Stock Exchange',
} as const;

/** Off-exchange trade reporting facilities (prints typed DARK_POOL). */
export const OFF_EXCHANGE_VENUES = {
  TRFN: 'FINRA/Nasdaq TRF Carteret',
  TRFC: 'FINRA/Nasdaq TRF Chicago',
  TRFY: 'FINRA/NYSE TRF',
  ADF: 'FINRA Alternative Display Facility',
} as const;

export const PRINT_TYPES = ['LIT', 'DARK_POOL'] as const;
export type PrintType = (typeof PRINT_TYPES)[number];
