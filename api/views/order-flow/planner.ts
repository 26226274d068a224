import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import {
  COMBO_DIMENSIONS,
  ORDER_FLOW_CONSOLIDATED_VIEW,
  ORDER_FLOW_PRINTS_VIEW,
  PREMIUM_TIERS,
  SORT_INDEXES,
  combosAllowing,
  contractIndexValue,
  orderFlowLayout,
  type Combo,
  type IndexedSort,
  type OrderFlowRow,
} from '../../../services/views/order-flow';
import type { TableLayout } from '../../../services/views/table';
import type { TimeWindow } from '../../request/time';
import type { Family, TablePlan, TableQuery, WarmBounds } from '../../tables/engine';

/**
 * How an order-flow query narrows what the table engine reads (api/tables/engine.ts): the filter's
 * hints name the order-flow view's own indexes — a ticker's rows (in the ticker's partition only),
 * one contract's, a premium tier's, the unusual rows, the combination sets of (premium tier,
 * contract type, trade side, sector), and a range on an indexed sort field. The engine counts
 * them and walks or reads the smallest; the predicate still decides every row.
 */

export interface OrderFlowHints {
  /** Underlyings the filter restricts to (OR). */
  tickers?: string[];
  /** One contract (unconsolidated osi filter). */
  osi?: string;
  /** Inclusive ranges on indexed fields, from the filter object (premiumRange, sizeRange...). */
  ranges?: Partial<Record<IndexedSort, [number | null, number | null]>>;
  /** isUnusual: true in the filter object. */
  unusualOnly?: boolean;
  /** Values the filter object allows (OR within each), for the combination index. */
  contractTypes?: string[];
  tradeSides?: string[];
  sectors?: string[];
}

export interface OrderFlowQuery<Row> {
  view: string;
  version: number;
  /** Session dates to read. */
  sessions: string[];
  /** tradeTime window [startMs, endMs), or null for whole sessions. */
  window: TimeWindow | null;
  /** The full row filter (filter object and filterExpression); hints only choose the plan. */
  predicate(row: Row): boolean;
  hints: OrderFlowHints;
  /**
   * Set when the filter is at most tickers, contract types, trade sides, sectors and a premium
   * range (no filterExpression, no other filter field): `predicate` then tests nothing beyond
   * those hints, and statistics over whole sessions may come from the precomputed counters. Leave
   * unset when unsure (statistics then scan the rows).
   */
  countersFilter?: boolean;
}

/**
 * Most combination sets (cx) one (partition, session) may contribute to a family: a filter that
 * pins few of the combination's dimensions enumerates too many sets to be worth counting. 48
 * admits a contract type and a trade side over every tier and sector (4 x 12), a common filter.
 */
export const MAX_COMBOS = 48;

const LAYOUTS = new Map<string, TableLayout<OrderFlowRow>>([ORDER_FLOW_PRINTS_VIEW, ORDER_FLOW_CONSOLIDATED_VIEW].map((v) => [v, orderFlowLayout(v)]));

/** The table layout of an order-flow view. */
export function layoutOf<Row extends OrderFlowRow>(view: string): TableLayout<Row> {
  let l = LAYOUTS.get(view);
  if (!l) LAYOUTS.set(view, (l = orderFlowLayout(view)));
  return l as TableLayout<Row>;
}

/**
 * The combination sets (services/views/order-flow, COMBO_DIMENSIONS) that hold every row the
 * hints allow, or null when the hints pin none of contract type, trade side and sector (the
 * premium tier alone is the pt: index) or allow more than MAX_COMBOS sets.
 */
export function combosFor(h: OrderFlowHints): Combo[] | null {
  if (!h.contractTypes && !h.tradeSides && !h.sectors) return null;
  const combos = combosAllowing({ contractTypes: h.contractTypes, tradeSides: h.tradeSides, sectors: h.sectors, premium: h.ranges?.PREMIUM });
  return combos.length > MAX_COMBOS ? null : combos;
}

/** The range hints with a bound, on indexed fields other than TRADE_TIME (the default range has that). */
function boundedRanges(h: OrderFlowHints): [IndexedSort, [number | null, number | null]][] {
  const ranges = h.ranges ?? {};
  return (Object.keys(ranges) as IndexedSort[])
    .filter((f) => f !== 'TRADE_TIME' && ranges[f] && (ranges[f]![0] !== null || ranges[f]![1] !== null))
    .map((f) => [f, ranges[f]!]);
}

/** Every narrower family the hints allow (the engine adds x:time, which holds every row). */
export function orderFlowFamilies<Row extends OrderFlowRow>(pl: TablePlan<Row>, h: OrderFlowHints): Family[] {
  const out: Family[] = [];
  if (h.tickers) out.push(pl.indexFamily('tk', 'tk', h.tickers, (t) => [partitionOf(t, MARKET_PARTITIONS)]));
  if (h.osi !== undefined) out.push(pl.indexFamily('os', 'os', [contractIndexValue(h.osi)]));
  const minPremium = h.ranges?.PREMIUM?.[0];
  if (minPremium !== null && minPremium !== undefined) {
    const tier = [...PREMIUM_TIERS].reverse().find((x) => x <= minPremium);
    if (tier !== undefined) out.push(pl.indexFamily(`pt:${tier}`, 'pt', [String(tier)]));
  }
  if (h.unusualOnly) out.push(pl.indexFamily('un', 'un', ['']));
  const combos = combosFor(h);
  if (combos)
    out.push(
      pl.indexFamily(
        'cx',
        'cx',
        combos.map((c) => c.join(':')),
      ),
    );
  for (const [f, r] of boundedRanges(h)) out.push(pl.sortFamily(SORT_INDEXES[f].suffix, r));
  return out;
}

/**
 * The combination family when counting could only confirm it is the smallest: its sets are a
 * subset of every other family when the hints pin combination dimensions and at most a premium
 * floor on a tier boundary — no tickers, contract or unusual flag, no premium ceiling and no other
 * range. The other families are then x:time, pt:<tier> and x:premium from that floor, and each
 * holds every row of the sets.
 */
export function combosWhenSmallest(families: Family[], h: OrderFlowHints): Family | null {
  const cx = families.find((f) => f.name === 'cx');
  if (!cx || h.tickers || h.osi !== undefined || h.unusualOnly) return null;
  const onlyFloor = boundedRanges(h).every(([f, [lo, hi]]) => f === 'PREMIUM' && hi === null && (lo === null || COMBO_DIMENSIONS.tier.includes(lo)));
  return onlyFloor ? cx : null;
}

/** Whether a row passes the hints (a cheap test before the predicate; the predicate implies it). */
function passesHints(row: OrderFlowRow, h: OrderFlowHints): boolean {
  if (h.tickers && !h.tickers.includes(row.ticker)) return false;
  if (h.osi !== undefined && row.osi !== h.osi) return false;
  if (h.unusualOnly && !row.isUnusual) return false;
  if (h.contractTypes && !h.contractTypes.includes(row.contractType)) return false;
  if (h.tradeSides && !h.tradeSides.includes(row.tradeSideCode)) return false;
  if (h.sectors && !h.sectors.includes(row.sector)) return false;
  if (h.ranges) {
    for (const f of Object.keys(h.ranges) as IndexedSort[]) {
      const r = h.ranges[f];
      if (!r) continue;
      const v = SORT_INDEXES[f].value(row);
      if ((r[0] !== null && v < r[0]) || (r[1] !== null && v > r[1])) return false;
    }
  }
  return true;
}

/** An order-flow query as a table-engine query. */
export function orderFlowTableQuery<Row extends OrderFlowRow>(q: OrderFlowQuery<Row>): TableQuery<Row> {
  const h = q.hints;
  return {
    layout: layoutOf<Row>(q.view),
    version: q.version,
    partitions: MARKET_PARTITIONS,
    segments: q.sessions,
    window: q.window,
    defaultRange: h.ranges?.TRADE_TIME,
    predicate: (row) => passesHints(row, h) && q.predicate(row),
    families: (pl) => orderFlowFamilies(pl, h),
    knownSmallest: (fams) => combosWhenSmallest(fams, h),
    warmBounds: warmBoundsOf(h),
  };
}

/** The hints as bounds on warm blocks (blocks are per ticker; each indexed sort has a min and max). */
export function warmBoundsOf(h: OrderFlowHints): WarmBounds {
  const ranges: Record<string, readonly [number | null, number | null]> = {};
  for (const f of Object.keys(h.ranges ?? {}) as IndexedSort[]) if (h.ranges![f]) ranges[SORT_INDEXES[f].suffix] = h.ranges![f]!;
  return { blockKeys: h.tickers, ranges };
}
