import { optionExpiryMs, sessionDateOf } from '../../services/domain/calendar';
import { rowKeyOf, tradeTypeOf, type EnrichedPrintEvent, type OptionPrint, type SentimentType, type TradeSide } from '../../services/domain/order-flow';
import { parseOsi, type ContractRight, type OsiParts } from '../../services/domain/osi';
import { bsmGreeks, impliedVolatility } from '../../services/domain/pricing';
import { moneynessOf } from '../../services/domain/moneyness';
import { UuidV5 } from './row-ids';

/**
 * Enrichment of one option print: the `enriched-print` event (schemas/enriched-print.avsc),
 * computed only from the print, its position in market.option-prints, the contract's volume
 * before the print and the underlying's reference data — so replaying the same prints in the same
 * order gives the same events. The fields that depend on the start-of-session open interest
 * (openInterest, isOpeningPosition, isVolumeGreaterThanOpenInterest, isUnusual) are not computed
 * here: the projectors join them with `openInterestFlags` (services/domain/order-flow.ts), because
 * open interest arrives on its own topic and may be published after the prints.
 *
 * Rules (documented in docs/order-flow.md):
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
 * - sessionDate: the New York calendar date of the print; volume: the contract's cumulative
 *   contracts in that session, this print included (the caller counts, in partition order).
 * - rowKey: the print's source partition and offset; id: UUID v5 of the print id.
 */

export { ATM_BAND, moneynessOf } from '../../services/domain/moneyness';
const SIDE_TOLERANCE = 1e-6;
/** UUID v5 namespace of unconsolidated row ids (derived from print ids, so stable on replay). */
export const PRINT_ROW_NAMESPACE = '3c5a2b0e-6f0a-4d53-9a0e-6b1f2f7c9d41';
const printRowId = new UuidV5(PRINT_ROW_NAMESPACE);
const MS_PER_DAY = 86_400_000;

/** The raw print an order-flow row is derived from. */
export type RawPrint = OptionPrint;

/** Where the print sits in market.option-prints (its rowKey). */
export interface SourcePosition {
  partition: number;
  offset: number;
}

export interface PrintContext {
  /** contracts traded in this contract earlier in the print's session (partition order) */
  volumeBefore: number;
  sector: string;
  industry: string;
  isETF: boolean;
  isIndex: boolean;
  rate: number;
  dividend: number;
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

// A busy contract prints thousands of times a session: its symbol is parsed, and its expiry
// instant computed, once. Bounded so a long-running processor does not keep every contract it
// ever saw.
const OSI_CACHE_MAX = 200_000;
interface Contract extends OsiParts {
  expiryMs: number;
}
const osiCache = new Map<string, Contract>();
function contractOf(p: RawPrint): Contract {
  let c = osiCache.get(p.osi);
  if (!c) {
    const parsed = parseOsi(p.osi);
    if (!parsed) throw new Error(`print ${p.id}: ${JSON.stringify(p.osi)} is not an OSI symbol`);
    if (osiCache.size >= OSI_CACHE_MAX) osiCache.clear();
    c = { ...parsed, expiryMs: optionExpiryMs(parsed.expiration) };
    osiCache.set(p.osi, c);
  }
  return c;
}

// New York's date changes only on whole UTC hours (midnight and the DST switches are on the
// hour), so the session date of one UTC hour is computed once; prints come roughly in time order.
let memoHour = NaN;
let memoDate = '';
/** sessionDateOf(epochMs), memoised per UTC hour. */
export function sessionDateAt(epochMs: number): string {
  const hour = Math.floor(epochMs / 3_600_000);
  if (hour !== memoHour) {
    memoDate = sessionDateOf(epochMs);
    memoHour = hour;
  }
  return memoDate;
}

export function enrichPrint(p: RawPrint, at: SourcePosition, ctx: PrintContext): EnrichedPrintEvent {
  const contract = contractOf(p);
  // daysToExpiration(p.time, expiration), with the expiry instant cached.
  const dte = (contract.expiryMs - p.time) / MS_PER_DAY;
  const t = Math.max(dte, 0) / 365;
  const inputs = { right: contract.right, spot: p.underlyingPrice, strike: contract.strike, t, rate: ctx.rate, dividend: ctx.dividend };
  const iv = impliedVolatility((p.bidPrice + p.askPrice) / 2, inputs) ?? impliedVolatility(p.price, inputs);
  const side = tradeSideOf(p.price, p.bidPrice, p.askPrice);
  return {
    rowKey: rowKeyOf(at.partition, at.offset),
    id: printRowId.of(p.id),
    printId: p.id,
    sessionDate: sessionDateAt(p.time),
    osi: p.osi,
    ticker: p.ticker,
    contractType: contract.right,
    strikePrice: contract.strike,
    expirationDate: contract.expiration,
    dte,
    premium: p.price * p.size * 100,
    size: p.size,
    volume: ctx.volumeBefore + p.size,
    stockPrice: p.underlyingPrice,
    askPrice: p.askPrice,
    bidPrice: p.bidPrice,
    bidAskSpread: Math.round((p.askPrice - p.bidPrice) * 1e6) / 1e6,
    optionPrice: p.price,
    impliedVolatility: iv,
    greeks:
      iv === null
        ? null
        : bsmGreeks({ right: contract.right, spot: p.underlyingPrice, strike: contract.strike, t, rate: ctx.rate, dividend: ctx.dividend, vol: iv }),
    moneyness: moneynessOf(contract.right, p.underlyingPrice, contract.strike),
    tradeSideCode: side,
    sentimentType: sentimentOf(contract.right, side),
    tradeType: tradeTypeOf(p.conditions),
    isETF: ctx.isETF,
    isIndex: ctx.isIndex,
    sector: ctx.sector,
    industry: ctx.industry,
    exchange: p.exchange,
    tradeTime: p.time,
  };
}
