import { parseDateTime, parseLocalDate, parseTimeRange } from '../../api/request/time';
import { expectInvalid } from '../support/problems';

describe('date-time parsing', () => {
  it('accepts ISO 8601 date-times with a zone', () => {
    expect(parseDateTime('2024-05-01T13:30:00Z')).toBe(Date.UTC(2024, 4, 1, 13, 30));
    expect(parseDateTime('2024-05-01T09:30:00-04:00')).toBe(Date.UTC(2024, 4, 1, 13, 30));
    expect(parseDateTime('2024-05-01T13:30:00.250Z')).toBe(Date.UTC(2024, 4, 1, 13, 30, 0, 250));
  });

  it.each(['2024-05-01', '2024-05-01T13:30:00', '2024-02-30T00:00:00Z', '2024-05-01T25:00:00Z', 'yesterday', '1714570200000'])('rejects %s', (s) => {
    expect(parseDateTime(s)).toBeNull();
  });

  it('validates LocalDates', () => {
    expect(parseLocalDate('2024-02-29')).toBe('2024-02-29');
    expect(parseLocalDate('2023-02-29')).toBeNull();
    expect(parseLocalDate('2024-2-1')).toBeNull();
  });
});

describe('timeRange', () => {
  it('gives the window [startTime, endTime)', () => {
    expect(parseTimeRange({ startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' })).toEqual({
      startMs: Date.UTC(2024, 0, 1),
      endMs: Date.UTC(2024, 0, 2),
    });
  });

  it('requires both bounds', () => {
    expectInvalid(() => parseTimeRange({ startTime: '2024-01-01T00:00:00Z' }), 'timeRange.endTime', /required/);
    expectInvalid(() => parseTimeRange({ endTime: '2024-01-01T00:00:00Z' }), 'timeRange.startTime', /required/);
  });

  it('requires startTime strictly before endTime', () => {
    expectInvalid(() => parseTimeRange({ startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-01T00:00:00Z' }), 'timeRange', /strictly before/);
    expectInvalid(() => parseTimeRange({ startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-01T00:00:00Z' }), 'timeRange', /strictly before/);
  });

  it('rejects unknown fields and bad values', () => {
    expectInvalid(() => parseTimeRange({ startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z', tz: 'x' }), 'timeRange.tz');
    expectInvalid(() => parseTimeRange({ startTime: 'monday', endTime: '2024-01-02T00:00:00Z' }), 'timeRange.startTime', /ISO 8601/);
    expectInvalid(() => parseTimeRange('2024'), 'timeRange');
  });
});
