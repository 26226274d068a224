import { TRADE_SIDES } from '../../domain/order-flow';
import { SECTORS } from '../../domain/enums';
import type { OrderFlowRow } from './keys';

/** Premium thresholds (dollars) with their own by-time index, for "big flow" filters. */
export const PREMIUM_TIERS = [100_000, 500_000, 1_000_000] as const;

/**
 * The dimensions of the combination index (`<D>:cx:...`): every row is in exactly one set, named
 * by the highest premium tier it reaches (0 below the lowest), its contract type, trade side and
 * sector. A query pinning some of them reads the union of the sets its values allow (an
 * unpinned dimension enumerates every value), each in tradeTime order, so a selective filter
 * such as "PUT, premium >= $500k, ASK, TECHNOLOGY" reads only the matching rows. A value outside
 * these lists (not produced today) is filed under the dimension's last value: an unpinned
 * dimension enumerates it, and a pinned filter value (always a listed one) never matches such a
 * row anyway, so no match is ever missed (the row predicate still decides).
 */
export const COMBO_DIMENSIONS = {
  tier: [0, ...PREMIUM_TIERS] as readonly number[],
  contractType: ['CALL', 'PUT'] as readonly string[],
  tradeSide: TRADE_SIDES as readonly string[],
  sector: SECTORS as readonly string[],
};

/** The highest premium tier a premium reaches, 0 below the lowest. */
export function premiumTierOf(premium: number): number {
  return COMBO_DIMENSIONS.tier[premiumTierPosition(premium)];
}

export type Combo = [tier: number, contractType: string, tradeSide: string, sector: string];

/** The set a dimension value is filed under: itself, or the dimension's last value when off-list. */
function inList(list: readonly string[], v: string): string {
  return list[listPosition(list, v)];
}

/** The combination set of a row. */
export function comboOf(row: Pick<OrderFlowRow, 'premium' | 'contractType' | 'tradeSideCode' | 'sector'>): Combo {
  const d = COMBO_DIMENSIONS;
  return [premiumTierOf(row.premium), inList(d.contractType, row.contractType), inList(d.tradeSide, row.tradeSideCode), inList(d.sector, row.sector)];
}

/**
 * Every combination set that can hold a row with these values (absent: any value) and a premium
 * within [lo, hi] (null: open): the tiers whose premium span overlaps the range, times the sets
 * the values are filed under.
 */
export function combosAllowing(o: {
  contractTypes?: readonly string[];
  tradeSides?: readonly string[];
  sectors?: readonly string[];
  premium?: readonly [number | null, number | null];
}): Combo[] {
  const D = COMBO_DIMENSIONS;
  const [lo, hi] = o.premium ?? [null, null];
  // A tier's set holds premiums from the tier up to the next tier.
  const tiers = D.tier.filter((t, i) => (hi === null || t <= hi) && (lo === null || i === D.tier.length - 1 || D.tier[i + 1] > lo));
  const pick = (all: readonly string[], want?: readonly string[]) => (want ? [...new Set(want.map((v) => inList(all, v)))] : all);
  const out: Combo[] = [];
  for (const t of tiers)
    for (const c of pick(D.contractType, o.contractTypes))
      for (const s of pick(D.tradeSide, o.tradeSides)) for (const x of pick(D.sector, o.sectors)) out.push([t, c, s, x]);
  return out;
}

/** Position of the highest premium tier reached in COMBO_DIMENSIONS.tier (0: below the lowest). */
export function premiumTierPosition(premium: number): number {
  let i = 0;
  for (let j = 0; j < PREMIUM_TIERS.length; j++) if (premium >= PREMIUM_TIERS[j]) i = j + 1;
  return i;
}

/** The position of the set a value is filed under (inList): itself, or the last when off-list. */
export function listPosition(list: readonly string[], v: string): number {
  const i = list.indexOf(v);
  return i < 0 ? list.length - 1 : i;
}
