import { LEGACY_TRADE_TYPE, ROW_FORMAT, moneynessOf, type OrderFlowCommon, type TradeType } from './order-flow';
import { bsmGreeks } from './pricing';
import { dividendYield } from './rates';

/**
 * Brings an order-flow event (or a stored row of view layout 1) written before rowFormat 2 (seven greeks, moneyness as a signed
 * fraction of the strike, this service's own trade-type names) to the current layout, so that a
 * view rebuild replaying the derived topics serves every row in one shape and loses none:
 * - greeks: all fifteen recomputed with bsmGreeks from the event's own inputs (stock price,
 *   strike, dte, implied volatility) and the rate and dividend yield the processor priced with
 *   (`rate`: MDQ_RISK_FREE_RATE; dividendYield of the ticker), exactly as enrichPrint
 *   (projections/enrich) computes them;
 * - moneyness: recomputed from strike and stock price (moneynessOf);
 * - tradeType: LEGACY_TRADE_TYPE (lossy where the old names merged codes, documented there).
 * An event already at ROW_FORMAT is returned as it is. Mutates and returns the event (the
 * runtime hands each chunk its own decoded copy).
 */
export function upgradeOrderFlowEvent<E extends Omit<OrderFlowCommon, 'rowFormat'> & { rowFormat?: number }>(e: E, rate: number): E {
  if ((e.rowFormat ?? 1) >= ROW_FORMAT) return e;
  const t = Math.max(e.dte, 0) / 365;
  const iv = e.impliedVolatility;
  e.greeks =
    iv === null ? null : bsmGreeks({ right: e.contractType, spot: e.stockPrice, strike: e.strikePrice, t, vol: iv, rate, dividend: dividendYield(e.ticker) });
  e.moneyness = moneynessOf(e.contractType, e.stockPrice, e.strikePrice);
  e.tradeType = LEGACY_TRADE_TYPE[e.tradeType] ?? (e.tradeType as TradeType);
  e.rowFormat = ROW_FORMAT;
  return e;
}
