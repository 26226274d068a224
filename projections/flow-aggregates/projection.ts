import type Redis from 'ioredis';
import { topicFor } from '../../schemas/catalog';
import type { EnrichedPrintEvent } from '../../services/domain/order-flow';
import type { PartitionKeys } from '../../services/views/keys';
import {
  FLOW_AGGREGATES_VIEW,
  FlowAggregateKeys,
  addSums,
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
  type AtmPrint,
  type Bar,
  type LastPrice,
} from '../../services/views/flow-aggregates';
import { premiumCents } from '../../services/views/order-flow';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';

/**
 * The flow-aggregates cube (services/views/flow-aggregates): every enriched print
 * (derived.order-flow.prints) adds to its whole-session and 1-minute cells at every level
 * (contract, coarse and ticker-net per underlying; coarse and net over the partition's
 * underlyings together; premium-tier net and exchange cells for whole sessions), its minute's and its
 * session's last underlying price and its contract's 1-minute bar; a print with an implied
 * volatility competes for its minute's and expiration's print nearest the money (volatility-drift).
 *
 * A chunk's contributions are first combined in memory per hash field, then the touched fields
 * are read and written back as one HSET per hash: the runtime applies a chunk exactly once and
 * refuses it if anything else was applied to the partition since the read (atomic-apply.ts), so
 * the values read are current. Sums are integers and bars and last prices are chosen by
 * (tradeTime, rowKey), so the view does not depend on how the topic was chunked: a rebuild gives
 * the same bytes.
 */

const PRINTS = topicFor('enriched-print')!;

/** Field -> pending change, per hash key. */
class Pending<V> {
  readonly byKey = new Map<string, Map<string, V>>();
  merge(key: string, field: string, v: V, combine: (a: V, b: V) => V): void {
    let m = this.byKey.get(key);
    if (!m) this.byKey.set(key, (m = new Map()));
    const was = m.get(field);
    m.set(field, was === undefined ? v : combine(was, v));
  }
}

type Sums = [cents: number, prints: number, contracts: number];
const addTriples = (a: Sums, b: Sums): Sums => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];

export const flowAggregatesProjection: Projection = {
  view: FLOW_AGGREGATES_VIEW,
  // 2: the market's net cells (ns, nm) were added; 3: premium-tier net and exchange session cells
  // (ps, xs), ticker-net cells (ts, tm) and session last prices (ul); 4: the prints nearest the money
  // per minute and expiration (ae, av). A view of an older layout is rebuilt.
  format: 4,
  topics: [PRINTS],

  async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
    const k = new FlowAggregateKeys(keys);
    const sums = new Pending<Sums>();
    const lasts = new Pending<LastPrice>();
    const bars = new Pending<Bar>();
    const atms = new Pending<AtmPrint>();
    const atmExpirations = new Map<string, Set<string>>();
    const tickers = new Map<string, Set<string>>();
    const osis = new Map<string, Map<string, string>>();
    for (const ev of events) {
      if (ev.value === null) continue;
      const p = ev.value as unknown as EnrichedPrintEvent;
      const d = p.sessionDate;
      const add: Sums = [premiumCents(p.premium), 1, p.size];
      const f = cellFields(p);
      sums.merge(k.sessionCells(d, p.ticker), f.contract, add, addTriples);
      sums.merge(k.minuteCells(d, p.ticker), `${f.minute}|${f.contract}`, add, addTriples);
      sums.merge(k.coarseSessionCells(d, p.ticker), f.coarse, add, addTriples);
      sums.merge(k.coarseMinuteCells(d, p.ticker), `${f.minute}|${f.coarse}`, add, addTriples);
      sums.merge(k.marketSessionCells(d), f.coarse, add, addTriples);
      sums.merge(k.marketMinuteCells(d), `${f.minute}|${f.coarse}`, add, addTriples);
      sums.merge(k.marketNetSessionCells(d), f.net, add, addTriples);
      sums.merge(k.marketNetMinuteCells(d), `${f.minute}|${f.net}`, add, addTriples);
      sums.merge(k.premiumNetSessionCells(d), f.premiumNet, add, addTriples);
      sums.merge(k.marketExchangeCells(d), f.exchange, add, addTriples);
      sums.merge(k.tickerNetSessionCells(d, p.ticker), f.tickerNet, add, addTriples);
      sums.merge(k.tickerNetMinuteCells(d, p.ticker), `${f.minute}|${f.tickerNet}`, add, addTriples);
      const minute = String(minuteOf(p.tradeTime) / 60_000);
      const last = { time: p.tradeTime, rowKey: p.rowKey, price: p.stockPrice };
      lasts.merge(k.underlying(d, p.ticker), minute, last, (a, b) => laterOf(a, b));
      lasts.merge(k.sessionLastPrices(d), p.ticker, last, (a, b) => laterOf(a, b));
      const contract = contractId(p.ticker, p.expirationDate, p.contractType, p.strikePrice);
      bars.merge(k.contract(d, contract), minute, barOfPrint(p), (a, b) => mergeBars(a, b));
      if (p.impliedVolatility !== null && Number.isFinite(p.impliedVolatility)) {
        const atm = { strike: p.strikePrice, stockPrice: p.stockPrice, time: p.tradeTime, rowKey: p.rowKey, iv: p.impliedVolatility };
        atms.merge(k.atmIvs(d, p.ticker, p.expirationDate), minute, atm, nearerAtmOf);
        const ek = k.atmExpirations(d, p.ticker);
        if (!atmExpirations.has(ek)) atmExpirations.set(ek, new Set());
        atmExpirations.get(ek)!.add(p.expirationDate);
      }
      if (!tickers.has(d)) tickers.set(d, new Set());
      tickers.get(d)!.add(p.ticker);
      if (!osis.has(d)) osis.set(d, new Map());
      osis.get(d)!.set(p.osi, contract);
    }
    if (!tickers.size) return [];

    // One round trip reads every touched field.
    const pipe = redis.pipeline();
    const reads: [Pending<unknown>, string][] = [];
    for (const pending of [sums, lasts, bars, atms] as Pending<unknown>[]) {
      for (const [key, fields] of pending.byKey) {
        pipe.hmget(key, ...fields.keys());
        reads.push([pending, key]);
      }
    }
    const res = (await pipe.exec())!;
    const ops: RedisOp[] = [];
    reads.forEach(([pending, key], i) => {
      const [err, stored] = res[i] as [Error | null, (string | null)[]];
      if (err) throw err;
      const fields = pending.byKey.get(key)!;
      const op: RedisOp = ['HSET', key];
      let j = 0;
      for (const [field, change] of fields) {
        const was = stored[j++];
        let next: string;
        if (pending === (sums as Pending<unknown>)) {
          const [c, n, v] = change as Sums;
          next = addSums(was, c, n, v);
        } else if (pending === (lasts as Pending<unknown>)) {
          next = encodeLast(laterOf(was === null ? null : decodeLast(was), change as LastPrice));
        } else if (pending === (bars as Pending<unknown>)) {
          next = encodeBar(mergeBars(was === null ? null : decodeBar(was), change as Bar));
        } else {
          next = encodeAtm(nearerAtmOf(was === null ? null : decodeAtm(was), change as AtmPrint));
        }
        op.push(field, next);
      }
      ops.push(op);
    });
    for (const [d, ts] of tickers) {
      ops.push(['ZADD', k.tickers(d), ...[...ts].flatMap((t) => ['0', t])]);
      ops.push(['ZADD', k.sessions, '0', d]);
    }
    for (const [d, m] of osis) ops.push(['HSET', k.osis(d), ...[...m].flat()]);
    for (const [key, exps] of atmExpirations) ops.push(['ZADD', key, ...[...exps].flatMap((e) => ['0', e])]);
    return ops;
  },
};
