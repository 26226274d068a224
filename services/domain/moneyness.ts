import type { Moneyness, MoneyType } from './order-flow';
import type { ContractRight } from './osi';

/**
 * Moneyness of a contract at an underlying price, shared by order flow (projections/enrich) and
 * the volatility endpoints so both classify alike: degree = (S - K) / K for calls and (K - S) / K
 * for puts (positive in the money); ATM when |S - K| <= ATM_BAND x K (0.5 %, edge included).
 */
export const ATM_BAND = 0.005;

export function moneynessOf(right: ContractRight, spot: number, strike: number): Moneyness {
  const degree = (right === 'CALL' ? spot - strike : strike - spot) / strike;
  // The band's edge belongs to ATM (compared in dollars with a hair of slack for decimal noise).
  const moneyType: MoneyType = Math.abs(spot - strike) <= ATM_BAND * strike + 1e-9 ? 'ATM' : degree > 0 ? 'ITM' : 'OTM';
  return { degree, degreeInPercent: degree * 100, moneyType };
}
