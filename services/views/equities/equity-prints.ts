import { sessionDateOf } from '../../domain/calendar';
import type { TradeSide } from '../../domain/order-flow';
import type { TableLayout } from '../table';

/**
 * The equity print tape: a table view (../table.ts) split by session (the New York date of the
 * trade time), rows stored under the print's id (the feed's ids are deterministic and contain no
 * ':'). Per partition and session:
 *
 *   <seg>:r                          hash  id -> [ticker, price, size, dark, bid, ask, bidSize, askSize, delayed, tradeTime, side]
 *   <seg>:x:time|notional|size|price zset  every print by tradeTime (the default order), notional, size, price
 *   <seg>:tk:<TICKER>                zset  prints of one ticker, by tradeTime
 *   <seg>:dp                         zset  off-exchange (DARK_POOL) prints, by tradeTime
 *   <seg>:nt:<tier>                  zset  prints with notionalValue >= tier (NOTIONAL_TIERS)
 *   <seg>:sz:<tier>                  zset  prints with size >= tier (SIZE_TIERS)
 *
 * The threshold indexes let "blocks of $1M or more" or "10,000 shares or more" read only those
 * prints; a range on an indexed sort field also narrows by its sort index.
 */

export const EQUITY_PRINTS_VIEW = 'equity-prints';
export const EQUITY_PRINTS_FORMAT = 1;

export const PRINT_TYPES = ['LIT', 'DARK_POOL'] as const;
export type PrintType = (typeof PRINT_TYPES)[number];
export const NOTIONAL_TIERS = [100_000, 1_000_000, 10_000_000] as const;
export const SIZE_TIERS = [10_000, 100_000] as const;

export interface EquityPrintRow {
  id: string;
  ticker: string;
  price: number;
  size: number;
  notionalValue: number;
  printType: PrintType;
  tradeSide: TradeSide;
  askPrice: number;
  bidPrice: number;
  askSize: number;
  bidSize: number;
  isDelayedPrint: boolean;
  tradeTime: number;
}

const SIDES: readonly TradeSide[] = ['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID'];

/**
 * A print's notional in dollars: price x size computed on the price in units of $0.0001 (prints
 * carry at most four decimals), so it is exact to four decimals and sums of it can be made exact
 * (notionalUnits).
 */
export function notionalOf(price: number, size: number): number {
  return notionalUnits(price, size) / 10_000;
}

/** price x size in units of $0.0001, an exact integer. */
export function notionalUnits(price: number, size: number): number {
  return Math.round(price * 10_000) * size;
}

export const EQUITY_PRINTS_LAYOUT: TableLayout<EquityPrintRow> = {
  view: EQUITY_PRINTS_VIEW,
  segmented: true,
  segmentOf: (r) => sessionDateOf(r.tradeTime),
  rowKeyOf: (r) => r.id,
  encode: (r) =>
    JSON.stringify([
      r.ticker,
      r.price,
      r.size,
      r.printType === 'DARK_POOL' ? 1 : 0,
      r.bidPrice,
      r.askPrice,
      r.bidSize,
      r.askSize,
      r.isDelayedPrint ? 1 : 0,
      r.tradeTime,
      SIDES.indexOf(r.tradeSide),
    ]),
  decode: (stored, rowKey) => {
    const a = JSON.parse(stored.toString()) as [string, number, number, number, number, number, number, number, number, number, number];
    return {
      id: rowKey,
      ticker: a[0],
      price: a[1],
      size: a[2],
      notionalValue: notionalOf(a[1], a[2]),
      printType: a[3] ? 'DARK_POOL' : 'LIT',
      tradeSide: SIDES[a[10]],
      askPrice: a[5],
      bidPrice: a[4],
      askSize: a[7],
      bidSize: a[6],
      isDelayedPrint: a[8] === 1,
      tradeTime: a[9],
    };
  },
  sorts: [
    { field: 'TRADE_TIME', suffix: 'time', value: (r) => r.tradeTime },
    { field: 'NOTIONAL_VALUE', suffix: 'notional', value: (r) => r.notionalValue },
    { field: 'SIZE', suffix: 'size', value: (r) => r.size },
    { field: 'PRICE', suffix: 'price', value: (r) => r.price },
  ],
  indexes: [
    { name: 'tk', values: (r) => [r.ticker] },
    { name: 'dp', values: (r) => (r.printType === 'DARK_POOL' ? [''] : []) },
    { name: 'nt', values: (r) => NOTIONAL_TIERS.filter((t) => r.notionalValue >= t).map(String) },
    { name: 'sz', values: (r) => SIZE_TIERS.filter((t) => r.size >= t).map(String) },
  ],
  warm: { blockKey: (r) => r.ticker },
};
