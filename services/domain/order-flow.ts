/**
 * Value sets of option order-flow rows. The spec names the trade sides and money types; the
 * others are "not shown" there and are this service's documented choices (README).
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

/** How a print was executed, from its exchange condition code. */
export const TRADE_TYPES = ['ELECTRONIC', 'AUCTION', 'INTERMARKET_SWEEP', 'CROSS', 'MULTI_LEG', 'OTHER'] as const;
export type TradeType = (typeof TRADE_TYPES)[number];
const CONDITION_TRADE_TYPE: Record<string, TradeType> = { AUTO: 'ELECTRONIC', SLAN: 'AUCTION', SLAI: 'AUCTION', ISOI: 'INTERMARKET_SWEEP', SLCN: 'CROSS', MLET: 'MULTI_LEG', MLAT: 'MULTI_LEG' };

export function tradeTypeOf(conditions: readonly string[]): TradeType {
  for (const c of conditions) {
    const t = CONDITION_TRADE_TYPE[c];
    if (t) return t;
  }
  return 'OTHER';
}
