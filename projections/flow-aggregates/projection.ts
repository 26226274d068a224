import type { RedisClient as Redis } from '../../services/redis/client';
import { topicFor } from '../../schemas/catalog';
import type { EnrichedPrintEvent } from '../../services/domain/order-flow';
import type { PartitionKeys } from '../../services/views/keys';
import {
  FLOW_AGGREGATES_VIEW,
  FlowAggregateKeys,
  OSI_PACKING,
  PACKING,
  osiBlock,
  osiField,
  addSums,
  barField,
  barOfPrint,
  cellFields,
  contractId,
  decodeBar,
  decodeAtm,
  decodeLast,
  encodeAtm,
  encodeBar,
  encodeLast,
  laterOf,
  mergeBars,
  minuteOf,
  nearerAtmOf,
  updateBlock,
  type AtmPrint,
  type Bar,
  type LastPrice,
  type Packing,
} from '../../services/views/flow-aggregates';
import { premiumCents } from '../../services/views/order-flow';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';
import { withWarmTier } from '../runtime/warm-tier';
import { cubeMover } from './warm-tier';

/**
 * The flow-aggregates cube (services/views/flow-aggregates): every enriched print
 * (derived.order-flow.prints) adds to its whole-session and 1-minute cells at every level
 * (contract, coarse and ticker-net per underlying; coarse and net over the partition's
 * underlyings together; premium-tier net and exchange cells for whole sessions), its minute's and its
 * session's last underlying price and its contract's 1-minute bar; a print with an implied
 * volatility competes for its minute's and expiration's print nearest the money (volatility-drift).
 *
 * A chunk's contributions are first combined in memory per logical field, then the touched packed
 * blocks (keys.ts PACKING, packed.ts) and plain fields are read and written back as one HSET per
 * hash, a block rewritten with its untouched entries copied as bytes: the runtime applies a chunk
 * exactly once and refuses it if anything else was applied to the partition since the read
 * (atomic-apply.ts), so the values read are current. Sums are integers and bars and last prices are chosen by
 * (tradeTime, rowKey), so the view does not depend on how the topic was chunked: a rebuild gives
 * the same bytes.
 */

const PRINTS = topicFor('enriched-print')!;

/** Field -> pending change, per hash key (the plain hashes: ul, av). */
class Pending<V> {
  readonly byKey = new Map<string, Map<string, V>>();
  merge(key: string, field: string, v: V, combine: (a: V, b: V) => V): void {
    let m = this.byKey.get(key);
    if (!m) this.byKey.set(key, (m = new Map()));
    const was = m.get(field);
    m.set(field, was === undefined ? v : combine(was, v));
  }
}

/** Logical field -> pending change, per packed hash key and block (keys.ts PACKING). */
class PendingBlocks<V> {
  /** By key, then block. */
  readonly byKey = new Map<string, { packing: Packing; blocks: Map<string, Map<string, V>> }>();
  constructor(
    readonly combine: (a: V, b: V) => V,
    /** The stored value (or null) with a change applied, as the logical entry's string. */
    readonly next: (was: string | null, change: V) => string,
    /** For sums: the change as integers (packed.ts updateBlock adds them to the stored varints). */
    readonly sumsOf?: (change: V) => readonly number[],
  ) {}
  merge(key: string, packing: Packing, block: string, field: string, v: V): void {
    let k = this.byKey.get(key);
    if (!k) this.byKey.set(key, (k = { packing, blocks: new Map() }));
    let fields = k.blocks.get(block);
    if (!fields) k.blocks.set(block, (fields = new Map()));
    const was = fields.get(field);
    fields.set(field, was === undefined ? v : this.combine(was, v));
  }
  /** A cell field, in the block its family's packing names. */
  add(key: string, packing: Packing, field: string, v: V): void {
    this.merge(key, packing, packing.blockOf(field), field, v);
  }
}

type Sums = [cents: number, prints: number, contracts: number];
const addTriples = (a: Sums, b: Sums): Sums => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];

const hotFlowAggregatesProjection: Projection = {
  view: FLOW_AGGREGATES_VIEW,
  // 2: the market's net cells (ns, nm) were added; 3: premium-tier net and exchange session cells
  // (ps, xs), ticker-net cells (ts, tm) and session last prices (ul); 4: the prints nearest the money
  // per minute and expiration (ae, av); 5: cells, last prices and bars in packed blocks (packed.ts),
  // bars per underlying; 6: sessions older than the newest few in the warm tier (warm-tier.ts); 7: warm
  // sessions keep no level derivable from a finer one (derived.ts) and their at-the-money prints as
  // columns of numbers (warm-atm.ts). A view of an older layout is rebuilt.
  format: 7,
  topics: [PRINTS],

  async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
    const k = new FlowAggregateKeys(keys);
    const sums = new PendingBlocks<Sums>(
      addTriples,
      (was, [c, n, v]) => addSums(was, c, n, v),
      (s) => s,
    );
    const lastBlocks = new PendingBlocks<LastPrice>(
      (a, b) => laterOf(a, b),
      (was, l) => encodeLast(laterOf(was === null ? null : decodeLast(was), l)),
    );
    const bars = new PendingBlocks<Bar>(
      (a, b) => mergeBars(a, b),
      (was, b) => encodeBar(mergeBars(was === null ? null : decodeBar(was), b)),
    );
    const lasts = new Pending<LastPrice>();
    const atms = new Pending<AtmPrint>();
    const atmExpirations = new Map<string, Set<string>>();
    const tickers = new Map<string, Set<string>>();
    const osis = new PendingBlocks<string>(
      (_a, b) => b,
      (_was, contract) => contract,
    );
    const { minute: M, expiration: E, exchange: X, whole: W } = PACKING;
    for (const ev of events) {
      if (ev.value === null) continue;
      const p = ev.value as unknown as EnrichedPrintEvent;
      const d = p.sessionDate;
      const add: Sums = [premiumCents(p.premium), 1, p.size];
      const f = cellFields(p);
      sums.add(k.sessionCells(d, p.ticker), E, f.contract, add);
      sums.add(k.minuteCells(d, p.ticker), M, `${f.minute}|${f.contract}`, add);
      sums.add(k.coarseSessionCells(d, p.ticker), W, f.coarse, add);
      sums.add(k.coarseMinuteCells(d, p.ticker), M, `${f.minute}|${f.coarse}`, add);
      sums.add(k.marketSessionCells(d), X, f.coarse, add);
      sums.add(k.marketMinuteCells(d), M, `${f.minute}|${f.coarse}`, add);
      sums.add(k.marketNetSessionCells(d), W, f.net, add);
      sums.add(k.marketNetMinuteCells(d), M, `${f.minute}|${f.net}`, add);
      sums.add(k.premiumNetSessionCells(d), W, f.premiumNet, add);
      sums.add(k.marketExchangeCells(d), W, f.exchange, add);
      sums.add(k.tickerNetSessionCells(d, p.ticker), W, f.tickerNet, add);
      sums.add(k.tickerNetMinuteCells(d, p.ticker), M, `${f.minute}|${f.tickerNet}`, add);
      const minute = String(minuteOf(p.tradeTime) / 60_000);
      const last = { time: p.tradeTime, rowKey: p.rowKey, price: p.stockPrice };
      lastBlocks.add(k.underlying(d, p.ticker), PACKING.lastPrices, minute, last);
      lasts.merge(k.sessionLastPrices(d), p.ticker, last, (a, b) => laterOf(a, b));
      const contract = contractId(p.ticker, p.expirationDate, p.contractType, p.strikePrice);
      bars.merge(k.bars(d, p.ticker), PACKING.bars, p.expirationDate, barField(p.contractType, p.strikePrice, minute), barOfPrint(p));
      if (p.impliedVolatility !== null && Number.isFinite(p.impliedVolatility)) {
        const atm = { strike: p.strikePrice, stockPrice: p.stockPrice, time: p.tradeTime, rowKey: p.rowKey, iv: p.impliedVolatility };
        atms.merge(k.atmIvs(d, p.ticker, p.expirationDate), minute, atm, nearerAtmOf);
        const ek = k.atmExpirations(d, p.ticker);
        if (!atmExpirations.has(ek)) atmExpirations.set(ek, new Set());
        atmExpirations.get(ek)!.add(p.expirationDate);
      }
      if (!tickers.has(d)) tickers.set(d, new Set());
      tickers.get(d)!.add(p.ticker);
      osis.merge(k.osis(d), OSI_PACKING, osiBlock(p.osi), osiField(p.osi), contract);
    }
    if (!tickers.size) return [];

    // One round trip reads every touched block and plain field.
    const pipe = redis.pipeline();
    // Every packed key is of one pending set (their families' keys differ).
    const packedReads: [PendingBlocks<unknown>, string, string[]][] = [];
    for (const pending of [sums, lastBlocks, bars, osis] as PendingBlocks<unknown>[]) {
      for (const [key, { blocks }] of pending.byKey) {
        const names = [...blocks.keys()];
        pipe.hmgetBuffer(key, ...names);
        packedReads.push([pending, key, names]);
      }
    }
    const plainReads: [Pending<unknown>, string][] = [];
    for (const pending of [lasts, atms] as Pending<unknown>[]) {
      for (const [key, fields] of pending.byKey) {
        pipe.hmget(key, ...fields.keys());
        plainReads.push([pending, key]);
      }
    }
    const res = (await pipe.exec())!;
    const ops: RedisOp[] = [];
    packedReads.forEach(([pending, key, names], i) => {
      const [err, stored] = res[i] as [Error | null, (Buffer | null)[]];
      if (err) throw err;
      const { packing, blocks } = pending.byKey.get(key)!;
      const op: RedisOp = ['HSET', key];
      names.forEach((name, j) => op.push(name, updateBlock(name, stored[j], blocks.get(name)!, packing, pending.next, pending.sumsOf)));
      ops.push(op);
    });
    plainReads.forEach(([pending, key], i) => {
      const [err, stored] = res[packedReads.length + i] as [Error | null, (string | null)[]];
      if (err) throw err;
      const fields = pending.byKey.get(key)!;
      const op: RedisOp = ['HSET', key];
      let j = 0;
      for (const [field, change] of fields) {
        const was = stored[j++];
        const next =
          pending === (lasts as Pending<unknown>)
            ? encodeLast(laterOf(was === null ? null : decodeLast(was), change as LastPrice))
            : encodeAtm(nearerAtmOf(was === null ? null : decodeAtm(was), change as AtmPrint));
        op.push(field, next);
      }
      ops.push(op);
    });
    for (const [d, ts] of tickers) {
      ops.push(['ZADD', k.tickers(d), ...[...ts].flatMap((t) => ['0', t])]);
      ops.push(['ZADD', k.sessions, '0', d]);
    }
    for (const [key, exps] of atmExpirations) ops.push(['ZADD', key, ...[...exps].flatMap((e) => ['0', e])]);
    return ops;
  },
};

/** The cube with sessions older than the newest few kept as compressed groups (warm-tier.ts, runtime/warm-tier.ts). */
export const flowAggregatesProjection: Projection = withWarmTier(hotFlowAggregatesProjection, {
  layout: cubeMover,
  rowsTopic: PRINTS.name,
  sessionOf: (e) => (e.value as { sessionDate?: string } | null)?.sessionDate ?? null,
});
