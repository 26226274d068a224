import {
  BLOCK_MIN_SIZE,
  CONSOLIDATION_GAP_MS,
  GOLDEN_SWEEP_PREMIUM,
  directionOf,
  type ComprisingTrade,
  type ConsolidatedTradeEvent,
  type ConsolidationState,
  ROW_FORMAT,
  type EnrichedPrintEvent,
  type TradeSide,
} from '../../services/domain/order-flow';
import { avroTypeOf, topicFor } from '../../schemas/catalog';
import { sentimentOf, tradeSideOf } from '../enrich/enrich-print';
import { UuidV5 } from '../enrich/row-ids';

/**
 * Consolidation of enriched prints into consolidated trades (sweeps, splits, blocks):
 * a pure fold over one partition's prints in partition order. Only event time decides grouping —
 * no timers, no wall clock — so the same prints in the same order give byte-identical versions.
 *
 * - Group key: (sessionDate, osi, direction of the print's trade side): buying (ASK, ABOVE_ASK),
 *   selling (BID, BELOW_BID) and MID_MARKET never share a trade.
 * - A print joins its key's open trade when |tradeTime - trade.lastTradeTime| <= CONSOLIDATION_GAP_MS
 *   (edge inclusive); otherwise it starts a new trade, which replaces the open one for that key.
 *   lastTradeTime is the latest trade time among the trade's prints, so a print reported slightly
 *   out of time order cannot move the window backwards.
 * - Type: SWEEP when the prints span two or more exchanges, else SPLIT with two or more prints,
 *   else BLOCK when size >= BLOCK_MIN_SIZE, else SINGLE: a lone print below the block size, which
 *   is not a consolidated trade (the consolidated view leaves such versions out; the next print
 *   that joins makes the group a SPLIT or SWEEP under the same id).
 * - rowKey, id (UUID v5 of the first print's id in CONSOLIDATED_ROW_NAMESPACE), dte, stockPrice,
 *   bid/ask/spread, implied volatility, greeks, moneyness, tradeType, exchange, tradeTime and the
 *   reference fields are the FIRST print's; premium and size are sums in partition order; volume
 *   is the contract's cumulative session volume at the latest print; optionPrice is the
 *   size-weighted average price premium / size / 100 (a one-print trade keeps the print's price
 *   exactly, the same value without the division's rounding noise); tradeSideCode is that
 *   average against the first print's NBBO and sentimentType follows from it.
 * - isGoldenSweep: a SWEEP whose side is ASK or ABOVE_ASK and whose premium >= GOLDEN_SWEEP_PREMIUM.
 * - Every add returns the trade's new version (version = number of prints; comprisingTrades =
 *   every print so far), which downstream consumers upsert by id.
 *
 * State: only the latest trade per key is kept — its latest version, held encoded (OpenTrade) — so the
 * state is bounded by (sessions x contracts traded x 3 directions), whatever the print count. A
 * trade is never closed by time: it stays joinable until its key sees a print outside its window.
 * Nothing is evicted (eviction by time would make the result depend on when state was dropped);
 * a processor's state therefore grows with the sessions it has seen (docs/order-flow.md).
 */

/** UUID v5 namespace of consolidated trade ids (derived from the first print's id). */
export const CONSOLIDATED_ROW_NAMESPACE = '07a82213-12e9-4324-8fd3-b06aa103e5f2';
const consolidatedRowId = new UuidV5(CONSOLIDATED_ROW_NAMESPACE);

/** The key a print consolidates under: session, contract and direction. */
export function groupKeyOf(row: Pick<EnrichedPrintEvent, 'sessionDate' | 'osi' | 'tradeSideCode'>): string {
  return `${row.sessionDate}|${row.osi}|${directionOf(row.tradeSideCode)}`;
}

/** The serialisable state: key -> the open trade's latest version. */
export interface ConsolidatorState {
  groups: Record<string, ConsolidatedTradeEvent>;
}

function classify(trades: readonly ComprisingTrade[], size: number): ConsolidationState {
  const first = trades[0].exchange;
  for (let i = 1; i < trades.length; i++) if (trades[i].exchange !== first) return 'SWEEP';
  if (trades.length >= 2) return 'SPLIT';
  return size >= BLOCK_MIN_SIZE ? 'BLOCK' : 'SINGLE';
}

function isBuy(side: TradeSide): boolean {
  return side === 'ASK' || side === 'ABOVE_ASK';
}

function comprising(row: EnrichedPrintEvent): ComprisingTrade {
  return {
    id: row.id,
    osi: row.osi,
    tradeTime: row.tradeTime,
    exchange: row.exchange,
    optionPrice: row.optionPrice,
    size: row.size,
    premium: row.premium,
    tradeSideCode: row.tradeSideCode,
    bidPrice: row.bidPrice,
    askPrice: row.askPrice,
  };
}

/**
 * One version of a trade: `head` supplies the first print's fields (the first print's enriched
 * row for a new trade, the previous version for a growing one); the aggregates are given.
 */
function version(
  head: EnrichedPrintEvent | ConsolidatedTradeEvent,
  id: string,
  trades: ComprisingTrade[],
  premium: number,
  size: number,
  volume: number,
  lastTradeTime: number,
): ConsolidatedTradeEvent {
  const optionPrice = trades.length === 1 ? trades[0].optionPrice : premium / size / 100;
  const side = tradeSideOf(optionPrice, head.bidPrice, head.askPrice);
  const type = classify(trades, size);
  return {
    rowKey: head.rowKey,
    id,
    version: trades.length,
    sessionDate: head.sessionDate,
    osi: head.osi,
    ticker: head.ticker,
    contractType: head.contractType,
    strikePrice: head.strikePrice,
    expirationDate: head.expirationDate,
    dte: head.dte,
    premium,
    size,
    volume,
    stockPrice: head.stockPrice,
    askPrice: head.askPrice,
    bidPrice: head.bidPrice,
    bidAskSpread: head.bidAskSpread,
    optionPrice,
    impliedVolatility: head.impliedVolatility,
    greeks: head.greeks,
    moneyness: head.moneyness,
    tradeSideCode: side,
    sentimentType: sentimentOf(head.contractType, side),
    tradeType: head.tradeType,
    tradeConsolidationType: type,
    isGoldenSweep: type === 'SWEEP' && isBuy(side) && premium >= GOLDEN_SWEEP_PREMIUM,
    isETF: head.isETF,
    isIndex: head.isIndex,
    sector: head.sector,
    industry: head.industry,
    exchange: head.exchange,
    tradeTime: head.tradeTime,
    lastTradeTime,
    comprisingTrades: trades,
    rowFormat: ROW_FORMAT,
  };
}

/**
 * An open trade as held in memory: its latest version, Avro-encoded with the consolidated-trade
 * schema (the very bytes produced to Kafka and written to Redis), as a one-byte string, plus the
 * one field every print of its key needs. Only ~7 % of prints join an open trade (full profile),
 * so decoding on a join is cheap, while holding one flat string instead of an object graph per
 * trade cuts the state's memory about 4x and the garbage collector's marking work far more: the
 * state is the processor's largest heap and grows with the sessions it has seen.
 */
interface OpenTrade {
  lastTradeTime: number;
  /** Avro body of the latest version, latin1 (one byte per character) */
  encoded: string;
}

const tradeType = avroTypeOf(topicFor('consolidated-trade')!);
let scratch = Buffer.allocUnsafe(16 * 1024);

/** Avro body of a version (the consolidated-trade schema, no wire header). */
function encodeTrade(trade: ConsolidatedTradeEvent): Buffer {
  let end = tradeType.encode(trade, scratch, 0);
  while (end < 0) {
    scratch = Buffer.allocUnsafe(scratch.length * 2);
    end = tradeType.encode(trade, scratch, 0);
  }
  return scratch.subarray(0, end);
}

function decodeTrade(encoded: string): ConsolidatedTradeEvent {
  return tradeType.fromBuffer(Buffer.from(encoded, 'latin1')) as ConsolidatedTradeEvent;
}

export interface EncodedVersion {
  trade: ConsolidatedTradeEvent;
  /** the version's Avro body; valid until the next call (a shared scratch buffer) */
  body: Buffer;
}

export class Consolidator {
  private readonly groups = new Map<string, OpenTrade>();
  /** keys changed since the last takeTouched(), with their latest trade (what a persister writes) */
  private readonly touched = new Map<string, OpenTrade>();

  constructor(state?: ConsolidatorState) {
    if (state) for (const key of Object.keys(state.groups)) this.restore(key, state.groups[key]);
  }

  /** Open trades held (one per key). */
  get size(): number {
    return this.groups.size;
  }

  /** Adds the next print of the partition; returns the version of the trade it joined or started. */
  add(row: EnrichedPrintEvent): ConsolidatedTradeEvent {
    return this.addEncoded(row).trade;
  }

  /** add(), also giving the version's Avro body (what the processor produces). */
  addEncoded(row: EnrichedPrintEvent): EncodedVersion {
    const key = groupKeyOf(row);
    const open = this.groups.get(key);
    let next: ConsolidatedTradeEvent;
    if (open && Math.abs(row.tradeTime - open.lastTradeTime) <= CONSOLIDATION_GAP_MS) {
      const prev = decodeTrade(open.encoded);
      // Sums in partition order only: the same prints in the same order give the same bits.
      next = version(
        prev,
        prev.id,
        [...prev.comprisingTrades, comprising(row)],
        prev.premium + row.premium,
        prev.size + row.size,
        row.volume,
        Math.max(prev.lastTradeTime, row.tradeTime),
      );
    } else {
      next = version(row, consolidatedRowId.of(row.printId), [comprising(row)], row.premium, row.size, row.volume, row.tradeTime);
    }
    const body = encodeTrade(next);
    const entry: OpenTrade = { lastTradeTime: next.lastTradeTime, encoded: body.toString('latin1') };
    this.groups.set(key, entry);
    this.touched.set(key, entry);
    return { trade: next, body };
  }

  /** The open trade of a key (its latest version), if any. */
  get(key: string): ConsolidatedTradeEvent | undefined {
    const open = this.groups.get(key);
    return open && decodeTrade(open.encoded);
  }

  /** Puts back one key's trade (restoring persisted state entry by entry). */
  restore(key: string, trade: ConsolidatedTradeEvent): void {
    this.groups.set(key, { lastTradeTime: trade.lastTradeTime, encoded: encodeTrade(trade).toString('latin1') });
  }

  /** Puts back one key's trade from its Avro body (as takeTouchedEncoded gave it). */
  restoreEncoded(key: string, body: Buffer): void {
    const encoded = body.toString('latin1');
    this.groups.set(key, { lastTradeTime: decodeTrade(encoded).lastTradeTime, encoded });
  }

  /** The keys changed since the last call, with their trades, and forgets them. */
  takeTouched(): [string, ConsolidatedTradeEvent][] {
    return this.takeTouchedEncoded().map(([key, body]) => [key, tradeType.fromBuffer(body) as ConsolidatedTradeEvent]);
  }

  /** takeTouched() as Avro bodies (what a persister stores). */
  takeTouchedEncoded(): [string, Buffer][] {
    const out: [string, Buffer][] = [];
    for (const [key, open] of this.touched) out.push([key, Buffer.from(open.encoded, 'latin1')]);
    this.touched.clear();
    return out;
  }

  /** The whole state, keys sorted, so equal states serialise to equal JSON. */
  snapshot(): ConsolidatorState {
    const groups: Record<string, ConsolidatedTradeEvent> = {};
    for (const key of [...this.groups.keys()].sort()) groups[key] = decodeTrade(this.groups.get(key)!.encoded);
    return { groups };
  }
}
