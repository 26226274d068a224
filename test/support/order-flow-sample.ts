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

export function orderFlowSample(n: number, date: string) {
  // The `full` market (its chains and activity are the realistic ones), every 8th symbol.
  const market = new SimulatedMarket(42, PROFILES.full);
  const symbols = new Set(market.instruments.filter((_, i) => i % 8 === 0).map((i) => i.symbol));
  const daily = market.session(date, 'daily');
  const openInterest: { osi: string; ticker: string; sessionDate: string; openInterest: number }[] = [];
  for (let k = 0; k < daily.chunks; k++)
    for (const e of daily.chunk(k)) if (e.type === 'open-interest' && symbols.has(e.data.ticker as string)) openInterest.push(e.data as never);
  const tick = market.session(date, 'tick', symbols);
  const offsets = new Array(MARKET_PARTITIONS).fill(0);
  // The processor's own fold per partition: enrichment, session volume and consolidation.
  const parts = new Map<number, OrderFlowPartition>();
  const prints: EnrichedPrintEvent[] = [];
  const latest = new Map<string, ConsolidatedTradeEvent>();
  for (let k = 0; k < tick.chunks && prints.length < n; k++) {
    for (const e of tick.chunk(k)) {
      if (e.type !== 'option-print' || prints.length >= n) continue;
      const raw = e.data as unknown as OptionPrint;
      const inst = market.bySymbol.get(raw.ticker)!;
      const p = partitionOf(raw.ticker, MARKET_PARTITIONS);
      if (!parts.has(p)) parts.set(p, new OrderFlowPartition(p, RISK_FREE_RATE));
      const out = parts.get(p)!.apply(raw, offsets[p]++, { sector: inst.sector, industry: inst.industry, isETF: inst.isETF, isIndex: inst.isIndex });
      prints.push(out.enriched);
      latest.set(out.consolidated.rowKey, out.consolidated);
    }
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
