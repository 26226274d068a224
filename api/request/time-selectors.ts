import { fromDayNumber, isTradingDay, sessionDateOf, toDayNumber } from '../../services/domain/calendar';
import { show } from './fields';
import { invalid } from './problem';
import { parseDateTime, parseLocalDate, parseTimeRange, type TimeWindow } from './time';
import type { JsonSchema } from './validate';

/**
 * The time selectors of the spec ("Time selectors"), declared per endpoint: which of sessionDate,
 * timeRange, snapshotTime and sessionDateRange it accepts. The request schema built from the same
 * declaration (selectorSchemas) makes a selector the endpoint does not accept a 400 naming it; the
 * parser here checks values and the exclusions:
 *  - sessionDate excludes timeRange and snapshotTime (spec), and timeRange excludes snapshotTime
 *    (a window and an instant cannot both apply);
 *  - a sessionDate must be an NYSE trading day: a weekend or holiday is always a caller's mistake.
 * With none given the selection is `latest`, which the endpoint resolves against what its view
 * holds (the latest session with data; the latest snapshot; the latest published open interest).
 */

export type SelectorName = 'sessionDate' | 'timeRange' | 'snapshotTime' | 'sessionDateRange';

export type TimeSelection =
  | { kind: 'latest' }
  | { kind: 'session'; sessionDate: string }
  | { kind: 'window'; window: TimeWindow }
  /** An instant; the snapshot taken is the last one strictly before it. */
  | { kind: 'snapshot'; beforeMs: number }
  /** Both dates inclusive. */
  | { kind: 'sessionRange'; startDate: string; endDate: string };

const MS_PER_DAY = 86_400_000;

/** Exclusive pairs, in the order their problem names them (the second is the one rejected). */
const EXCLUSIVE: readonly (readonly [SelectorName, SelectorName])[] = [
  ['sessionDate', 'timeRange'],
  ['sessionDate', 'snapshotTime'],
  ['timeRange', 'snapshotTime'],
  ['sessionDateRange', 'sessionDate'],
  ['sessionDateRange', 'timeRange'],
  ['sessionDateRange', 'snapshotTime'],
];

const given = (body: Record<string, unknown>, k: string) => body[k] !== undefined && body[k] !== null;

/** The trading session named by a request's sessionDate: a real date, and an NYSE trading day. */
export function parseSessionDate(raw: unknown, path = 'sessionDate'): string {
  const d = typeof raw === 'string' ? parseLocalDate(raw) : null;
  if (d === null) throw invalid(path, `must be a date as yyyy-MM-dd, got ${show(raw)}`);
  if (!isTradingDay(d)) throw invalid(path, `${d} is not an NYSE trading session (weekend or holiday)`);
  return d;
}

/** Parses the selectors of `body` that `accepts` names (the schema has rejected any other). */
export function parseTimeSelection(body: Record<string, unknown>, accepts: readonly SelectorName[], nowMs: number = Date.now()): TimeSelection {
  for (const [a, b] of EXCLUSIVE) {
    if (accepts.includes(a) && accepts.includes(b) && given(body, a) && given(body, b)) {
      throw invalid(b, `cannot be combined with ${a} (they are mutually exclusive)`);
    }
  }
  if (accepts.includes('sessionDate') && given(body, 'sessionDate')) return { kind: 'session', sessionDate: parseSessionDate(body.sessionDate) };
  if (accepts.includes('timeRange') && given(body, 'timeRange')) return { kind: 'window', window: parseTimeRange(body.timeRange) };
  if (accepts.includes('snapshotTime') && given(body, 'snapshotTime')) {
    const raw = body.snapshotTime;
    const ms = typeof raw === 'string' ? parseDateTime(raw) : null;
    if (ms === null) throw invalid('snapshotTime', `must be an ISO 8601 date-time with a zone, e.g. 2024-05-01T15:00:00Z; got ${show(raw)}`);
    return { kind: 'snapshot', beforeMs: ms };
  }
  if (accepts.includes('sessionDateRange') && given(body, 'sessionDateRange')) return parseSessionDateRange(body.sessionDateRange, nowMs);
  return { kind: 'latest' };
}

/**
 * sessionDateRange {startDate, endDate}: startDate required, endDate optional and then tomorrow in
 * New York (spec, Dark Pool Levels); both inclusive, startDate not after endDate. Non-trading days
 * are allowed as bounds: a range is a span of the calendar, the sessions in it are what it holds.
 */
export function parseSessionDateRange(raw: unknown, nowMs: number, path = 'sessionDateRange'): TimeSelection & { kind: 'sessionRange' } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(path, 'must be an object {startDate, endDate}');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (k !== 'startDate' && k !== 'endDate') throw invalid(`${path}.${k}`, 'is not a field of sessionDateRange (startDate, endDate)');
  const date = (k: 'startDate' | 'endDate'): string | null => {
    const v = o[k];
    if (v === undefined || v === null) return null;
    const d = typeof v === 'string' ? parseLocalDate(v) : null;
    if (d === null) throw invalid(`${path}.${k}`, `must be a date as yyyy-MM-dd, got ${show(v)}`);
    return d;
  };
  const startDate = date('startDate');
  if (startDate === null) throw invalid(`${path}.startDate`, 'is required');
  const endDate = date('endDate') ?? tomorrowInNewYork(nowMs);
  if (startDate > endDate) throw invalid(path, 'startDate must not be after endDate');
  return { kind: 'sessionRange', startDate, endDate };
}

/** The New York calendar date after the one `nowMs` falls on. */
export function tomorrowInNewYork(nowMs: number): string {
  return fromDayNumber(toDayNumber(sessionDateOf(nowMs)) + 1);
}

/**
 * The length of time a selection spans, for choosing and checking an aggregation period: a
 * session (or the latest one) is one day, a window its length, a date range its calendar days.
 */
export function selectionSpanMs(sel: TimeSelection): number {
  switch (sel.kind) {
    case 'window':
      return sel.window.endMs - sel.window.startMs;
    case 'sessionRange':
      return (toDayNumber(sel.endDate) - toDayNumber(sel.startDate) + 1) * MS_PER_DAY;
    default:
      return MS_PER_DAY;
  }
}

/**
 * The sessions of `held` (ascending dates a view has data for) that a selection covers: a
 * sessionDate itself (whether held or not: its answer is then empty), the held sessions a window
 * or a date range overlaps, or the latest held one.
 */
export function sessionsCovered(sel: TimeSelection, held: readonly string[]): string[] {
  switch (sel.kind) {
    case 'session':
      return [sel.sessionDate];
    case 'window': {
      const first = sessionDateOf(sel.window.startMs);
      const last = sessionDateOf(sel.window.endMs - 1);
      return held.filter((d) => d >= first && d <= last);
    }
    case 'sessionRange':
      return held.filter((d) => d >= sel.startDate && d <= sel.endDate);
    case 'snapshot': {
      const d = sessionDateOf(sel.beforeMs - 1);
      return held.filter((x) => x <= d).slice(-1);
    }
    case 'latest':
      return held.slice(-1);
  }
}

const SCHEMAS: Record<SelectorName, JsonSchema> = {
  sessionDate: { type: 'string', format: 'date', description: 'Trading session (yyyy-MM-dd, an NYSE trading day).' },
  timeRange: {
    type: 'object',
    description: 'Custom window [startTime, endTime): ISO 8601 date-times with a zone; startTime strictly before endTime.',
    properties: { startTime: { type: 'string', format: 'date-time' }, endTime: { type: 'string', format: 'date-time' } },
  },
  snapshotTime: {
    type: 'string',
    format: 'date-time',
    description: 'An instant (ISO 8601 with a zone); the snapshot used is the last one strictly before it.',
  },
  sessionDateRange: {
    type: 'object',
    description: 'Sessions {startDate, endDate}, both inclusive yyyy-MM-dd; endDate defaults to tomorrow in New York.',
    properties: { startDate: { type: 'string', format: 'date' }, endDate: { type: ['string', 'null'], format: 'date' } },
  },
};

/** The request-schema properties of the selectors an endpoint accepts (with a note on the default). */
export function selectorSchemas(accepts: readonly SelectorName[], defaultNote?: string): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const s of accepts) out[s] = SCHEMAS[s];
  if (defaultNote && accepts.length) {
    const first = accepts[0];
    out[first] = { ...out[first], description: `${out[first].description as string} ${defaultNote}` };
  }
  return out;
}
