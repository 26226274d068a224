import { rand } from './table-oracle';

/**
 * A deterministic equity-print data set for the equities tests, shaped like the simulator's
 * (docs/ingest.md): lit prints at the bid, ask or a cent inside; off-exchange prints at the
 * midpoint, with sub-penny improvement or at the NBBO; odd lots, round lots and blocks beyond every
 * size and notional tier; delayed prints; times in groups sharing a millisecond (ties); several
 * tickers spread over partitions and two sessions.
 */

export interface EquityPrintEventData {
  id: string;
  ticker: string;
  time: number;
  reportTime: number;
  price: number;
  size: number;
  venue: string;
  printType: 'LIT' | 'DARK_POOL';
  bidPrice: number;
  askPrice: number;
  bidSize: number;
  askSize: number;
  isDelayedPrint: boolean;
  conditions: string[];
}

export const PRINT_TICKERS = ['AAPL', 'MSFT', 'TSLA', 'SPY', 'NVDA', 'BRK.B'];
const BASE: Record<string, number> = { AAPL: 169.2, MSFT: 402.5, TSLA: 180.1, SPY: 505.3, NVDA: 880.4, 'BRK.B': 410.7 };
const SIZES = [1, 37, 100, 100, 200, 500, 1_000, 2_500, 10_000, 25_000, 120_000];

export function equityPrintData(sessions: readonly { date: string; open: number }[], perSession: number, seed = 7): EquityPrintEventData[] {
  const r = rand(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const out: EquityPrintEventData[] = [];
  for (const { date, open } of sessions) {
    for (let i = 0; i < perSession; i++) {
      const ticker = PRINT_TICKERS[int(0, PRINT_TICKERS.length - 1)];
      const midC = Math.round(BASE[ticker] * 100) + int(-300, 300);
      const spread = int(1, 4);
      const bidC = midC - Math.floor(spread / 2);
      const askC = bidC + spread;
      const dark = r() < 0.4;
      let price: number;
      const u = r();
      if (dark) {
        if (u < 0.45) price = (bidC + askC) / 200;
        else if (u < 0.85) price = (bidC * 100 + int(1, Math.min(99, spread * 50))) / 10_000;
        else price = (r() < 0.5 ? askC : bidC) / 100;
      } else if (u < 0.15) price = (bidC + (spread >= 2 ? int(1, spread - 1) : 0.5)) / 100;
      else if (u < 0.2)
        price = (askC + 1) / 100; // through the ask (a sweep's later leg)
      else if (u < 0.25) price = (bidC - 1) / 100;
      else price = (r() < 0.5 ? askC : bidC) / 100;
      const time = open + Math.floor(i / 3) * 997 + (i % 3 === 2 ? 1 : 0);
      const delayed = r() < 0.05;
      out.push({
        id: `E-${date.replace(/-/g, '')}-${ticker}-${Math.floor(i / 60)}-${i}`,
        ticker,
        time,
        reportTime: delayed ? time + 30_000 : time,
        price,
        size: SIZES[int(0, SIZES.length - 1)],
        venue: dark ? 'TRFN' : 'NASDAQ',
        printType: dark ? 'DARK_POOL' : 'LIT',
        bidPrice: bidC / 100,
        askPrice: askC / 100,
        bidSize: int(1, 20) * 100,
        askSize: int(1, 20) * 100,
        isDelayedPrint: delayed,
        conditions: delayed ? ['Z'] : ['@'],
      });
    }
  }
  return out;
}

/** The tape row the spec describes, computed directly from an event. */
export function expectedPrintRow(e: EquityPrintEventData) {
  const side =
    e.price > e.askPrice ? 'ABOVE_ASK' : e.price === e.askPrice ? 'ASK' : e.price < e.bidPrice ? 'BELOW_BID' : e.price === e.bidPrice ? 'BID' : 'MID_MARKET';
  return {
    id: e.id,
    ticker: e.ticker,
    price: e.price,
    size: e.size,
    notionalValue: Number((e.price * e.size).toFixed(4)),
    printType: e.printType,
    tradeSide: side,
    askPrice: e.askPrice,
    bidPrice: e.bidPrice,
    askSize: e.askSize,
    bidSize: e.bidSize,
    isDelayedPrint: e.isDelayedPrint,
    tradeTime: e.time,
  };
}
export type PrintRow = ReturnType<typeof expectedPrintRow>;
