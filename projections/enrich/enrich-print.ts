import { v5 as uuidV5 } from 'uuid';
import { daysToExpiration } from '../../services/domain/calendar';
import { tradeTypeOf, type MoneyType, type OptionPrint, type SentimentType, type TradeSide, type TradeType } from '../../services/domain/order-flow';
import { parseOsi, type ContractRight } from '../../services/domain/osi';
import { bsmGreeks, impliedVolatility, type Greeks } from '../../services/domain/pricing';

/**
 * Enrichment of one option print: the derived fields of an order-flow row, computed only from the
 * print, the contract's start-of-session open interest, its volume before the print and the
 * underlying's reference data — so replaying the same prints in the same order gives the same rows.
 *
 * Rules (documented in the README):
 * - trade side: the print price against the NBBO at the print, with a 1e-6 tolerance for decimal
 *   noise: above the ask ABOVE_ASK, at the ask ASK, strictly inside MID_MARKET, at the bid BID,
 *   below the bid BELOW_BID.
 * - implied volatility: solved (Black-Scholes-Merton, European exercise: early exercise of
 *   American equity options is ignored, which understates puts deep in the money slightly) from
 *   the NBBO midpoint, so it does not depend on which side traded; from the print price when the
 *   midpoint admits no volatility; null when neither does. Greeks use that volatility.
 * - moneyness: degree = (S - K) / K for calls and (K - S) / K for puts (positive in the money);
 *   ATM when |S - K| <= ATM_BAND x K (0.5 %, edge included).
 * - sentiment: buying calls or selling puts is BULLISH, buying puts or selling calls BEARISH;
 *   at the ask or above is a buy, at the bid or below a sell, mid-market NEUTRAL.
 * - isOpeningPosition: the print alone is larger than the start-of-session open interest, so it
 *   cannot all be closing existing positions.
 * - isVolumeGreaterThanOpenInterest: the contract's volume so far today, this print included,
 *   exceeds the start-of-session open interest.
 * - isUnusual: the print alone is larger than the open interest and worth at least $25,000, or
 *   is worth at least $1,000,000.
 */

export const ATM_BAND = 0.005;
const SIDE_TOLERANCE = 1e-6;
const UNUSUAL_PREMIUM = 25_000;
const LARGE_PREMIUM = 1_000_000;
/** UUID v5 namespace of unconsolidated row ids (derived from print ids, so stable on replay). */
export const PRINT_ROW_NAMESPACE = '3c5a2b0e-6f0a-4d53-9a0e-6b1f2f7c9d41';

/** The raw print an order-flow row is derived from. */
export type RawPrint = OptionPrint;

export interface PrintContext {
  /** contracts traded in this contract earlier in the session */
  volumeBefore: number;
  /** start-of-session open interest (0 when none was published) */
  openInterest: number;
  sector: string;
  industry: string;
  isETF: boolean;
  isIndex: boolean;
  rate: number;
  dividend: number;
}

export interface EnrichedPrint {
  id: string;
  printId: string;
  osi: string;
  ticker: string;
  contractType: ContractRight;
  strikePrice: number;
  expirationDate: string;
  dte: number;
  premium: number;
  size: number;
  volume: number;
  openInterest: number;
  stockPrice: number;
  askPrice: number;
  bidPrice: number;
  bidAskSpread: number;
  optionPrice: number;
  impliedVolatility: number | null;
  greeks: Greeks | null;
  moneyness: { degree: number; degreeInPercent: number; moneyType: MoneyType };
  tradeSideCode: TradeSide;
  sentimentType: SentimentType;
  tradeType: TradeType;
  isOpeningPosition: boolean;
  isVolumeGreaterThanOpenInterest: boolean;
  isUnusual: boolean;
  isETF: boolean;
  isIndex: boolean;
  sector: string;
  industry: string;
  exchange: string;
  tradeTime: number;
}

export function tradeSideOf(price: number, bid: number, ask: number): TradeSide {
  if (price > ask + SIDE_TOLERANCE) return 'ABOVE_ASK';
  if (price >= ask - SIDE_TOLERANCE) return 'ASK';
  if (price < bid - SIDE_TOLERANCE) return 'BELOW_BID';
  if (price <= bid + SIDE_TOLERANCE) return 'BID';
  return 'MID_MARKET';
}

export function sentimentOf(right: ContractRight, side: TradeSide): SentimentType {
  if (side === 'MID_MARKET') return 'NEUTRAL';
  const buy = side === 'ASK' || side === 'ABOVE_ASK';
  return buy === (right === 'CALL') ? 'BULLISH' : 'BEARISH';
}

export function moneynessOf(right: ContractRight, spot: number, strike: number): EnrichedPrint['moneyness'] {
  const degree = (right === 'CALL' ? spot - strike : strike - spot) / strike;
  // The band's edge belongs to ATM (compared in dollars with a hair of slack for decimal noise).
  const moneyType: MoneyType = Math.abs(spot - strike) <= ATM_BAND * strike + 1e-9 ? 'ATM' : degree > 0 ? 'ITM' : 'OTM';
  return { degree, degreeInPercent: degree * 100, moneyType };
}

export function enrichPrint(p: RawPrint, ctx: PrintContext): EnrichedPrint {
  const contract = parseOsi(p.osi);
  if (!contract) throw new Error(`print ${p.id}: ${JSON.stringify(p.osi)} is not an OSI symbol`);
  const dte = daysToExpiration(p.time, contract.expiration);
  const t = Math.max(dte, 0) / 365;
  const inputs = { right: contract.right, spot: p.underlyingPrice, strike: contract.strike, t, rate: ctx.rate, dividend: ctx.dividend };
  const iv = impliedVolatility((p.bidPrice + p.askPrice) / 2, inputs) ?? impliedVolatility(p.price, inputs);
  const side = tradeSideOf(p.price, p.bidPrice, p.askPrice);
  const volume = ctx.volumeBefore + p.size;
  const premium = p.price * p.size * 100;
  return {
    id: uuidV5(p.id, PRINT_ROW_NAMESPACE),
    printId: p.id,
    osi: p.osi,
    ticker: p.ticker,
    contractType: contract.right,
    strikePrice: contract.strike,
    expirationDate: contract.expiration,
    dte,
    premium,
    size: p.size,
    volume,
    openInterest: ctx.openInterest,
    stockPrice: p.underlyingPrice,
    askPrice: p.askPrice,
    bidPrice: p.bidPrice,
    bidAskSpread: Math.round((p.askPrice - p.bidPrice) * 1e6) / 1e6,
    optionPrice: p.price,
    impliedVolatility: iv,
    greeks: iv === null ? null : bsmGreeks({ ...inputs, vol: iv }),
    moneyness: moneynessOf(contract.right, p.underlyingPrice, contract.strike),
    tradeSideCode: side,
    sentimentType: sentimentOf(contract.right, side),
    tradeType: tradeTypeOf(p.conditions),
    isOpeningPosition: p.size > ctx.openInterest,
    isVolumeGreaterThanOpenInterest: volume > ctx.openInterest,
    isUnusual: (p.size > ctx.openInterest && premium >= UNUSUAL_PREMIUM) || premium >= LARGE_PREMIUM,
    isETF: ctx.isETF,
    isIndex: ctx.isIndex,
    sector: ctx.sector,
    industry: ctx.industry,
    exchange: p.exchange,
    tradeTime: p.time,
  };
}
