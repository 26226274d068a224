import type { Greeks } from './pricing';
/**
 * Value sets of option order-flow rows. The spec names the trade sides and money types; the
 * others are "not shown" there and are this service's documented choices (docs/order-flow.md).
 */
export const TRADE_SIDES = ['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID'] as const;
export type TradeSide = (typeof TRADE_SIDES)[number];
/** Input aliases of the trade sides (accepted in filters, never returned). */
export const TRADE_SIDE_ALIASES: Record<string, TradeSide> = { AA: 'ABOVE_ASK', A: 'ASK', M: 'MID_MARKET', B: 'BID', BB: 'BELOW_BID' };

/** One option print as the feed reports it (the `option-print` event). */
export interface OptionPrint {
  id: string;
  osi: string;
  ticker: string;
  /** trade time, epoch-ms */
  time: number;
  price: number;
  size: number;
  exchange: string;
  conditions: string[];
  /** NBBO and underlying at the print */
  bidPrice: number;
  askPrice: number;
  underlyingPrice: number;
}

export const MONEY_TYPES = ['ATM', 'ITM', 'OTM'] as const;
export type MoneyType = (typeof MONEY_TYPES)[number];

export const SENTIMENT_TYPES = ['BULLISH', 'BEARISH', 'NEUTRAL'] as const;
export type SentimentType = (typeof SENTIMENT_TYPES)[number];

/**
 * How a print was executed, named as the vendor names it (docs/order-flow.md has the table): the
 * first recognised OPRA condition code of the print decides. A print with no recognised code is
 * AUTO, OPRA's plain electronic execution (a regular trade carries no modifier).
 */
export const TRADE_TYPES = [
  'AUTO',
  'ISO',
  'AUCT',
  'AUCT_ISO',
  'CROSS',
  'CROSS_ISO',
  'FLR',
  'MULTI_AUTO',
  'MULTI_AUCT',
  'MULTI_CROSS',
  'MULTI_FLR',
  'M2S_AUTO',
  'M2S_AUCT',
  'M2S_FLR',
  'TIED_AUTO',
  'TIED_AUCT',
  'TIED_CROSS',
  'TIED_FLR',
] as const;
export type TradeType = (typeof TRADE_TYPES)[number];
/** OPRA condition code -> vendor trade type. */
export const CONDITION_TRADE_TYPE: Readonly<Record<string, TradeType>> = {
  AUTO: 'AUTO', // electronic execution
  ISOI: 'ISO', // intermarket sweep order
  SLAN: 'AUCT', // single-leg auction, not ISO
  SLAI: 'AUCT_ISO', // single-leg auction, ISO
  SLCN: 'CROSS', // single-leg cross, not ISO
  SLCI: 'CROSS_ISO', // single-leg cross, ISO
  SLFT: 'FLR', // single-leg floor trade
  MLET: 'MULTI_AUTO', // multi-leg electronic
  MLAT: 'MULTI_AUCT', // multi-leg auction
  MLCT: 'MULTI_CROSS', // multi-leg cross
  MLFT: 'MULTI_FLR', // multi-leg floor trade
  MESL: 'M2S_AUTO', // multi-leg electronic against single legs
  MASL: 'M2S_AUCT', // multi-leg auction against single legs
  MFSL: 'M2S_FLR', // multi-leg floor trade against single legs
  TLET: 'TIED_AUTO', // stock-tied multi-leg electronic
  TLAT: 'TIED_AUCT', // stock-tied multi-leg auction
  TLCT: 'TIED_CROSS', // stock-tied multi-leg cross
  TLFT: 'TIED_FLR', // stock-tied multi-leg floor trade
};
export const DEFAULT_TRADE_TYPE: TradeType = 'AUTO';

export function tradeTypeOf(conditions: readonly string[]): TradeType {
  for (const c of conditions) {
    const t = CONDITION_TRADE_TYPE[c];
    if (t) return t;
  }
  return DEFAULT_TRADE_TYPE;
}

/**
 * The trade types events of row format 1 carry (this service's earlier names), as vendor names.
 * Lossy where the old name merged codes: an ISO auction (SLAI) was AUCTION and reads AUCT, every
 * multi-leg code was MULTI_LEG and reads MULTI_AUTO, and OTHER reads AUTO.
 */
export const LEGACY_TRADE_TYPE: Readonly<Record<string, TradeType>> = {
  ELECTRONIC: 'AUTO',
  AUCTION: 'AUCT',
  INTERMARKET_SWEEP: 'ISO',
  CROSS: 'CROSS',
  MULTI_LEG: 'MULTI_AUTO',
  OTHER: 'AUTO',
};

/**
 * Consolidation (docs/order-flow.md): prints of one contract, one session and
 * one direction (buying: ASK/ABOVE_ASK, selling: BID/BELOW_BID, MID_MARKET on its own) whose
 * consecutive trade times are at most CONSOLIDATION_GAP_MS apart form one consolidated trade:
 * SWEEP when it spans two or more exchanges, SPLIT when it has several prints on one exchange,
 * BLOCK when it is one print of at least BLOCK_MIN_SIZE contracts. Every print belongs to exactly
 * one group. A group of one print below BLOCK_MIN_SIZE (SINGLE in the event) is no consolidated
 * trade: the consolidated tape leaves it out (the print stays on the unconsolidated tape), and
 * it becomes a row when a second print joins it. A golden sweep is a buying SWEEP (at or above
 * the ask) worth at least GOLDEN_SWEEP_PREMIUM.
 */
export const CONSOLIDATION_TYPES = ['SWEEP', 'SPLIT', 'BLOCK'] as const;
export type ConsolidationType = (typeof CONSOLIDATION_TYPES)[number];
/** What a version of the consolidated-trade event classifies as: a row's type, or a lone small print. */
export type ConsolidationState = ConsolidationType | 'SINGLE';
export function isConsolidatedRow(type: ConsolidationState): type is ConsolidationType {
  return type !== 'SINGLE';
}
export const CONSOLIDATION_GAP_MS = 500;
export const BLOCK_MIN_SIZE = 100;
export const GOLDEN_SWEEP_PREMIUM = 1_000_000;
/** Open-interest rules joined by the projectors (see projections/order-flow). */
export const UNUSUAL_PREMIUM = 25_000;
export const LARGE_PREMIUM = 1_000_000;

export type Direction = 'BUY' | 'SELL' | 'MID';
export function directionOf(side: TradeSide): Direction {
  return side === 'ASK' || side === 'ABOVE_ASK' ? 'BUY' : side === 'BID' || side === 'BELOW_BID' ? 'SELL' : 'MID';
}

/** The greeks of a row: services/domain/pricing.ts Greeks (trader units). */
export type GreeksRecord = Greeks;

/**
 * Moneyness of a row: degree = |strike - stock price| in dollars, never negative (whether the
 * contract is in or out of the money is moneyType's); degreeInPercent = degree / stock price x 100.
 */
export interface Moneyness {
  degree: number;
  degreeInPercent: number;
  moneyType: MoneyType;
}

/** Half-width of the at-the-money band, as a fraction of the strike. */
export const ATM_BAND = 0.005;

/** Moneyness of a contract at a stock price (Moneyness); ATM within ATM_BAND of the strike, edge included. */
export function moneynessOf(right: 'CALL' | 'PUT', spot: number, strike: number): Moneyness {
  const degree = Math.abs(strike - spot);
  const inTheMoney = right === 'CALL' ? spot > strike : strike > spot;
  // The band's edge belongs to ATM (compared in dollars with a hair of slack for decimal noise).
  const moneyType: MoneyType = degree <= ATM_BAND * strike + 1e-9 ? 'ATM' : inTheMoney ? 'ITM' : 'OTM';
  return { degree, degreeInPercent: (degree / spot) * 100, moneyType };
}

/** Fields of both derived events (schemas/enriched-print.avsc, consolidated-trade.avsc). */
export interface OrderFlowCommon {
  /** 2-digit source partition + 8-char base36 source offset of the (first) print. */
  rowKey: string;
  id: string;
  sessionDate: string;
  osi: string;
  ticker: string;
  contractType: 'CALL' | 'PUT';
  strikePrice: number;
  expirationDate: string;
  dte: number;
  premium: number;
  size: number;
  volume: number;
  stockPrice: number;
  askPrice: number;
  bidPrice: number;
  bidAskSpread: number;
  optionPrice: number;
  impliedVolatility: number | null;
  greeks: GreeksRecord | null;
  moneyness: Moneyness;
  tradeSideCode: TradeSide;
  sentimentType: SentimentType;
  tradeType: TradeType;
  isETF: boolean;
  isIndex: boolean;
  sector: string;
  industry: string;
  exchange: string;
  tradeTime: number;
  /**
   * Layout of the derived fields: 2 (ROW_FORMAT) for events with the fifteen greeks, the dollar
   * moneyness and vendor trade types; 1 (the schema default) for events written before.
   * upgradeOrderFlowEvent (projections/enrich) brings a format-1 event to format 2.
   */
  rowFormat: number;
}

/** rowFormat of the events this code writes. */
export const ROW_FORMAT = 2;

/** The `enriched-print` event. */
export interface EnrichedPrintEvent extends OrderFlowCommon {
  printId: string;
}

export interface ComprisingTrade {
  id: string;
  osi: string;
  tradeTime: number;
  exchange: string;
  optionPrice: number;
  size: number;
  premium: number;
  tradeSideCode: TradeSide;
  bidPrice: number;
  askPrice: number;
}

/** The `consolidated-trade` event: one version of a consolidated trade. */
export interface ConsolidatedTradeEvent extends OrderFlowCommon {
  version: number;
  tradeConsolidationType: ConsolidationState;
  isGoldenSweep: boolean;
  lastTradeTime: number;
  comprisingTrades: ComprisingTrade[];
}

/** Fields that depend on the start-of-session open interest (joined by the projectors). */
export interface OpenInterestFlags {
  openInterest: number;
  isOpeningPosition: boolean;
  isVolumeGreaterThanOpenInterest: boolean;
  isUnusual: boolean;
}

export function openInterestFlags(r: { size: number; volume: number; premium: number }, openInterest: number): OpenInterestFlags {
  return {
    openInterest,
    isOpeningPosition: r.size > openInterest,
    isVolumeGreaterThanOpenInterest: r.volume > openInterest,
    isUnusual: (r.size > openInterest && r.premium >= UNUSUAL_PREMIUM) || r.premium >= LARGE_PREMIUM,
  };
}

/** rowKey of a source print: its partition and offset, fixed width so it sorts as (partition, offset). */
export function rowKeyOf(partition: number, offset: number): string {
  return `${String(partition).padStart(2, '0')}${offset.toString(36).padStart(8, '0')}`;
}
