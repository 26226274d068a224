import { v5 as uuidV5 } from 'uuid';
import type { RedisClient as Redis } from '../../services/redis/client';
import { MARKET_PARTITIONS, topicFor, type TopicSpec } from '../../schemas/catalog';
import { partitionOf } from '../../services/kafka/partition';
import { sessionBounds } from '../../services/domain/calendar';
import { osiSymbol } from '../../services/domain/osi';
import type { Greeks } from '../../services/domain/pricing';
import {
  GOLDEN_SWEEP_PREMIUM,
  BLOCK_MIN_SIZE,
  TRADE_SIDES,
  ROW_FORMAT,
  directionOf,
  isConsolidatedRow,
  openInterestFlags,
  rowKeyOf,
  type ComprisingTrade,
  type ConsolidatedTradeEvent,
  type EnrichedPrintEvent,
  type TradeSide,
} from '../../services/domain/order-flow';
import { PartitionKeys } from '../../services/views/keys';
import type { OrderFlowConsolidatedRow, OrderFlowPrintRow, OrderFlowRow } from '../../services/views/order-flow';
import type { Projection, SourceEvent } from '../../projections/runtime/projection';
import { applyAtomically } from '../../projections/runtime/atomic-apply';

/**
 * A deterministic order-flow data set for the view and reader tests: enriched prints over a few
 * tickers (spread over several partitions) and sessions, with many ties on every indexed field
 * (times repeat, premiums and sizes come from small sets), null implied volatilities, premiums
 * over every tier; consolidated trades of 1-4 prints published version by version (the trade
 * side may change between versions; a lone print below the block size is a SINGLE version, which
 * the consolidated view leaves out); open interest per contract and session.
 */

export interface OpenInterestEvent {
  osi: string;
  ticker: string;
  expirationDate: string;
  strikePrice: number;
  contractType: 'CALL' | 'PUT';
  sessionDate: string;
  openInterest: number;
  time: number;
}

export interface FlowFixture {
  prints: EnrichedPrintEvent[];
  /** Every version, in publication order. */
  consolidated: ConsolidatedTradeEvent[];
  openInterest: OpenInterestEvent[];
  oi(sessionDate: string, osi: string): number;
}

export const FIXTURE_TICKERS = ['SPY', 'QQQ', 'AAPL', 'TSLA', 'NVDA', 'AMD', 'MSFT', 'IWM'];
const NS = '6f1d3a52-7c8e-4b0a-9d2e-2f6a1c3b5e70';

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function orderFlowFixture(o: { seed?: number; sessions: string[]; printsPerSession: number; tickers?: string[] }): FlowFixture {
  const r = rng(o.seed ?? 7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const tickers = o.tickers ?? FIXTURE_TICKERS;
  const offsets = new Array(MARKET_PARTITIONS).fill(0);
  const prints: EnrichedPrintEvent[] = [];
  const openInterest: OpenInterestEvent[] = [];
  const oiMap = new Map<string, number>();
  let n = 0;
  for (const d of o.sessions) {
    const open = sessionBounds(d)!.open;
    const contracts = tickers.flatMap((t, ti) =>
      (['CALL', 'PUT'] as const).flatMap((right) =>
        [100 + ti * 10, 105 + ti * 10].map((strike) => ({
          ticker: t,
          right,
          strike,
          expiration: '2026-12-18',
          osi: osiSymbol(t, '2026-12-18', right, strike),
        })),
      ),
    );
    for (const c of contracts) {
      const oi = pick([0, 0, 50, 200, 5_000]);
      oiMap.set(`${d}|${c.osi}`, oi);
      openInterest.push({
        osi: c.osi,
        ticker: c.ticker,
        expirationDate: c.expiration,
        strikePrice: c.strike,
        contractType: c.right,
        sessionDate: d,
        openInterest: oi,
        time: open - 9_000_000,
      });
    }
    const volume = new Map<string, number>();
    for (let i = 0; i < o.printsPerSession; i++) {
      const c = pick(contracts);
      const p = partitionOf(c.ticker, MARKET_PARTITIONS);
      const size = pick([1, 1, 5, 10, 10, 100, 250, 1_000]);
      const price = pick([0.5, 1.25, 2, 2, 10.5, 45]);
      const vol = (volume.get(c.osi) ?? 0) + size;
      volume.set(c.osi, vol);
      const iv = r() < 0.15 ? null : pick([0.25, 0.4, r()]);
      const side = pick(TRADE_SIDES);
      const stockPrice = 110 + Math.floor(r() * 100) / 100;
      const degree = Math.abs(c.strike - stockPrice);
      const inTheMoney = c.right === 'CALL' ? stockPrice > c.strike : c.strike > stockPrice;
      prints.push({
        rowKey: rowKeyOf(p, offsets[p]++),
        id: uuidV5(`print-${n}`, NS),
        printId: `P${n++}`,
        sessionDate: d,
        osi: c.osi,
        ticker: c.ticker,
        contractType: c.right,
        strikePrice: c.strike,
        expirationDate: c.expiration,
        dte: pick([0.25, 1.5, 30.2, 30.2 + r()]),
        premium: price * size * 100,
        size,
        volume: vol,
        stockPrice,
        askPrice: price + 0.05,
        bidPrice: price - 0.05,
        bidAskSpread: 0.1,
        optionPrice: price,
        impliedVolatility: iv,
        // Values from small sets on some greeks, so sorts on them meet ties.
        greeks: iv === null ? null : fixtureGreeks(r, pick, iv),
        moneyness: { degree, degreeInPercent: (degree / stockPrice) * 100, moneyType: degree <= 0.005 * c.strike ? 'ATM' : inTheMoney ? 'ITM' : 'OTM' },
        tradeSideCode: side,
        sentimentType: side === 'MID_MARKET' ? 'NEUTRAL' : directionOf(side) === 'BUY' ? 'BULLISH' : 'BEARISH',
        tradeType: pick(['AUTO', 'ISO', 'AUCT', 'CROSS', 'MULTI_AUTO']),
        isETF: c.ticker === 'SPY' || c.ticker === 'QQQ' || c.ticker === 'IWM',
        isIndex: false,
        sector: c.ticker === 'SPY' ? 'ETF' : 'Technology',
        industry: 'Semiconductors',
        exchange: pick(['CBOE', 'ISE', 'PHLX', 'ARCA']),
        // Few distinct times: about three prints share each millisecond.
        tradeTime: open + Math.floor(r() * (o.printsPerSession / 3)) * 1_000,
        rowFormat: ROW_FORMAT,
      });
    }
  }
  return { prints, consolidated: consolidate(prints, r), openInterest, oi: (d, osi) => oiMap.get(`${d}|${osi}`) ?? 0 };
}

function fixtureGreeks(r: () => number, pick: <T>(xs: readonly T[]) => T, sigma: number): Greeks {
  return {
    charm: -r() / 1000,
    color: pick([-0.002, 0, 0.001]),
    delta: r(),
    gamma: r() / 10,
    omega: pick([2, 5.5, 12]) * (r() < 0.5 ? 1 : -1),
    rho: r() / 100,
    sigma,
    speed: -r() / 1e4,
    theta: -r(),
    ultima: pick([-0.5, 0.25]),
    vanna: r() / 7,
    vega: r(),
    veta: r() / 50,
    vomma: pick([0, 0.01, 0.02]),
    zomma: -r() / 100,
  };
}

/** Groups prints of one contract and session into trades of 1-4 prints; every version in order. */
function consolidate(prints: EnrichedPrintEvent[], r: () => number): ConsolidatedTradeEvent[] {
  const groups = new Map<string, EnrichedPrintEvent[]>();
  for (const p of prints) {
    const k = `${p.sessionDate}|${p.osi}`;
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  const versions: { at: number; e: ConsolidatedTradeEvent }[] = [];
  for (const ps of groups.values()) {
    ps.sort((a, b) => a.tradeTime - b.tradeTime || (a.rowKey < b.rowKey ? -1 : 1));
    for (let i = 0; i < ps.length;) {
      const k = 1 + Math.floor(r() * 4);
      const trade = ps.slice(i, i + k);
      i += k;
      const first = trade[0];
      for (let v = 1; v <= trade.length; v++) {
        const so = trade.slice(0, v);
        const size = so.reduce((s, p) => s + p.size, 0);
        const premium = so.reduce((s, p) => s + p.premium, 0);
        const side: TradeSide = so[so.length - 1].tradeSideCode;
        const exchanges = new Set(so.map((p) => p.exchange));
        const type = exchanges.size > 1 ? 'SWEEP' : so.length > 1 ? 'SPLIT' : size >= BLOCK_MIN_SIZE ? 'BLOCK' : 'SINGLE';
        const comprisingTrades: ComprisingTrade[] = so.map((p) => ({
          id: p.id,
          osi: p.osi,
          tradeTime: p.tradeTime,
          exchange: p.exchange,
          optionPrice: p.optionPrice,
          size: p.size,
          premium: p.premium,
          tradeSideCode: p.tradeSideCode,
          bidPrice: p.bidPrice,
          askPrice: p.askPrice,
        }));
        const { printId, ...common } = first;
        versions.push({
          at: so[so.length - 1].tradeTime,
          e: {
            ...common,
            id: uuidV5(`consolidated-${first.id}`, NS),
            version: v,
            premium,
            size,
            volume: so[so.length - 1].volume,
            optionPrice: premium / size / 100,
            tradeSideCode: side,
            sentimentType: side === 'MID_MARKET' ? 'NEUTRAL' : directionOf(side) === 'BUY' ? 'BULLISH' : 'BEARISH',
            tradeConsolidationType: type,
            isGoldenSweep: type === 'SWEEP' && directionOf(side) === 'BUY' && premium >= GOLDEN_SWEEP_PREMIUM,
            lastTradeTime: so[so.length - 1].tradeTime,
            comprisingTrades,
          },
        });
      }
    }
  }
  versions.sort((a, b) => a.at - b.at || (a.e.rowKey < b.e.rowKey ? -1 : a.e.rowKey > b.e.rowKey ? 1 : a.e.version - b.e.version));
  return versions.map((v) => v.e);
}

/** The rows the prints view must hold (open interest joined). */
export function expectedPrintRows(f: FlowFixture): OrderFlowPrintRow[] {
  return f.prints.map((p) => {
    const { printId, rowFormat, ...row } = p;
    return { ...row, ...openInterestFlags(p, f.oi(p.sessionDate, p.osi)) };
  });
}

/**
 * The rows the consolidated view must hold: the last version of each trade, unless that is a
 * lone print below the block size (SINGLE), which is no consolidated trade.
 */
export function expectedConsolidatedRows(f: FlowFixture): OrderFlowConsolidatedRow[] {
  const last = new Map<string, ConsolidatedTradeEvent>();
  for (const e of f.consolidated) last.set(e.rowKey, e);
  const out: OrderFlowConsolidatedRow[] = [];
  for (const e of last.values()) {
    const { comprisingTrades, version, tradeConsolidationType, rowFormat, ...row } = e;
    if (!isConsolidatedRow(tradeConsolidationType)) continue;
    out.push({ ...row, tradeConsolidationType, ...openInterestFlags(e, f.oi(e.sessionDate, e.osi)) });
  }
  return out;
}

export function partitionOfRow(r: { ticker: string }): number {
  return partitionOf(r.ticker, MARKET_PARTITIONS);
}

/** Source events of one topic as the runner would hand them to a projection, per partition. */
export function sourceEvents(spec: TopicSpec, events: readonly object[]): Map<number, SourceEvent[]> {
  const out = new Map<number, SourceEvent[]>();
  for (const e of events) {
    const p = partitionOfRow(e as { ticker: string });
    const list = out.get(p) ?? [];
    list.push({ topic: spec.name, partition: p, offset: list.length, key: (e as { ticker: string }).ticker, value: e as Record<string, unknown> });
    out.set(p, list);
  }
  return out;
}

/**
 * Projects events straight into Redis with the projection's own logic and the runtime's atomic
 * apply (no Kafka): each chunk of `chunk` events of one topic-partition is one apply, as the
 * runner does. `order` interleaves the topics' chunks: 'rows-first', 'oi-first' or a seed for a
 * random interleaving (chunk sizes vary too).
 */
export async function projectDirect(
  redis: Redis,
  keyPrefix: string,
  version: number,
  projection: Projection,
  topics: { spec: TopicSpec; events: readonly object[] }[],
  order: 'in-turn' | number = 'in-turn',
  chunk = 100,
): Promise<void> {
  const r = typeof order === 'number' ? rng(order) : null;
  for (let p = 0; p < MARKET_PARTITIONS; p++) {
    const queues = topics.map(({ spec, events }) => ({ spec, evs: sourceEvents(spec, events).get(p) ?? [], pos: 0 }));
    const keys = new PartitionKeys(keyPrefix, projection.view, version, p);
    for (;;) {
      const open = queues.filter((q) => q.pos < q.evs.length);
      if (!open.length) break;
      const q = r ? open[Math.floor(r() * open.length)] : open[0];
      const size = r ? 1 + Math.floor(r() * chunk) : chunk;
      const events = q.evs.slice(q.pos, q.pos + size);
      const others = queues.filter((o) => o !== q).map((o) => [o.spec.name, o.pos - 1] as [string, number]);
      const ops = await projection.project(events, keys, redis);
      const res = await applyAtomically(redis, keys.offsets, q.spec.name, q.pos - 1, events[events.length - 1].offset, ops, others);
      if (!res.applied) throw new Error(`apply refused: ${JSON.stringify(res)}`);
      q.pos += events.length;
    }
  }
}

export const PRINTS_SPEC = topicFor('enriched-print')!;
export const CONSOLIDATED_SPEC = topicFor('consolidated-trade')!;
export const OPEN_INTEREST_SPEC = topicFor('open-interest')!;

export type { OrderFlowRow };
