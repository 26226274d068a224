import type { RedisClient as Redis } from '../../../services/redis/client';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { fromDayNumber, nyLocalToEpochMs, sessionDateOf, toDayNumber } from '../../../services/domain/calendar';
import { partitionOf } from '../../../services/kafka/partition';
import {
  MINUTE_MS,
  SESSION_FLOW_LAST,
  darkFlowSuffix,
  decodeFlowMinutes,
  decodeSessionFlow,
  type FlowTotals,
} from '../../../services/views/equities/dark-flow';
import { DARK_POOL_LEVELS_VIEW } from '../../../services/views/equities/dark-pool-levels';
import { EQUITY_PRINTS_LAYOUT, notionalUnits, type EquityPrintRow } from '../../../services/views/equities/equity-prints';
import {
  SESSION_BAR_LAST,
  barOf,
  decodeBars,
  decodeSessionBar,
  minuteEvents,
  priceBarsSuffix,
  type PriceBar,
  type SessionBars,
} from '../../../services/views/equities/price-bars';
import { blockNumber, blockOrigin, blockStart } from '../../../services/views/equities/price-blocks';
import { STOCK_PRICES_VIEW, pricesKeySuffix } from '../../../services/views/equities/stock-prices';
import { PartitionKeys } from '../../../services/views/keys';
import type { TimeWindow } from '../../request/time';
import { scanTable } from '../../tables/engine';

/**
 * Reads of the equities minute cells for one ticker: the stock-price view's bars
 * (services/views/equities/price-bars.ts) and the dark-flow cells of the dark-pool level view
 * (dark-flow.ts), as (instant, value) pairs an endpoint rolls up into its buckets:
 *  - a session the request holds whole gives its session cell alone when the buckets are days or
 *    weeks (`sessionGrain`), under an instant inside the session;
 *  - otherwise its minute cells, those wholly inside the window;
 *  - a window bound that cuts a minute is answered from the raw events of the cut part: the price
 *    events of the stock-price view, the equity-print tape's rows (its ticker index) for dark flow.
 */

export interface CellRead {
  ticker: string;
  /** Session dates to read, ascending. */
  sessions: readonly string[];
  window: TimeWindow | null;
  /** Day or week buckets: a session held whole is read as one cell. */
  sessionGrain: boolean;
}

/** Whether a window holds the whole New York day of session d (then every event of the session is in it). */
export function holdsSession(w: TimeWindow | null, d: string): boolean {
  return w === null || (w.startMs <= nyLocalToEpochMs(d, 0, 0) && nyLocalToEpochMs(fromDayNumber(toDayNumber(d) + 1), 0, 0) <= w.endMs);
}

/** The parts of a window that cut a minute: [start, end) ranges, at most two, each inside one minute. */
export function cutRanges(w: TimeWindow | null): [number, number][] {
  if (!w) return [];
  const out: [number, number][] = [];
  const headEnd = Math.min(w.endMs, Math.ceil(w.startMs / MINUTE_MS) * MINUTE_MS);
  if (w.startMs % MINUTE_MS !== 0) out.push([w.startMs, headEnd]);
  const tailStart = Math.max(w.startMs, Math.floor(w.endMs / MINUTE_MS) * MINUTE_MS);
  if (w.endMs % MINUTE_MS !== 0 && tailStart >= headEnd) out.push([tailStart, w.endMs]);
  return out;
}

/** Whether the minute starting at m lies wholly inside the window. */
const wholeMinute = (w: TimeWindow | null, m: number) => w === null || (m >= w.startMs && m + MINUTE_MS <= w.endMs);

/** How a session is read: its session cell, or its minutes (plus the window's cut parts that fall in it). */
function plan(r: CellRead): { session: string[]; minutes: string[]; cuts: [string, number, number][] } {
  const session = r.sessions.filter((d) => r.sessionGrain && holdsSession(r.window, d));
  const minutes = r.sessions.filter((d) => !session.includes(d));
  const held = new Set(r.sessions);
  const cuts = cutRanges(r.window)
    .map(([a, b]) => [sessionDateOf(a), a, b] as [string, number, number])
    .filter(([d]) => held.has(d));
  return { session, minutes, cuts };
}

/**
 * The ticker's price bars for the request: session bars, minute bars, and a bar per raw event of a
 * cut minute (from the minute's price block, or its bar when the block is not stored).
 */
export async function readPriceBars(redis: Redis, prefix: string, version: number, r: CellRead): Promise<[number, PriceBar][]> {
  const k = new PartitionKeys(prefix, STOCK_PRICES_VIEW, version, partitionOf(r.ticker, MARKET_PARTITIONS));
  const { session, minutes, cuts } = plan(r);
  // A cut's session is always read by minutes (a window holding a whole day cuts no minute of it); the check keeps that an assumption no answer depends on.
  const extra = [...new Set(cuts.map(([d]) => d).filter((d) => !minutes.includes(d)))];
  const pipe = redis.pipeline();
  for (const d of session) pipe.getrangeBuffer(k.key(...priceBarsSuffix(d, r.ticker)), 0, SESSION_BAR_LAST);
  for (const d of [...minutes, ...extra]) pipe.getBuffer(k.key(...priceBarsSuffix(d, r.ticker)));
  for (const [d, a] of cuts) pipe.hgetBuffer(k.key(...pricesKeySuffix(d, r.ticker)), String(blockNumber(blockOrigin(d), a)));
  const res = (await pipe.exec())!;
  for (const [err] of res) if (err) throw err;
  const out: [number, PriceBar][] = [];
  let i = 0;
  for (; i < session.length; i++) {
    const got = res[i][1] as Buffer;
    if (got.length) {
      const bar = decodeSessionBar(got);
      out.push([bar.openTime, bar]);
    }
  }
  const tables = new Map<string, SessionBars | null>();
  for (const d of minutes) {
    const got = res[i++][1] as Buffer | null;
    const bars = got ? decodeBars(got) : null;
    tables.set(d, bars);
    if (bars) for (const [m, bar] of bars.minutes) if (wholeMinute(r.window, m)) out.push([m, bar]);
  }
  for (const d of extra) {
    const got = res[i++][1] as Buffer | null;
    tables.set(d, got ? decodeBars(got) : null);
  }
  for (const [d, a, b] of cuts) {
    const block = res[i++][1] as Buffer | null;
    const minute = a - (a % MINUTE_MS);
    const bar = tables.get(d)?.minutes.get(minute);
    for (const p of minuteEvents(bar, block, blockStart(blockOrigin(d), blockNumber(blockOrigin(d), a)), minute, a, b))
      out.push([p.time, barOf(p.time, p.price)]);
  }
  return out;
}

/** The ticker's dark-flow totals for the request: session totals, minute totals, and a total per tape print of a cut minute. */
export async function readDarkFlow(
  redis: Redis,
  prefix: string,
  versions: { levels: number; tape: number | null },
  r: CellRead,
): Promise<[number, FlowTotals][]> {
  const k = new PartitionKeys(prefix, DARK_POOL_LEVELS_VIEW, versions.levels, partitionOf(r.ticker, MARKET_PARTITIONS));
  const { session, minutes, cuts } = plan(r);
  const pipe = redis.pipeline();
  for (const d of session) pipe.getrangeBuffer(k.key(...darkFlowSuffix(d, r.ticker)), 0, SESSION_FLOW_LAST);
  for (const d of minutes) pipe.getBuffer(k.key(...darkFlowSuffix(d, r.ticker)));
  const res = (await pipe.exec())!;
  for (const [err] of res) if (err) throw err;
  const out: [number, FlowTotals][] = [];
  session.forEach((_, i) => {
    const got = res[i][1] as Buffer;
    if (got.length) {
      const s = decodeSessionFlow(got);
      out.push([s.first, s.totals]);
    }
  });
  minutes.forEach((_, j) => {
    const got = res[session.length + j][1] as Buffer | null;
    if (got) for (const [m, t] of decodeFlowMinutes(got)) if (wholeMinute(r.window, m)) out.push([m, t]);
  });
  if (versions.tape !== null) {
    const tape = versions.tape;
    for (const [d, a, b] of cuts) {
      await scanTable<EquityPrintRow>(
        redis,
        prefix,
        {
          layout: EQUITY_PRINTS_LAYOUT,
          version: tape,
          partitions: MARKET_PARTITIONS,
          segments: [d],
          window: { startMs: a, endMs: b },
          predicate: (row) => row.ticker === r.ticker && row.printType === 'DARK_POOL',
          families: (plan) => [plan.indexFamily('tk', 'tk', [r.ticker], (t) => [partitionOf(t, MARKET_PARTITIONS)])],
        },
        (row) => out.push([row.tradeTime, { notionalUnits: notionalUnits(row.price, row.size), size: row.size, tradeCount: 1 }]),
      );
    }
  }
  return out;
}
