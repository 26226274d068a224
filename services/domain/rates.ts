import { numberVar } from '../config';
/**
 * Pricing parameters shared by the simulator (it quotes options with them) and the order-flow
 * processor (it solves implied volatility and greeks with them). The processor reads the rate
 * from MDQ_RISK_FREE_RATE when set; dividend yields are per underlying.
 */
export const RISK_FREE_RATE = 0.045;

/** Continuous dividend yields of the names that pay enough to matter; others 0. */
const DIVIDENDS: Record<string, number> = {
  SPY: 0.013,
  SPX: 0.013,
  DIA: 0.017,
  IWM: 0.011,
  QQQ: 0.006,
  NDX: 0.006,
  XLE: 0.033,
  XLU: 0.029,
  XOM: 0.034,
  JPM: 0.022,
  KO: 0.029,
  PG: 0.024,
  T: 0.042,
  VZ: 0.061,
};

export function dividendYield(symbol: string): number {
  return DIVIDENDS[symbol] ?? 0;
}

/** The risk-free rate the processor prices with: MDQ_RISK_FREE_RATE, else RISK_FREE_RATE. */
export function configuredRiskFreeRate(env: NodeJS.ProcessEnv = process.env): number {
  return numberVar('MDQ_RISK_FREE_RATE', RISK_FREE_RATE, 'a rate between -1 and 1 (exclusive)', (v) => Number.isFinite(v) && v > -1 && v < 1, env);
}
