// NYSE trading calendar in America/New_York, computed by rule so that it never needs a yearly
// table refresh. Only one-off closures (days of mourning, storms) are listed explicitly.
//
// Scope: the holiday and early-close rules are the ones NYSE has applied since Juneteenth was
// added in 2022; earlier years follow the same rules (plus the listed special closures) and are
// only as accurate as that assumption. Time-zone offsets follow the US federal DST rules, which
// are implemented here rather than read from Intl so results do not depend on the ICU build.

/** ISO calendar date, yyyy-MM-dd, always meaning a New York calendar day. */
export type LocalDate = string;

export interface SessionBounds {
  /** epoch-ms of 09:30 New York time */
  open: number;
  /** epoch-ms of 16:00 New York time, or 13:00 on early-close days */
  close: number;
}

export interface SpecialClosure {
  date: LocalDate;
  reason: string;
}

/**
 * Unscheduled full-day closures. They cannot be derived from any rule, so they are listed; add
 * new ones here (NYSE announces them a few days ahead).
 */
export const SPECIAL_CLOSURES: readonly SpecialClosure[] = Object.freeze([
  { date: '2001-09-11', reason: 'September 11 attacks' },
  { date: '2001-09-12', reason: 'September 11 attacks' },
  { date: '2001-09-13', reason: 'September 11 attacks' },
  { date: '2001-09-14', reason: 'September 11 attacks' },
  { date: '2004-06-11', reason: 'National day of mourning for President Ronald Reagan' },
  { date: '2007-01-02', reason: 'National day of mourning for President Gerald Ford' },
  { date: '2012-10-29', reason: 'Hurricane Sandy' },
  { date: '2012-10-30', reason: 'Hurricane Sandy' },
  { date: '2018-12-05', reason: 'National day of mourning for President George H. W. Bush' },
  { date: '2025-01-09', reason: 'National day of mourning for President Jimmy Carter' },
]);

const MS_PER_DAY = 86_400_000;
const MS_PER_HOUR = 3_600_000;
const SUNDAY = 0;
const MONDAY = 1;
const THURSDAY = 4;
const SATURDAY = 6;

const OPEN_HH = 9;
const OPEN_MM = 30;
const CLOSE_HH = 16;
const EARLY_CLOSE_HH = 13;

// Internally dates are integer day numbers (days since 1970-01-01) so that arithmetic is plain
// integer addition and immune to the host time zone.

const LOCAL_DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a LocalDate (validated). */
export function toDayNumber(d: LocalDate): number {
  const m = LOCAL_DATE_RE.exec(d);
  if (!m) throw new RangeError(`Invalid LocalDate (expected yyyy-MM-dd): ${JSON.stringify(d)}`);
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const day = Number(m[3]);
  const n = dayNumber(y, mo, day);
  // Date.UTC silently rolls 2024-02-30 into March; a round trip catches that.
  if (fromDayNumber(n) !== d) throw new RangeError(`Invalid LocalDate (no such day): ${d}`);
  return n;
}

function dayNumber(year: number, month: number, day: number): number {
  return Math.floor(Date.UTC(year, month - 1, day) / MS_PER_DAY);
}

/** The LocalDate of a day number (days since 1970-01-01). */
export function fromDayNumber(n: number): LocalDate {
  return new Date(n * MS_PER_DAY).toISOString().slice(0, 10);
}

function yearOf(n: number): number {
  return new Date(n * MS_PER_DAY).getUTCFullYear();
}

/** 0 = Sunday ... 6 = Saturday. 1970-01-01 was a Thursday. */
function weekday(n: number): number {
  return (((n + THURSDAY) % 7) + 7) % 7;
}

function isWeekdayNum(n: number): boolean {
  const w = weekday(n);
  return w !== SATURDAY && w !== SUNDAY;
}

/** The nth (1-based) given weekday of a month, e.g. the third Monday of January. */
function nthWeekday(year: number, month: number, dow: number, nth: number): number {
  const first = dayNumber(year, month, 1);
  return first + ((dow - weekday(first) + 7) % 7) + 7 * (nth - 1);
}

function lastWeekday(year: number, month: number, dow: number): number {
  const last = dayNumber(year, month + 1, 0);
  return last - ((weekday(last) - dow + 7) % 7);
}

/** Anonymous Gregorian algorithm (Meeus/Jones/Butcher) for Easter Sunday. */
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return dayNumber(year, month, day);
}

/** Fixed-date holidays falling on a weekend move to Friday (Saturday) or Monday (Sunday). */
function observed(n: number): number {
  const w = weekday(n);
  if (w === SATURDAY) return n - 1;
  if (w === SUNDAY) return n + 1;
  return n;
}

interface YearCalendar {
  holidays: LocalDate[];
  earlyCloses: LocalDate[];
  holidaySet: Set<number>;
  earlyCloseSet: Set<number>;
}

const yearCache = new Map<number, YearCalendar>();

function computeYear(year: number): YearCalendar {
  const days: number[] = [];

  const newYear = dayNumber(year, 1, 1);
  // NYSE Rule 7.2: a Saturday New Year's Day is not moved to Friday Dec 31, because that Friday
  // closes a monthly and yearly accounting period. A Sunday one still moves to Monday.
  if (weekday(newYear) === SUNDAY) days.push(newYear + 1);
  else if (weekday(newYear) !== SATURDAY) days.push(newYear);

  days.push(nthWeekday(year, 1, MONDAY, 3)); // Martin Luther King Jr. Day
  days.push(nthWeekday(year, 2, MONDAY, 3)); // Washington's Birthday
  days.push(easterSunday(year) - 2); // Good Friday
  days.push(lastWeekday(year, 5, MONDAY)); // Memorial Day
  if (year >= 2022) days.push(observed(dayNumber(year, 6, 19))); // Juneteenth, first observed 2022
  days.push(observed(dayNumber(year, 7, 4))); // Independence Day
  days.push(nthWeekday(year, 9, MONDAY, 1)); // Labor Day
  const thanksgiving = nthWeekday(year, 11, THURSDAY, 4);
  days.push(thanksgiving);
  days.push(observed(dayNumber(year, 12, 25))); // Christmas

  for (const c of SPECIAL_CLOSURES) {
    const n = toDayNumber(c.date);
    if (yearOf(n) === year) days.push(n);
  }

  const holidaySet = new Set(days);
  const closed = (n: number): boolean => !isWeekdayNum(n) || holidaySet.has(n);

  const early: number[] = [];
  // July 3 closes early only when it is an ordinary trading day in front of a weekday July 4.
  // When July 4 is a Saturday, July 3 is itself the observed holiday (2026); when July 4 is a
  // Sunday or Monday, July 3 is a weekend day, and NYSE does not shorten the preceding Friday.
  const jul3 = dayNumber(year, 7, 3);
  if (isWeekdayNum(dayNumber(year, 7, 4)) && !closed(jul3)) early.push(jul3);
  if (!closed(thanksgiving + 1)) early.push(thanksgiving + 1);
  // Christmas Eve on a Friday is the observed Christmas holiday, hence the closed() check.
  const dec24 = dayNumber(year, 12, 24);
  if (!closed(dec24)) early.push(dec24);

  const holidayNums = [...holidaySet].filter((n) => yearOf(n) === year).sort((a, b) => a - b);
  return {
    holidays: holidayNums.map(fromDayNumber),
    earlyCloses: early.sort((a, b) => a - b).map(fromDayNumber),
    holidaySet,
    earlyCloseSet: new Set(early),
  };
}

function yearCalendar(year: number): YearCalendar {
  let cal = yearCache.get(year);
  if (!cal) {
    cal = computeYear(year);
    yearCache.set(year, cal);
  }
  return cal;
}

function isTradingDayNum(n: number): boolean {
  return isWeekdayNum(n) && !yearCalendar(yearOf(n)).holidaySet.has(n);
}

// --- Time zone -------------------------------------------------------------------------------

/** DST interval [start, end) in epoch-ms for a year, per the US rules in force that year. */
function dstIntervalUtc(year: number): { start: number; end: number } {
  if (year >= 2007) {
    // Energy Policy Act 2005: second Sunday of March 02:00 EST to first Sunday of November 02:00 EDT.
    return {
      start: nthWeekday(year, 3, SUNDAY, 2) * MS_PER_DAY + 7 * MS_PER_HOUR,
      end: nthWeekday(year, 11, SUNDAY, 1) * MS_PER_DAY + 6 * MS_PER_HOUR,
    };
  }
  if (year >= 1987) {
    // 1987-2006: first Sunday of April to last Sunday of October.
    return {
      start: nthWeekday(year, 4, SUNDAY, 1) * MS_PER_DAY + 7 * MS_PER_HOUR,
      end: lastWeekday(year, 10, SUNDAY) * MS_PER_DAY + 6 * MS_PER_HOUR,
    };
  }
  throw new RangeError(`US DST rules before 1987 are not implemented (year ${year})`);
}

/** UTC offset of New York at an instant, in minutes (-240 in EDT, -300 in EST). */
export function nyUtcOffsetMinutes(epochMs: number): number {
  // DST never straddles a year boundary, so the UTC year of the instant picks the right rules.
  const { start, end } = dstIntervalUtc(new Date(epochMs).getUTCFullYear());
  return epochMs >= start && epochMs < end ? -240 : -300;
}

/**
 * epoch-ms of a New York wall-clock time. Times skipped by the spring-forward gap resolve one
 * hour later (02:30 -> 03:30 EDT) and repeated fall-back times resolve to the earlier (EDT)
 * instant, matching the usual "compatible" disambiguation. Market hours never hit either case.
 */
export function nyLocalToEpochMs(d: LocalDate, hh: number, mm: number): number {
  if (!Number.isInteger(hh) || hh < 0 || hh > 23) throw new RangeError(`Invalid hour: ${hh}`);
  if (!Number.isInteger(mm) || mm < 0 || mm > 59) throw new RangeError(`Invalid minute: ${mm}`);
  const wall = toDayNumber(d) * MS_PER_DAY + hh * MS_PER_HOUR + mm * 60_000;
  const asEdt = wall + 4 * MS_PER_HOUR;
  if (nyUtcOffsetMinutes(asEdt) === -240) return asEdt;
  return wall + 5 * MS_PER_HOUR;
}

/** The New York calendar date of an instant. */
export function sessionDateOf(epochMs: number): LocalDate {
  if (!Number.isFinite(epochMs)) throw new RangeError(`Invalid epoch-ms: ${epochMs}`);
  const local = epochMs + nyUtcOffsetMinutes(epochMs) * 60_000;
  return fromDayNumber(Math.floor(local / MS_PER_DAY));
}

// --- Calendar queries ------------------------------------------------------------------------

export function isTradingDay(d: LocalDate): boolean {
  return isTradingDayNum(toDayNumber(d));
}

export function isEarlyClose(d: LocalDate): boolean {
  const n = toDayNumber(d);
  return yearCalendar(yearOf(n)).earlyCloseSet.has(n);
}

/** Full-day market closures on weekdays in a year (observed dates plus special closures). */
export function holidays(year: number): LocalDate[] {
  return [...yearCalendar(checkYear(year)).holidays];
}

/** Days in a year on which the regular session ends at 13:00 New York time. */
export function earlyCloses(year: number): LocalDate[] {
  return [...yearCalendar(checkYear(year)).earlyCloses];
}

function checkYear(year: number): number {
  if (!Number.isInteger(year) || year < 1970 || year > 9999) throw new RangeError(`Invalid year: ${year}`);
  return year;
}

/** Regular-session bounds, or null when the exchange is closed all day. */
export function sessionBounds(d: LocalDate): SessionBounds | null {
  const n = toDayNumber(d);
  if (!isTradingDayNum(n)) return null;
  const closeHh = yearCalendar(yearOf(n)).earlyCloseSet.has(n) ? EARLY_CLOSE_HH : CLOSE_HH;
  return { open: nyLocalToEpochMs(d, OPEN_HH, OPEN_MM), close: nyLocalToEpochMs(d, closeHh, 0) };
}

// Longest run of consecutive non-trading days is far below this (9/11 closure + weekend = 6).
const MAX_SCAN_DAYS = 31;

function stepToTradingDay(from: number, step: 1 | -1): number {
  let n = from;
  for (let i = 0; i < MAX_SCAN_DAYS; i++) {
    n += step;
    if (isTradingDayNum(n)) return n;
  }
  throw new Error(`No trading day within ${MAX_SCAN_DAYS} days of ${fromDayNumber(from)}`);
}

/** The first trading day strictly after d (d itself need not be a trading day). */
export function nextTradingDay(d: LocalDate): LocalDate {
  return fromDayNumber(stepToTradingDay(toDayNumber(d), 1));
}

/** The last trading day strictly before d (d itself need not be a trading day). */
export function previousTradingDay(d: LocalDate): LocalDate {
  return fromDayNumber(stepToTradingDay(toDayNumber(d), -1));
}

/** Trading days in [start, end], both inclusive, ascending; empty when start > end. */
export function tradingDaysBetween(start: LocalDate, end: LocalDate): LocalDate[] {
  const out: LocalDate[] = [];
  const last = toDayNumber(end);
  for (let n = toDayNumber(start); n <= last; n++) {
    if (isTradingDayNum(n)) out.push(fromDayNumber(n));
  }
  return out;
}

/** The most recent trading day whose regular session has closed at or before nowMs. */
export function latestCompletedSession(nowMs: number): LocalDate {
  const today = sessionDateOf(nowMs);
  const bounds = sessionBounds(today);
  if (bounds && bounds.close <= nowMs) return today;
  // Today is a holiday or its session has not closed yet; any earlier session has closed.
  return previousTradingDay(today);
}

/** The trading day whose regular session [open, close) contains nowMs, else null. */
export function currentSession(nowMs: number): LocalDate | null {
  const d = sessionDateOf(nowMs);
  const bounds = sessionBounds(d);
  return bounds && nowMs >= bounds.open && nowMs < bounds.close ? d : null;
}

/**
 * Expiry instant used for days-to-expiration: 16:00 New York time on the expiration date. This
 * is deliberately the nominal PM time even on early-close days, so DTE stays a pure function of
 * the date.
 */
export function optionExpiryMs(expirationDate: LocalDate): number {
  return nyLocalToEpochMs(expirationDate, CLOSE_HH, 0);
}

/** Fractional days from nowMs to expiry; negative once the option has expired. */
export function daysToExpiration(nowMs: number, expirationDate: LocalDate): number {
  return (optionExpiryMs(expirationDate) - nowMs) / MS_PER_DAY;
}
