import type { ConsolidatedTradeEvent, ConsolidationType, EnrichedPrintEvent, OpenInterestFlags, ComprisingTrade } from '../../domain/order-flow';
import type { PartitionKeys } from '../keys';
import { encodeSortKey, indexMember } from '../sort-keys';
import { COMBO_DIMENSIONS, PREMIUM_TIERS, comboOf, listPosition, premiumTierPosition, type Combo } from './combinations';

/**
 * The order-flow views (one per tape), shared by the projectors (writers) and the API (reader).
 * Every key lives under its partition's hash tag; data keys are per session so a session can be
 * read, rebuilt or dropped on its own.
 *
 *   s                      zset  (lex)  session dates that have rows in this partition
 *   oi:<D>:<ROOT_YYMMDD>   hash  C/P+strike -> start-of-session open interest of session D, one
 *                                hash per contract root and expiration (the OSI's first 12
 *                                characters, spaces as '_'): small hashes stay listpack-encoded,
 *                                ~17 bytes a contract instead of ~87 in one big hash per session
 *   oi:<D>                 set   the buckets (ROOT_YYMMDD) of session D's open-interest hashes
 *   oi                     zset  (lex)  session dates that have open interest, rows or not
 *   <D>:r                  hash  rowKey -> row, MessagePack (OrderFlowPrintRow / OrderFlowConsolidatedRow; encodeRow)
 *   <D>:ct                 hash  rowKey -> comprising trades, MessagePack (consolidated view only)
 *   <D>:x:<sort>           zset  every row, ordered by a sort field (SORT_INDEXES)
 *   <D>:tk:<TICKER>        zset  rows of one underlying, by tradeTime
 *   <D>:os:<OSI>           zset  rows of one contract, by tradeTime (also drives the open-interest join)
 *   <D>:pt:<tier>          zset  rows with premium >= tier dollars (PREMIUM_TIERS), by tradeTime
 *   <D>:un                 zset  rows with isUnusual, by tradeTime
 *   <D>:cx:<tier>:<CT>:<SIDE>:<SECTOR>
 *                          zset  rows of one (premium tier, contract type, trade side, sector)
 *                                combination, by tradeTime (COMBO_DIMENSIONS): a filter on these
 *                                fields reads a union of a few such sets, holding only matches
 *   <D>:st                 hash  statistics counters of every row (statField)
 *   <D>:sc                 hash  the same by combination (comboStatStem: premium tier, contract
 *                                type, trade side, sector), only combinations that have rows
 *   <D>:sc:<TICKER>        hash  the same per underlying (its statistics with or without filters)
 *   <D>:stt                hash  the same by premium tier, contract type and trade side alone (the
 *                                combination stem without the sector): what a filter without
 *                                sectors reads, a tenth of `sc`'s fields
 *
 * Index zsets have all scores 0 and members `<sortKey>:<rowKey>`: ZRANGE BYLEX walks
 * (sort value, rowKey) in order, so the tie-break on rowKey is exact and a cursor
 * (sortKey, rowKey) resumes with no row served twice or skipped, however many rows tie.
 */

export const ORDER_FLOW_PRINTS_VIEW = 'order-flow-prints';
export const ORDER_FLOW_CONSOLIDATED_VIEW = 'order-flow-consolidated';

/** A stored unconsolidated row: the enriched print (rowFormat 2) plus the open-interest join. */
export type OrderFlowPrintRow = Omit<EnrichedPrintEvent, 'printId' | 'rowFormat'> & OpenInterestFlags;
/**
 * A stored consolidated row (comprising trades are stored beside it, read only on request): a
 * version typed SWEEP, SPLIT or BLOCK; a lone small print (SINGLE) is never a row.
 */
export type OrderFlowConsolidatedRow = Omit<ConsolidatedTradeEvent, 'comprisingTrades' | 'version' | 'rowFormat' | 'tradeConsolidationType'> &
  OpenInterestFlags & { tradeConsolidationType: ConsolidationType };
export type OrderFlowRow = OrderFlowPrintRow | OrderFlowConsolidatedRow;
export type { ComprisingTrade };

/** Sort orders kept as indexes: the canonical field name -> index suffix and the row value. */
export const SORT_INDEXES = {
  TRADE_TIME: { suffix: 'time', value: (r: OrderFlowRow) => r.tradeTime },
  PREMIUM: { suffix: 'premium', value: (r: OrderFlowRow) => r.premium },
  SIZE: { suffix: 'size', value: (r: OrderFlowRow) => r.size },
  VOLUME: { suffix: 'volume', value: (r: OrderFlowRow) => r.volume },
  DTE: { suffix: 'dte', value: (r: OrderFlowRow) => r.dte },
  STRIKE_PRICE: { suffix: 'strike', value: (r: OrderFlowRow) => r.strikePrice },
} as const;
export type IndexedSort = keyof typeof SORT_INDEXES;
export const INDEXED_SORTS = Object.keys(SORT_INDEXES) as IndexedSort[];

/**
 * The keys of one partition of an order-flow view. A class rather than an object of arrow
 * functions: the API builds one per partition per request, and an object literal of closures
 * costs an allocation (and, run through tsx, a name-keeping call) per function each time.
 */
export class OrderFlowKeys {
  readonly sessions: string;
  private readonly sessionKeys = new Map<string, SessionIndexKeys>();

  constructor(private readonly p: PartitionKeys) {
    this.sessions = p.key('s');
  }

  /**
   * The index keys of session D, each string built once for the life of this object: a
   * projector chunk names every index key once per row, and a reused string also keeps its
   * hash for the writer's per-key maps.
   */
  indexKeys(d: string): SessionIndexKeys {
    let s = this.sessionKeys.get(d);
    if (!s) this.sessionKeys.set(d, (s = new SessionIndexKeys(this, d)));
    return s;
  }

  /** The open-interest hash holding a contract of session D (field: openInterestField(osi)). */
  openInterest(d: string, osi: string): string {
    return this.openInterestBucket(d, osiBucket(osi));
  }
  openInterestBucket(d: string, bucket: string): string {
    return this.p.key('oi', d, bucket);
  }
  /** The set of session D's open-interest buckets (osiBucket), so its hashes can be found to move with it. */
  openInterestBuckets(d: string): string {
    return this.p.key('oi', d);
  }
  /** The sessions that have open interest (with or without rows yet). */
  get openInterestSessions(): string {
    return this.p.key('oi');
  }
  rows(d: string): string {
    return this.p.key(d, 'r');
  }
  comprising(d: string): string {
    return this.p.key(d, 'ct');
  }
  sorted(d: string, s: IndexedSort): string {
    return this.p.key(d, 'x', SORT_INDEXES[s].suffix);
  }
  ticker(d: string, t: string): string {
    return this.p.key(d, 'tk', t);
  }
  contract(d: string, osi: string): string {
    return this.p.key(d, 'os', osi.replace(/ /g, '_'));
  }
  premiumTier(d: string, tier: number): string {
    return this.p.key(d, 'pt', String(tier));
  }
  unusual(d: string): string {
    return this.p.key(d, 'un');
  }
  combo(d: string, c: Readonly<Combo>): string {
    return this.p.key(d, 'cx', String(c[0]), c[1], c[2], c[3]);
  }
  stats(d: string): string {
    return this.p.key(d, 'st');
  }
  comboStats(d: string): string {
    return this.p.key(d, 'sc');
  }
  tickerComboStats(d: string, t: string): string {
    return this.p.key(d, 'sc', t);
  }
  tierStats(d: string): string {
    return this.p.key(d, 'stt');
  }
}

export function orderFlowKeys(p: PartitionKeys): OrderFlowKeys {
  return new OrderFlowKeys(p);
}

/** Memoized index keys of one session of one partition (OrderFlowKeys.indexKeys). */
export class SessionIndexKeys {
  /** By INDEXED_SORTS position. */
  readonly sorted: readonly string[];
  /** By PREMIUM_TIERS position. */
  readonly premiumTiers: readonly string[];
  readonly unusual: string;
  readonly stats: string;
  readonly comboStats: string;
  readonly tierStats: string;
  private readonly tickers = new Map<string, string>();
  private readonly tickerStatKeys = new Map<string, string>();
  private readonly contracts = new Map<string, string>();
  private readonly combos = new Map<number, string>();

  constructor(
    private readonly k: OrderFlowKeys,
    readonly d: string,
  ) {
    this.sorted = INDEXED_SORTS.map((x) => k.sorted(d, x));
    this.premiumTiers = PREMIUM_TIERS.map((t) => k.premiumTier(d, t));
    this.unusual = k.unusual(d);
    this.stats = k.stats(d);
    this.comboStats = k.comboStats(d);
    this.tierStats = k.tierStats(d);
  }

  ticker(t: string): string {
    return this.memo(this.tickers, t, 'ticker');
  }

  contract(osi: string): string {
    return this.memo(this.contracts, osi, 'contract');
  }

  tickerComboStats(t: string): string {
    return this.memo(this.tickerStatKeys, t, 'tickerComboStats');
  }

  // The key builder by name rather than a closure per call: this runs ~3 times per projected row.
  private memo(m: Map<string, string>, x: string, build: 'ticker' | 'contract' | 'tickerComboStats'): string {
    let key = m.get(x);
    if (key === undefined) m.set(x, (key = this.k[build](this.d, x)));
    return key;
  }

  /** The combination set of a row (comboOf), found by a number rather than a joined string. */
  combo(row: Pick<OrderFlowRow, 'premium' | 'contractType' | 'tradeSideCode' | 'sector'>): string {
    const D = COMBO_DIMENSIONS;
    const id =
      ((premiumTierPosition(row.premium) * D.contractType.length + listPosition(D.contractType, row.contractType)) * D.tradeSide.length +
        listPosition(D.tradeSide, row.tradeSideCode)) *
        D.sector.length +
      listPosition(D.sector, row.sector);
    let key = this.combos.get(id);
    if (key === undefined) this.combos.set(id, (key = this.k.combo(this.d, comboOf(row))));
    return key;
  }
}

/** The open-interest hash (bucket) of a contract: its root and expiration. */
export function osiBucket(osi: string): string {
  return (osi.length === 21 ? osi.slice(0, 12) : osi).replace(/ /g, '_');
}

/** A contract's field in its open-interest hash: right and strike (the OSI's last 9 characters). */
export function openInterestField(osi: string): string {
  return osi.length === 21 ? osi.slice(12) : '-';
}

export const ROW_KEY_LENGTH = 10;

/** The partition a rowKey came from (its first two digits). */
export function partitionOfRowKey(rowKey: string): number {
  return Number(rowKey.slice(0, 2));
}

/** Every index a row is a member of: [key, member] pairs (one partition, one session). */
export function rowIndexEntries(k: OrderFlowKeys, row: OrderFlowRow): [key: string, member: string][] {
  const out: [string, string][] = [];
  eachIndexEntry(k, row, (key, member) => out.push([key, member]));
  return out;
}

/** rowIndexEntries without the list: the projector's path for every new row. */
export function eachIndexEntry(k: OrderFlowKeys, row: OrderFlowRow, to: (key: string, member: string) => void): void {
  const s = k.indexKeys(row.sessionDate);
  for (let i = 0; i < SORT_VALUES.length; i++) to(s.sorted[i], indexMember(encodeSortKey(SORT_VALUES[i](row)), row.rowKey));
  const byTime = indexMember(encodeSortKey(row.tradeTime), row.rowKey);
  to(s.ticker(row.ticker), byTime);
  to(s.contract(row.osi), byTime);
  for (let i = 0; i < PREMIUM_TIERS.length; i++) if (row.premium >= PREMIUM_TIERS[i]) to(s.premiumTiers[i], byTime);
  if (row.isUnusual) to(s.unusual, byTime);
  to(s.combo(row), byTime);
}
const SORT_VALUES = INDEXED_SORTS.map((x) => SORT_INDEXES[x].value);
