import { MARKET_PARTITIONS } from '../../schemas/catalog';

/**
 * A stream position: per partition of the view's rows topic, the Kafka offset of the last feed
 * entry the stream has passed (delivered, or skipped by the filter), -1 for none. An event's id is
 * the position just after it, so a stream resumed from an id delivers every matching entry after
 * it once. Offsets are those of the rows topic, identical in every view version and API process.
 *
 * Written as the offsets in base 36, one per partition, separated by '.', an empty field for -1:
 * `1a.0.zz.…` (twelve fields).
 */
export type Position = number[];

export function startPosition(): Position {
  return new Array<number>(MARKET_PARTITIONS).fill(-1);
}

export function encodePosition(p: readonly number[]): string {
  return p.map((o) => (o < 0 ? '' : o.toString(36))).join('.');
}

/** The position an event id names, or null when the text is no id of ours. */
export function decodePosition(id: string): Position | null {
  if (id.length > 400) return null;
  const parts = id.trim().split('.');
  if (parts.length !== MARKET_PARTITIONS) return null;
  const out: Position = [];
  for (const s of parts) {
    if (s === '') out.push(-1);
    else if (/^[0-9a-z]{1,12}$/.test(s)) out.push(parseInt(s, 36));
    else return null;
  }
  return out;
}
