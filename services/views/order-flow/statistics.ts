import { TRADE_SIDES } from '../../domain/order-flow';

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
