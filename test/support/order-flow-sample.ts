/**
 * The order-flow sample of the benchmarks that project without Kafka (order-flow-memory,
 * apply-path-probe): the first `n` option prints of a simulated `full` session (every 8th symbol),
 * enriched by the processor's own fold, the last version of each consolidated trade (lone prints
 * below the block size are no consolidated trade and are left out, as the view leaves them out),
 * and the session's open interest of those symbols.
 */
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { partitionOf } from '../../services/kafka/partition';
import { isConsolidatedRow, type ConsolidatedTradeEvent, type EnrichedPrintEvent, type OptionPrint } from '../../services/domain/order-flow';
import { RISK_FREE_RATE } from '../../services/domain/rates';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { PROFILES } from '../../ingest/simulator/profiles';
import { OrderFlowPartition } from '../../projections/order-flow-processor/partition-state';
import type { SourceEvent } from '../../projections/runtime/projection';

/** The sample's underlyings: every `every`-th symbol of the `full` market. */
export function sampleSymbols(market: SimulatedMarket, every = 8): Set<string> {
  return new Set(market.instruments.filter((_, i) => i % every === 0).map((i) => i.symbol));
}

/**
 * The processor's own fold per partition (enrichment, session volume and consolidation), kept
 * across sessions, so that sessions folded one after the other get the row keys (partition and
 * offset) a processor reading them in that order would give.
 */
export class SampleFold {
  private readonly offsets: number[] = new Array(MARKET_PARTITIONS).fill(0);
  private readonly parts = new Map<number, OrderFlowPartition>();

  constructor(readonly market: SimulatedMarket) {}

  /** The option prints of a session's tick tier for `symbols`, in stream order, each folded; stops after `limit`. */
  *session(date: string, symbols: ReadonlySet<string>, limit = Infinity): Generator<{ enriched: EnrichedPrintEvent; consolidated: ConsolidatedTradeEvent }> {
    const tick = this.market.session(date, 'tick', symbols);
    let n = 0;
    for (let k = 0; k < tick.chunks && n < limit; k++) {
      for (const e of tick.chunk(k)) {
        if (e.type !== 'option-print' || n >= limit) continue;
        const raw = e.data as unknown as OptionPrint;
        const inst = this.market.bySymbol.get(raw.ticker)!;
        const p = partitionOf(raw.ticker, MARKET_PARTITIONS);
        if (!this.parts.has(p)) this.parts.set(p, new OrderFlowPartition(p, RISK_FREE_RATE));
        const out = this.parts
          .get(p)!
          .apply(raw, this.offsets[p]++, { sector: inst.sector, industry: inst.industry, isETF: inst.isETF, isIndex: inst.isIndex });
        n++;
        yield { enriched: out.enriched, consolidated: out.consolidated };
      }
    }
  }
}

/** The session's open interest of `symbols` (its daily tier). */
export function sampleOpenInterest(market: SimulatedMarket, date: string, symbols: ReadonlySet<string>) {
  const daily = market.session(date, 'daily');
  const openInterest: { osi: string; ticker: string; sessionDate: string; openInterest: number }[] = [];
  for (let k = 0; k < daily.chunks; k++)
    for (const e of daily.chunk(k)) if (e.type === 'open-interest' && symbols.has(e.data.ticker as string)) openInterest.push(e.data as never);
  return openInterest;
}

export function orderFlowSample(n: number, date: string) {
  // The `full` market (its chains and activity are the realistic ones), every 8th symbol.
  const market = new SimulatedMarket(42, PROFILES.full);
  const symbols = sampleSymbols(market);
  const openInterest = sampleOpenInterest(market, date, symbols);
  const prints: EnrichedPrintEvent[] = [];
  const latest = new Map<string, ConsolidatedTradeEvent>();
  for (const out of new SampleFold(market).session(date, symbols, n)) {
    prints.push(out.enriched);
    latest.set(out.consolidated.rowKey, out.consolidated);
  }
  return { prints, consolidated: [...latest.values()].filter((c) => isConsolidatedRow(c.tradeConsolidationType)), openInterest };
}

/** Events as one topic's messages, by the partition their ticker is in, offsets from 0 in each. */
export function eventsByPartition(topic: string, events: readonly { ticker: string }[]): Map<number, SourceEvent[]> {
  const byPart = new Map<number, SourceEvent[]>();
  for (const e of events) {
    const p = partitionOf(e.ticker, MARKET_PARTITIONS);
    const list = byPart.get(p) ?? [];
    list.push({ topic, partition: p, offset: list.length, key: e.ticker, value: e as unknown as Record<string, unknown> });
    byPart.set(p, list);
  }
  return byPart;
}
