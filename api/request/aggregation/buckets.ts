import { fromDayNumber, nyLocalToEpochMs, sessionDateOf, toDayNumber } from '../../../services/domain/calendar';
import type { Period } from './period';

/**
 * Bucket alignment. A bucket is named by its start, epoch-ms:
 *  - minute and hour periods: multiples of the period from the Unix epoch (UTC);
 *  - 1d: New York midnight of the instant's New York date, so a day bucket holds a whole session
 *    with its pre-market and after-hours events;
 *  - 1w: New York midnight of the Monday of the instant's New York week (Monday to Sunday).
 * Views keep 1-minute buckets (or per-session values); a coarser bucket is the sum of the finer
 * ones it contains, which works because every period is a whole number of minutes and each
 * 1-minute bucket lies inside exactly one bucket of any coarser period.
 */

/** The start of the bucket of `period` holding the instant `ms`. */
export function bucketStart(period: Period, ms: number): number {
  if (period.unit === 'clock') return Math.floor(ms / period.ms) * period.ms;
  const day = toDayNumber(sessionDateOf(ms));
  if (period.unit === 'day') return nyMidnight(day);
  // Day 0 (1970-01-01) was a Thursday: Monday is 3 days before.
  const monday = day - ((((day + 3) % 7) + 7) % 7);
  return nyMidnight(monday);
}

/** The bucket start of a whole session (New York date) for day and week periods; its midnight for clock periods. */
export function sessionBucketStart(period: Period, sessionDate: string): number {
  return bucketStart(period, nyMidnight(toDayNumber(sessionDate)));
}

function nyMidnight(day: number): number {
  return nyLocalToEpochMs(fromDayNumber(day), 0, 0);
}

/**
 * bucketStart for many instants: day and week starts need the New York calendar, but every
 * instant of one UTC hour has the same one (offsets change on the hour), so it is worked out once
 * per hour, not per value.
 */
export function bucketStarts(period: Period): (ms: number) => number {
  if (period.unit === 'clock') return (ms) => bucketStart(period, ms);
  const byHour = new Map<number, number>();
  return (ms) => {
    const hour = Math.floor(ms / 3_600_000);
    let b = byHour.get(hour);
    if (b === undefined) byHour.set(hour, (b = bucketStart(period, ms)));
    return b;
  };
}

/** A bucket's key in a response: its start as an epoch-ms string. */
export function bucketKey(startMs: number): string {
  return String(startMs);
}

/**
 * Sums values into the buckets of `period`: `into` merges one source value into a bucket's
 * accumulator (created by `init`). Returns the buckets ascending by start.
 */
export function rollUp<V, A>(
  period: Period,
  source: Iterable<readonly [ms: number, value: V]>,
  init: () => A,
  into: (acc: A, v: V, ms: number) => void,
): [number, A][] {
  const out = new Map<number, A>();
  const startOf = bucketStarts(period);
  for (const [ms, v] of source) {
    const b = startOf(ms);
    let acc = out.get(b);
    if (acc === undefined) out.set(b, (acc = init()));
    into(acc, v, ms);
  }
  return [...out.entries()].sort((a, b) => a[0] - b[0]);
}
