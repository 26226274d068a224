import { show } from '../fields';
import { normalizeName } from '../names';
import { invalid } from '../problem';
import type { JsonSchema } from '../validate';

/**
 * aggregationPeriod (spec "aggregationPeriod"): the bucket size of a bucketed endpoint, in the
 * canonical short forms 1m 5m 15m 30m 1h 1d 1w. The long names of the vendor's MCP tools
 * (ONE_MINUTE, FIVE_MINUTE, ..., ONE_WEEK; case and separators ignored) are accepted as aliases;
 * answers never echo a period. Only periods that suit the span of the request are accepted
 * (PERIOD_COMPATIBILITY); when none is given the span's default is used.
 *
 * Minute and hour buckets are clock buckets aligned in UTC epoch-ms (New York's offset is a whole
 * number of hours, so they are New York clock buckets too); 1d is a New York session day and 1w a
 * New York calendar week starting Monday (buckets.ts).
 */

export type PeriodName = '1m' | '5m' | '15m' | '30m' | '1h' | '1d' | '1w';

export interface Period {
  name: PeriodName;
  /** 'clock': fixed `ms` buckets from the epoch; 'day': New York days; 'week': New York weeks from Monday. */
  unit: 'clock' | 'day' | 'week';
  /** Nominal length (a New York day or week may be an hour longer or shorter at a DST change). */
  ms: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const PERIODS: Readonly<Record<PeriodName, Period>> = {
  '1m': { name: '1m', unit: 'clock', ms: MINUTE },
  '5m': { name: '5m', unit: 'clock', ms: 5 * MINUTE },
  '15m': { name: '15m', unit: 'clock', ms: 15 * MINUTE },
  '30m': { name: '30m', unit: 'clock', ms: 30 * MINUTE },
  '1h': { name: '1h', unit: 'clock', ms: HOUR },
  '1d': { name: '1d', unit: 'day', ms: DAY },
  '1w': { name: '1w', unit: 'week', ms: 7 * DAY },
};
export const PERIOD_NAMES = Object.keys(PERIODS) as PeriodName[];

/** The long names the vendor's MCP tools use (vendor notes 1.6); the MCP tools here offer them as the enum. */
export const PERIOD_LONG_NAMES: Readonly<Record<PeriodName, string>> = {
  '1m': 'ONE_MINUTE',
  '5m': 'FIVE_MINUTE',
  '15m': 'FIFTEEN_MINUTE',
  '30m': 'THIRTY_MINUTE',
  '1h': 'ONE_HOUR',
  '1d': 'ONE_DAY',
  '1w': 'ONE_WEEK',
};

const LONG_NAMES: Record<string, PeriodName> = Object.fromEntries(PERIOD_NAMES.map((p): [string, PeriodName] => [normalizeName(PERIOD_LONG_NAMES[p]), p]));

/**
 * Which periods a request spanning up to `maxSpanDays` calendar days accepts, and its default.
 * Rows are checked in order; the first whose span admits the request applies. The finest period
 * of each row keeps an answer within a few thousand buckets; 1m only for one day and 1w only
 * beyond a year, as the spec says.
 */
export const PERIOD_COMPATIBILITY: readonly { maxSpanDays: number; allowed: readonly PeriodName[]; default: PeriodName }[] = [
  { maxSpanDays: 1, allowed: ['1m', '5m', '15m', '30m', '1h', '1d'], default: '5m' },
  { maxSpanDays: 7, allowed: ['5m', '15m', '30m', '1h', '1d'], default: '30m' },
  { maxSpanDays: 31, allowed: ['15m', '30m', '1h', '1d'], default: '1h' },
  { maxSpanDays: 366, allowed: ['1h', '1d'], default: '1d' },
  { maxSpanDays: Infinity, allowed: ['1d', '1w'], default: '1w' },
];

function rowFor(spanMs: number) {
  const days = spanMs / DAY;
  return PERIOD_COMPATIBILITY.find((r) => days <= r.maxSpanDays)!;
}

/** The period a span gets when the request names none. */
export function defaultPeriod(spanMs: number): Period {
  return PERIODS[rowFor(spanMs).default];
}

/** Resolves a period's spelling (canonical or long name), or undefined when it is none. */
export function periodNamed(raw: string): PeriodName | undefined {
  if ((PERIOD_NAMES as string[]).includes(raw)) return raw as PeriodName;
  return LONG_NAMES[normalizeName(raw)];
}

/**
 * The aggregationPeriod of a request spanning `spanMs`: absent or null gives the default; an
 * unknown spelling or one the span does not admit is a 400 naming aggregationPeriod.
 */
export function parseAggregationPeriod(raw: unknown, spanMs: number, path = 'aggregationPeriod'): Period {
  if (raw === undefined || raw === null) return defaultPeriod(spanMs);
  const name = typeof raw === 'string' ? periodNamed(raw.trim()) : undefined;
  if (!name) throw invalid(path, `must be one of ${PERIOD_NAMES.join(', ')}, got ${show(raw)}`);
  const row = rowFor(spanMs);
  if (!row.allowed.includes(name)) {
    const days = spanMs / DAY;
    const span = days <= 1 ? 'one day' : `${Math.ceil(days)} days`;
    throw invalid(path, `${name} does not suit a request spanning ${span}; use one of ${row.allowed.join(', ')} (default ${row.default})`);
  }
  return PERIODS[name];
}

export const aggregationPeriodSchema: JsonSchema = {
  type: ['string', 'null'],
  description:
    'Bucket size: 1m, 5m, 15m, 30m, 1h, 1d or 1w (or ONE_MINUTE ... ONE_WEEK). Must suit the span: up to one day 1m-1d (default 5m); up to 7 days 5m-1d (30m); up to 31 days 15m-1d (1h); up to 366 days 1h or 1d (1d); beyond, 1d or 1w (1w).',
};
