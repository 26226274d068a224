import {
  currentSession,
  daysToExpiration,
  earlyCloses,
  holidays,
  isEarlyClose,
  isTradingDay,
  latestCompletedSession,
  nextTradingDay,
  nyLocalToEpochMs,
  nyUtcOffsetMinutes,
  optionExpiryMs,
  previousTradingDay,
  sessionBounds,
  sessionDateOf,
  tradingDaysBetween,
} from '../../services/domain/calendar';

const utc = (iso: string): number => Date.parse(iso);

describe('holidays (published NYSE calendars)', () => {
  const expected: Record<number, string[]> = {
    2022: ['2022-01-17', '2022-02-21', '2022-04-15', '2022-05-30', '2022-06-20', '2022-07-04', '2022-09-05', '2022-11-24', '2022-12-26'],
    2023: ['2023-01-02', '2023-01-16', '2023-02-20', '2023-04-07', '2023-05-29', '2023-06-19', '2023-07-04', '2023-09-04', '2023-11-23', '2023-12-25'],
    2024: ['2024-01-01', '2024-01-15', '2024-02-19', '2024-03-29', '2024-05-27', '2024-06-19', '2024-07-04', '2024-09-02', '2024-11-28', '2024-12-25'],
    2025: [
      '2025-01-01',
      '2025-01-09',
      '2025-01-20',
      '2025-02-17',
      '2025-04-18',
      '2025-05-26',
      '2025-06-19',
      '2025-07-04',
      '2025-09-01',
      '2025-11-27',
      '2025-12-25',
    ],
    2026: ['2026-01-01', '2026-01-19', '2026-02-16', '2026-04-03', '2026-05-25', '2026-06-19', '2026-07-03', '2026-09-07', '2026-11-26', '2026-12-25'],
    2027: ['2027-01-01', '2027-01-18', '2027-02-15', '2027-03-26', '2027-05-31', '2027-06-18', '2027-07-05', '2027-09-06', '2027-11-25', '2027-12-24'],
    2028: ['2028-01-17', '2028-02-21', '2028-04-14', '2028-05-29', '2028-06-19', '2028-07-04', '2028-09-04', '2028-11-23', '2028-12-25'],
  };

  it.each(Object.keys(expected).map(Number))('%i', (year) => {
    expect(holidays(year)).toEqual(expected[year]);
    for (const d of expected[year]) {
      expect(isTradingDay(d)).toBe(false);
      expect(sessionBounds(d)).toBeNull();
    }
  });

  it('does not move a Saturday New Year onto the prior Friday', () => {
    expect(isTradingDay('2021-12-31')).toBe(true);
    expect(isTradingDay('2027-12-31')).toBe(true);
    expect(holidays(2021)).not.toContain('2021-12-31');
  });

  it('moves a Sunday New Year to Monday', () => {
    expect(isTradingDay('2023-01-02')).toBe(false);
    expect(isTradingDay('2023-01-03')).toBe(true);
  });

  it('has no Juneteenth before 2022', () => {
    expect(holidays(2021).some((d) => d.slice(5, 7) === '06')).toBe(false);
  });

  it('computes Good Friday from Easter for other years', () => {
    expect(holidays(2000)).toContain('2000-04-21'); // Easter 2000-04-23
    expect(holidays(2019)).toContain('2019-04-19'); // Easter 2019-04-21
    expect(holidays(2038)).toContain('2038-04-23'); // Easter 2038-04-25, the latest possible
    expect(holidays(2285)).toContain('2285-03-20'); // Easter 2285-03-22, the earliest possible
  });

  it('includes listed special closures', () => {
    expect(holidays(2018)).toContain('2018-12-05');
    expect(holidays(2012)).toEqual(expect.arrayContaining(['2012-10-29', '2012-10-30']));
  });

  it('counts trading days per year', () => {
    expect(tradingDaysBetween('2022-01-01', '2022-12-31')).toHaveLength(251);
    expect(tradingDaysBetween('2023-01-01', '2023-12-31')).toHaveLength(250);
    expect(tradingDaysBetween('2024-01-01', '2024-12-31')).toHaveLength(252);
    expect(tradingDaysBetween('2025-01-01', '2025-12-31')).toHaveLength(250);
  });
});

describe('early closes', () => {
  it.each([
    [2022, ['2022-11-25']],
    [2023, ['2023-07-03', '2023-11-24']],
    [2024, ['2024-07-03', '2024-11-29', '2024-12-24']],
    [2025, ['2025-07-03', '2025-11-28', '2025-12-24']],
    [2026, ['2026-11-27', '2026-12-24']],
    [2027, ['2027-11-26']],
    [2028, ['2028-07-03', '2028-11-24']],
  ])('%i', (year, expected) => {
    expect(earlyCloses(year)).toEqual(expected);
    for (const d of expected) {
      expect(isEarlyClose(d)).toBe(true);
      expect(isTradingDay(d)).toBe(true);
    }
  });

  it('is not an early close on an ordinary day', () => {
    expect(isEarlyClose('2024-07-02')).toBe(false);
    expect(isEarlyClose('2026-07-02')).toBe(false);
  });
});

describe('sessionBounds', () => {
  it('uses EST before the March DST change and EDT after it', () => {
    expect(sessionBounds('2024-03-08')).toEqual({ open: utc('2024-03-08T14:30:00Z'), close: utc('2024-03-08T21:00:00Z') });
    expect(sessionBounds('2024-03-11')).toEqual({ open: utc('2024-03-11T13:30:00Z'), close: utc('2024-03-11T20:00:00Z') });
  });

  it('switches back after the November DST change', () => {
    expect(sessionBounds('2024-11-01')?.open).toBe(utc('2024-11-01T13:30:00Z'));
    expect(sessionBounds('2024-11-04')?.open).toBe(utc('2024-11-04T14:30:00Z'));
  });

  it('closes at 13:00 New York time on early-close days', () => {
    expect(sessionBounds('2024-11-29')).toEqual({ open: utc('2024-11-29T14:30:00Z'), close: utc('2024-11-29T18:00:00Z') });
    expect(sessionBounds('2024-07-03')?.close).toBe(utc('2024-07-03T17:00:00Z'));
    expect(sessionBounds('2025-12-24')?.close).toBe(utc('2025-12-24T18:00:00Z'));
  });

  it('is null on weekends and holidays', () => {
    expect(sessionBounds('2024-03-09')).toBeNull();
    expect(sessionBounds('2024-03-10')).toBeNull();
    expect(sessionBounds('2025-01-09')).toBeNull();
    expect(isTradingDay('2024-03-09')).toBe(false);
    expect(isTradingDay('2024-03-11')).toBe(true);
  });

  it('rejects malformed dates', () => {
    expect(() => sessionBounds('2024-02-30')).toThrow(RangeError);
    expect(() => isTradingDay('2024-2-3')).toThrow(RangeError);
    expect(() => isTradingDay('')).toThrow(RangeError);
  });
});

describe('navigation', () => {
  it('nextTradingDay skips weekends and holidays', () => {
    expect(nextTradingDay('2024-11-27')).toBe('2024-11-29');
    expect(nextTradingDay('2024-08-30')).toBe('2024-09-03');
    expect(nextTradingDay('2024-03-09')).toBe('2024-03-11');
    expect(nextTradingDay('2025-01-08')).toBe('2025-01-10');
    expect(nextTradingDay('2026-07-02')).toBe('2026-07-06');
  });

  it('previousTradingDay skips weekends and holidays', () => {
    expect(previousTradingDay('2025-01-10')).toBe('2025-01-08');
    expect(previousTradingDay('2024-01-02')).toBe('2023-12-29');
    expect(previousTradingDay('2025-04-21')).toBe('2025-04-17');
    expect(previousTradingDay('2001-09-17')).toBe('2001-09-10');
  });

  it('tradingDaysBetween is inclusive at both ends', () => {
    expect(tradingDaysBetween('2024-12-20', '2025-01-03')).toEqual([
      '2024-12-20',
      '2024-12-23',
      '2024-12-24',
      '2024-12-26',
      '2024-12-27',
      '2024-12-30',
      '2024-12-31',
      '2025-01-02',
      '2025-01-03',
    ]);
    expect(tradingDaysBetween('2024-03-11', '2024-03-11')).toEqual(['2024-03-11']);
    expect(tradingDaysBetween('2024-03-09', '2024-03-10')).toEqual([]);
    expect(tradingDaysBetween('2024-03-12', '2024-03-11')).toEqual([]);
  });
});

describe('instants', () => {
  it('sessionDateOf gives the New York calendar date', () => {
    expect(sessionDateOf(utc('2024-01-01T04:59:59.999Z'))).toBe('2023-12-31');
    expect(sessionDateOf(utc('2024-01-01T05:00:00Z'))).toBe('2024-01-01');
    expect(sessionDateOf(utc('2024-07-01T03:59:59.999Z'))).toBe('2024-06-30');
    expect(sessionDateOf(utc('2024-07-01T04:00:00Z'))).toBe('2024-07-01');
  });

  it('nyLocalToEpochMs resolves DST gaps forward and overlaps to the earlier instant', () => {
    expect(nyLocalToEpochMs('2024-03-10', 1, 59)).toBe(utc('2024-03-10T06:59:00Z'));
    expect(nyLocalToEpochMs('2024-03-10', 2, 30)).toBe(utc('2024-03-10T07:30:00Z'));
    expect(nyLocalToEpochMs('2024-03-10', 3, 0)).toBe(utc('2024-03-10T07:00:00Z'));
    expect(nyLocalToEpochMs('2024-11-03', 1, 30)).toBe(utc('2024-11-03T05:30:00Z'));
    expect(nyLocalToEpochMs('2024-11-03', 2, 0)).toBe(utc('2024-11-03T07:00:00Z'));
    expect(() => nyLocalToEpochMs('2024-11-03', 24, 0)).toThrow(RangeError);
    expect(() => nyLocalToEpochMs('2024-11-03', 9, 60)).toThrow(RangeError);
  });

  it('agrees with the ICU America/New_York zone (both US DST rule sets)', () => {
    const fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    const mismatches: string[] = [];
    const check = (t: number): void => {
      const p = Object.fromEntries(fmt.formatToParts(t).map((x) => [x.type, x.value]));
      const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute);
      if ((wall - t) / 60_000 !== nyUtcOffsetMinutes(t)) mismatches.push(new Date(t).toISOString());
      if (sessionDateOf(t) !== `${p.year}-${p.month}-${p.day}`) mismatches.push(`date ${new Date(t).toISOString()}`);
    };
    // Every hour of 2024, then either side of the 06:00/07:00 UTC switch times on every day
    // from 1990 (pre-2007 rules) to 2035.
    for (let t = utc('2024-01-01T00:00:00Z'); t < utc('2025-01-01T00:00:00Z'); t += 3_600_000) check(t);
    for (let t = utc('1990-01-01T05:30:00Z'); t < utc('2036-01-01T00:00:00Z'); t += 86_400_000) {
      check(t);
      check(t + 3_600_000);
      check(t + 2 * 3_600_000);
    }
    expect(mismatches).toEqual([]);
  });
});

describe('latestCompletedSession', () => {
  it('is the previous session until the close, then today', () => {
    expect(latestCompletedSession(utc('2024-07-02T19:59:59.999Z'))).toBe('2024-07-01');
    expect(latestCompletedSession(utc('2024-07-02T20:00:00Z'))).toBe('2024-07-02');
    expect(latestCompletedSession(utc('2024-07-03T03:00:00Z'))).toBe('2024-07-02'); // 23:00 NY
  });

  it('honours early closes', () => {
    expect(latestCompletedSession(utc('2024-11-29T17:59:59Z'))).toBe('2024-11-27');
    expect(latestCompletedSession(utc('2024-11-29T18:00:00Z'))).toBe('2024-11-29');
  });

  it('looks back across weekends and holidays', () => {
    expect(latestCompletedSession(utc('2024-09-02T18:00:00Z'))).toBe('2024-08-30'); // Labor Day
    expect(latestCompletedSession(utc('2024-09-03T13:00:00Z'))).toBe('2024-08-30'); // Tue pre-open
    expect(latestCompletedSession(utc('2025-04-21T12:00:00Z'))).toBe('2025-04-17'); // after Good Friday
    expect(latestCompletedSession(utc('2025-01-09T21:30:00Z'))).toBe('2025-01-08'); // Carter closure
    expect(latestCompletedSession(utc('2024-03-10T12:00:00Z'))).toBe('2024-03-08'); // Sunday
  });
});

describe('currentSession', () => {
  it('contains [open, close)', () => {
    expect(currentSession(utc('2024-03-11T13:29:59Z'))).toBeNull();
    expect(currentSession(utc('2024-03-11T13:30:00Z'))).toBe('2024-03-11');
    expect(currentSession(utc('2024-03-11T19:59:59Z'))).toBe('2024-03-11');
    expect(currentSession(utc('2024-03-11T20:00:00Z'))).toBeNull();
    expect(currentSession(utc('2024-03-08T20:30:00Z'))).toBe('2024-03-08'); // 15:30 EST
    expect(currentSession(utc('2024-11-29T18:30:00Z'))).toBeNull(); // after the early close
  });

  it('is null on weekends and holidays', () => {
    expect(currentSession(utc('2024-03-09T15:00:00Z'))).toBeNull();
    expect(currentSession(utc('2025-01-09T15:00:00Z'))).toBeNull();
  });
});

describe('option expiry', () => {
  it('expires at 16:00 New York time', () => {
    expect(optionExpiryMs('2024-12-20')).toBe(utc('2024-12-20T21:00:00Z'));
    expect(optionExpiryMs('2024-06-21')).toBe(utc('2024-06-21T20:00:00Z'));
    // Nominal 16:00 even on an early-close day.
    expect(optionExpiryMs('2024-11-29')).toBe(utc('2024-11-29T21:00:00Z'));
  });

  it('daysToExpiration is fractional and signed', () => {
    expect(daysToExpiration(utc('2024-12-19T21:00:00Z'), '2024-12-20')).toBe(1);
    expect(daysToExpiration(utc('2024-12-20T09:00:00Z'), '2024-12-20')).toBeCloseTo(0.5, 12);
    expect(daysToExpiration(utc('2024-12-20T21:00:00Z'), '2024-12-20')).toBe(0);
    expect(daysToExpiration(utc('2024-12-21T21:00:00Z'), '2024-12-20')).toBe(-1);
    // Across spring-forward the calendar week is an hour short.
    expect(daysToExpiration(utc('2024-03-08T21:00:00Z'), '2024-03-15')).toBeCloseTo(7 - 1 / 24, 12);
  });
});
