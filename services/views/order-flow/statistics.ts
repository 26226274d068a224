import { TRADE_SIDES } from '../../domain/order-flow';
import { COMBO_DIMENSIONS, premiumTierPosition } from './combinations';
import type { OrderFlowRow } from './keys';

const CONTRACT_TYPES = ['CALL', 'PUT'] as const;

/** Statistics counter field: `<contractType>|<tradeSide>|<p|n|v>` (premium cents, trade count, contracts). */
export function statField(contractType: string, side: string, what: 'p' | 'n' | 'v'): string {
  return `${contractType}|${side}|${what}`;
}

/**
 * Statistics of a result (includeStatistics): per contract type, per trade side, the premium
 * (dollars), the number of rows and the contracts traded. Every type and side is present.
 */
export type SideStatistics = { premium: number; tradeCount: number; volume: number };
export type OrderFlowStatistics = Record<'CALL' | 'PUT', Record<'ABOVE_ASK' | 'ASK' | 'MID_MARKET' | 'BID' | 'BELOW_BID', SideStatistics>>;

/** Premium in integer cents, as the statistics counters hold it. */
export function premiumCents(premium: number): number {
  return Math.round(premium * 100);
}

/** Every statistics counter field, in a fixed order (2 types x 5 sides x 3). */
export const STAT_FIELDS: readonly string[] = CONTRACT_TYPES.flatMap((t) =>
  TRADE_SIDES.flatMap((s) => (['p', 'n', 'v'] as const).map((w) => statField(t, s, w))),
);

/**
 * Where a row's counters are in STAT_FIELDS: the premium field's position (the trade count and the
 * contracts follow it), or -1 for a contract type or side outside the lists (never counted).
 */
export function statFieldPosition(contractType: string, side: string): number {
  const t = (CONTRACT_TYPES as readonly string[]).indexOf(contractType);
  const s = (TRADE_SIDES as readonly string[]).indexOf(side);
  return t < 0 || s < 0 ? -1 : (t * TRADE_SIDES.length + s) * 3;
}

/** Statistics with every type and side present and zero. */
export function emptyStatistics(): OrderFlowStatistics {
  const side = () => ({ premium: 0, tradeCount: 0, volume: 0 });
  const type = () => ({ ABOVE_ASK: side(), ASK: side(), MID_MARKET: side(), BID: side(), BELOW_BID: side() });
  return { CALL: type(), PUT: type() };
}

/** Statistics from counter fields (premium cents, count, contracts); missing fields count zero. */
export function statisticsFromCounters(counters: ReadonlyMap<string, number>): OrderFlowStatistics {
  const out = emptyStatistics();
  for (const t of CONTRACT_TYPES) {
    for (const s of TRADE_SIDES) {
      out[t][s] = {
        premium: (counters.get(statField(t, s, 'p')) ?? 0) / 100,
        tradeCount: counters.get(statField(t, s, 'n')) ?? 0,
        volume: counters.get(statField(t, s, 'v')) ?? 0,
      };
    }
  }
  return out;
}

// --- Counters by combination --------------------------------------------------------------------
// `<D>:sc` (a partition's session) and `<D>:sc:<TICKER>` hold the same sums split by the
// combination index's dimensions (combinations.ts: premium tier, contract type, trade side,
// sector), so statistics filtered on those fields (and a premium floor at a tier) come from
// counters too, over any number of sessions, warm or hot. `<D>:stt` holds the same sums by tier,
// contract type and side alone, for the filters without sectors. A field is `<stem><p|n|v>`, the stem
// being the dimensions' positions: tier, contract type and side as one digit each, the sector in
// base 36 ('z' for a sector outside the list). A combination's fields exist only while it has
// rows, so the hash depends on the rows alone, not on the order they came in.
// COMBO_DIMENSIONS' lists are part of the stored layout: changing them needs
// ORDER_FLOW_LAYOUT_FORMAT bumped.

const OFF_LIST_SECTOR = 'z';

/** The stem of the tier counters (`<D>:stt`): a combination stem without its sector. */
export function tierStatStem(comboStem: string): string {
  return comboStem.slice(0, 3);
}

/** The counter stem of a row's combination, or null for a contract type or side outside the lists (never counted, as with STAT_FIELDS). */
export function comboStatStem(row: Pick<OrderFlowRow, 'premium' | 'contractType' | 'tradeSideCode' | 'sector'>): string | null {
  const D = COMBO_DIMENSIONS;
  const ct = D.contractType.indexOf(row.contractType);
  const side = D.tradeSide.indexOf(row.tradeSideCode);
  if (ct < 0 || side < 0) return null;
  const sector = D.sector.indexOf(row.sector);
  return `${premiumTierPosition(row.premium)}${ct}${side}${sector < 0 ? OFF_LIST_SECTOR : sector.toString(36)}`;
}

/** Which combinations a filter takes: a premium floor (a tier position) and the allowed positions (absent: any, off-list included). */
export interface ComboFilter {
  tierFrom: number;
  contractTypes?: ReadonlySet<string>;
  tradeSides?: ReadonlySet<string>;
  sectors?: ReadonlySet<string>;
}

/**
 * The combination filter equal to these values and premium range, or null when counters cannot
 * answer it exactly: a value outside the lists (its rows share a stem with others), a premium
 * ceiling, or a floor that is not a tier.
 */
export function comboFilterOf(o: {
  contractTypes?: readonly string[];
  tradeSides?: readonly string[];
  sectors?: readonly string[];
  premium?: readonly [number | null, number | null];
}): ComboFilter | null {
  const D = COMBO_DIMENSIONS;
  const [lo, hi] = o.premium ?? [null, null];
  if (hi !== null) return null;
  const tierFrom = lo === null ? 0 : D.tier.indexOf(lo);
  if (tierFrom < 1 && lo !== null) return null;
  const positions = (list: readonly string[], want: readonly string[] | undefined, radix = 10): Set<string> | undefined | null => {
    if (!want) return undefined;
    const at = want.map((v) => list.indexOf(v));
    return at.some((i) => i < 0) ? null : new Set(at.map((i) => i.toString(radix)));
  };
  const contractTypes = positions(D.contractType, o.contractTypes);
  const tradeSides = positions(D.tradeSide, o.tradeSides);
  const sectors = positions(D.sector, o.sectors, 36);
  if (contractTypes === null || tradeSides === null || sectors === null) return null;
  return { tierFrom, contractTypes, tradeSides, sectors };
}

/**
 * Adds a combination hash's fields that `f` takes to `sums` (premium cents, rows, contracts at
 * STAT_FIELDS positions): `sc` fields, or `stt` fields (no sector position), which answer only a
 * filter without sectors. The hash comes flat (HGETALL's reply as a list: field, value, ...): a
 * 30-session statistics query reads ~360 hashes of up to ~1,500 fields, and building an object
 * of each, then taking its fields apart, was most of its time.
 */
export function addComboCounters(flat: readonly string[], f: ComboFilter, sums: number[]): void {
  const sides = COMBO_DIMENSIONS.tradeSide.length;
  for (let i = 0; i < flat.length; i += 2) {
    const field = flat[i];
    // One digit each: tier, contract type, side; in `sc` the sector (one base-36 digit); p, n or v.
    if (field.charCodeAt(0) - 48 < f.tierFrom) continue;
    const ct = field[1];
    const side = field[2];
    if ((f.contractTypes && !f.contractTypes.has(ct)) || (f.tradeSides && !f.tradeSides.has(side))) continue;
    if (f.sectors && (field.length !== 5 || !f.sectors.has(field[3]))) continue;
    const what = field[field.length - 1];
    sums[(Number(ct) * sides + Number(side)) * 3 + (what === 'p' ? 0 : what === 'n' ? 1 : 2)] += Number(flat[i + 1]);
  }
}
