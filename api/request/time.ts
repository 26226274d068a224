import { show } from './fields';
import { invalid } from './problem';

// RFC 3339 date-time: the ISO 8601 profile with a mandatory zone (Z or an offset).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function validCalendarDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

/** Epoch-ms of an ISO 8601 date-time with a zone, or null when it is not one (or not a real date). */
export function parseDateTime(s: string): number | null {
  const m = DATE_TIME.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec] = m.map(Number);
  if (!validCalendarDate(y, mo, d) || h > 23 || mi > 59 || sec > 59) return null;
  const ms = Date.parse(s.toUpperCase());
  return Number.isNaN(ms) || ms < 0 ? null : ms;
}

export function parseLocalDate(s: string): string | null {
  const m = LOCAL_DATE.exec(s);
  if (!m) return null;
  return validCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])) ? s : null;
}

export interface TimeWindow {
  /** Inclusive lower bound, epoch-ms. */
  startMs: number;
  /** Exclusive upper bound, epoch-ms. */
  endMs: number;
}

/**
 * timeRange {startTime, endTime}: both bounds required, ISO 8601 date-times with a zone,
 * startTime strictly before endTime. The window is [startTime, endTime).
 */
export function parseTimeRange(raw: unknown, path = 'timeRange'): TimeWindow {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(path, 'must be an object {startTime, endTime}');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== 'startTime' && k !== 'endTime') throw invalid(`${path}.${k}`, 'is not a field of timeRange (startTime, endTime)');
  }
  const bound = (k: 'startTime' | 'endTime'): number => {
    const v = o[k];
    if (v === undefined || v === null) throw invalid(`${path}.${k}`, 'is required');
    const ms = typeof v === 'string' ? parseDateTime(v) : null;
    if (ms === null) throw invalid(`${path}.${k}`, `must be an ISO 8601 date-time with a zone, e.g. 2024-05-01T13:30:00Z; got ${show(v)}`);
    return ms;
  };
  const startMs = bound('startTime');
  const endMs = bound('endTime');
  if (startMs >= endMs) throw invalid(path, 'startTime must be strictly before endTime');
  return { startMs, endMs };
}
