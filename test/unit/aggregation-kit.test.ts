import { bucketKey, bucketStart, rollUp, sessionBucketStart } from '../../api/request/aggregation/buckets';
import { orderedMap, orderedMapJson, priceLevelKey, strikeKey } from '../../api/request/aggregation/ordered-map';
import { PERIODS, PERIOD_COMPATIBILITY, defaultPeriod, parseAggregationPeriod } from '../../api/request/aggregation/period';
import { parseTimeSelection, selectionSpanMs, sessionsCovered, tomorrowInNewYork } from '../../api/request/time-selectors';
import { nyLocalToEpochMs } from '../../services/domain/calendar';
import { expectInvalid } from '../support/problems';

const DAY = 86_400_000;
const ALL = ['sessionDate', 'timeRange', 'snapshotTime', 'sessionDateRange'] as const;
const range = { startTime: '2024-05-01T13:30:00Z', endTime: '2024-05-01T20:00:00Z' };

describe('time selectors', () => {
  it('parses each selector', () => {
    expect(parseTimeSelection({ sessionDate: '2024-05-01' }, ALL)).toEqual({ kind: 'session', sessionDate: '2024-05-01' });
    expect(parseTimeSelection({ timeRange: range }, ALL)).toEqual({
      kind: 'window',
      window: { startMs: Date.UTC(2024, 4, 1, 13, 30), endMs: Date.UTC(2024, 4, 1, 20) },
    });
    expect(parseTimeSelection({ snapshotTime: '2024-05-01T15:00:00Z' }, ALL)).toEqual({ kind: 'snapshot', beforeMs: Date.UTC(2024, 4, 1, 15) });
    expect(parseTimeSelection({ sessionDateRange: { startDate: '2024-04-01', endDate: '2024-04-30' } }, ALL)).toEqual({
      kind: 'sessionRange',
      startDate: '2024-04-01',
      endDate: '2024-04-30',
    });
    expect(parseTimeSelection({}, ALL)).toEqual({ kind: 'latest' });
    expect(parseTimeSelection({ sessionDate: null, timeRange: null }, ALL)).toEqual({ kind: 'latest' });
  });

  it('ignores selectors the endpoint does not accept (its schema rejects them first)', () => {
    expect(parseTimeSelection({ snapshotTime: '2024-05-01T15:00:00Z' }, ['sessionDate', 'timeRange'])).toEqual({ kind: 'latest' });
  });

  it.each([
    [{ sessionDate: '2024-05-01', timeRange: range }, 'timeRange'],
    [{ sessionDate: '2024-05-01', snapshotTime: '2024-05-01T15:00:00Z' }, 'snapshotTime'],
    [{ timeRange: range, snapshotTime: '2024-05-01T15:00:00Z' }, 'snapshotTime'],
  ])('rejects mutually exclusive selectors %#, naming the second', (body, field) => {
    expectInvalid(() => parseTimeSelection(body, ALL), field, /mutually exclusive/);
  });

  it('rejects a sessionDate that is not a date or not a trading day', () => {
    expectInvalid(() => parseTimeSelection({ sessionDate: '2024-13-01' }, ALL), 'sessionDate', /yyyy-MM-dd/);
    expectInvalid(() => parseTimeSelection({ sessionDate: 20240501 }, ALL), 'sessionDate', /yyyy-MM-dd/);
    expectInvalid(() => parseTimeSelection({ sessionDate: '2024-05-04' }, ALL), 'sessionDate', /not an NYSE trading session/); // a Saturday
    expectInvalid(() => parseTimeSelection({ sessionDate: '2024-12-25' }, ALL), 'sessionDate', /not an NYSE trading session/);
  });

  it('rejects a bad snapshotTime and a bad timeRange', () => {
    expectInvalid(() => parseTimeSelection({ snapshotTime: '2024-05-01' }, ALL), 'snapshotTime', /date-time/);
    expectInvalid(() => parseTimeSelection({ timeRange: { startTime: range.endTime, endTime: range.startTime } }, ALL), 'timeRange', /strictly before/);
  });

  it('sessionDateRange: startDate required, endDate defaults to tomorrow in New York, start <= end', () => {
    const now = Date.UTC(2024, 4, 2, 3, 0); // 23:00 on 2024-05-01 in New York
    expect(tomorrowInNewYork(now)).toBe('2024-05-02');
    expect(parseTimeSelection({ sessionDateRange: { startDate: '2024-04-01' } }, ALL, now)).toEqual({
      kind: 'sessionRange',
      startDate: '2024-04-01',
      endDate: '2024-05-02',
    });
    expectInvalid(() => parseTimeSelection({ sessionDateRange: { endDate: '2024-04-01' } }, ALL), 'sessionDateRange.startDate', /required/);
    expectInvalid(() => parseTimeSelection({ sessionDateRange: { startDate: '2024-04-02', endDate: '2024-04-01' } }, ALL), 'sessionDateRange', /not be after/);
    expectInvalid(() => parseTimeSelection({ sessionDateRange: { startDate: '2024-04-31' } }, ALL), 'sessionDateRange.startDate', /yyyy-MM-dd/);
    expectInvalid(() => parseTimeSelection({ sessionDateRange: { startDate: '2024-04-01', to: 'x' } }, ALL), 'sessionDateRange.to', /not a field/);
  });

  it('spans: a session is a day, a window its length, a range its calendar days', () => {
    expect(selectionSpanMs({ kind: 'latest' })).toBe(DAY);
    expect(selectionSpanMs({ kind: 'session', sessionDate: '2024-05-01' })).toBe(DAY);
    expect(selectionSpanMs({ kind: 'window', window: { startMs: 0, endMs: 3 * DAY } })).toBe(3 * DAY);
    expect(selectionSpanMs({ kind: 'sessionRange', startDate: '2024-05-01', endDate: '2024-05-30' })).toBe(30 * DAY);
  });

  it('covers the held sessions a selection names', () => {
    const held = ['2024-04-29', '2024-04-30', '2024-05-01', '2024-05-02'];
    expect(sessionsCovered({ kind: 'latest' }, held)).toEqual(['2024-05-02']);
    expect(sessionsCovered({ kind: 'latest' }, [])).toEqual([]);
    expect(sessionsCovered({ kind: 'session', sessionDate: '2024-04-30' }, held)).toEqual(['2024-04-30']);
    // 2024-04-30 20:00 ET .. 2024-05-01 10:00 ET touches two New York days.
    const w = { startMs: nyLocalToEpochMs('2024-04-30', 20, 0), endMs: nyLocalToEpochMs('2024-05-01', 10, 0) };
    expect(sessionsCovered({ kind: 'window', window: w }, held)).toEqual(['2024-04-30', '2024-05-01']);
    // An exclusive end at New York midnight does not reach the next day.
    expect(sessionsCovered({ kind: 'window', window: { startMs: w.startMs, endMs: nyLocalToEpochMs('2024-05-01', 0, 0) } }, held)).toEqual(['2024-04-30']);
    expect(sessionsCovered({ kind: 'sessionRange', startDate: '2024-04-30', endDate: '2024-05-01' }, held)).toEqual(['2024-04-30', '2024-05-01']);
    expect(sessionsCovered({ kind: 'snapshot', beforeMs: nyLocalToEpochMs('2024-05-01', 11, 0) }, held)).toEqual(['2024-05-01']);
    expect(sessionsCovered({ kind: 'snapshot', beforeMs: nyLocalToEpochMs('2024-05-01', 0, 0) }, held)).toEqual(['2024-04-30']);
  });
});

describe('aggregationPeriod', () => {
  it('accepts the canonical forms and the long names', () => {
    for (const [raw, name] of [
      ['1m', '1m'],
      ['5m', '5m'],
      ['15m', '15m'],
      ['30m', '30m'],
      ['1h', '1h'],
      ['1d', '1d'],
      ['ONE_MINUTE', '1m'],
      ['five_minute', '5m'],
      ['One Hour', '1h'],
    ]) {
      expect(parseAggregationPeriod(raw, DAY).name).toBe(name);
    }
    expect(parseAggregationPeriod('ONE_WEEK', 400 * DAY).name).toBe('1w');
  });

  it('defaults by span', () => {
    expect(parseAggregationPeriod(undefined, DAY).name).toBe('5m');
    expect(parseAggregationPeriod(null, 6.5 * 3_600_000).name).toBe('5m');
    expect(defaultPeriod(3 * DAY).name).toBe('30m');
    expect(defaultPeriod(30 * DAY).name).toBe('1h');
    expect(defaultPeriod(365 * DAY).name).toBe('1d');
    expect(defaultPeriod(400 * DAY).name).toBe('1w');
  });

  it('1m only for a one-day span, 1w only beyond a year', () => {
    expect(parseAggregationPeriod('1m', DAY).name).toBe('1m');
    expectInvalid(() => parseAggregationPeriod('1m', DAY + 1), 'aggregationPeriod', /does not suit a request spanning 2 days/);
    expectInvalid(() => parseAggregationPeriod('1w', 366 * DAY), 'aggregationPeriod', /use one of 1h, 1d/);
    expect(parseAggregationPeriod('1w', 367 * DAY).name).toBe('1w');
    expectInvalid(() => parseAggregationPeriod('5m', 400 * DAY), 'aggregationPeriod', /does not suit/);
  });

  it('rejects unknown periods and other types, naming aggregationPeriod', () => {
    for (const raw of ['2m', '1M', '60', '', 'ONE_MONTH', 5, true, ['1m'], {}])
      expectInvalid(() => parseAggregationPeriod(raw, DAY), 'aggregationPeriod', /must be one of/);
  });

  it('every row of the compatibility table allows its default', () => {
    for (const row of PERIOD_COMPATIBILITY) expect(row.allowed).toContain(row.default);
  });
});

describe('buckets', () => {
  const t = Date.UTC(2024, 4, 1, 14, 37, 12, 345);

  it('aligns minute and hour buckets in UTC epoch-ms', () => {
    expect(bucketStart(PERIODS['1m'], t)).toBe(Date.UTC(2024, 4, 1, 14, 37));
    expect(bucketStart(PERIODS['5m'], t)).toBe(Date.UTC(2024, 4, 1, 14, 35));
    expect(bucketStart(PERIODS['15m'], t)).toBe(Date.UTC(2024, 4, 1, 14, 30));
    expect(bucketStart(PERIODS['30m'], t)).toBe(Date.UTC(2024, 4, 1, 14, 30));
    expect(bucketStart(PERIODS['1h'], t)).toBe(Date.UTC(2024, 4, 1, 14));
    expect(bucketStart(PERIODS['1m'], Date.UTC(2024, 4, 1, 14, 37))).toBe(Date.UTC(2024, 4, 1, 14, 37));
  });

  it('1d is New York midnight of the instant’s New York date, through DST changes', () => {
    expect(bucketStart(PERIODS['1d'], t)).toBe(Date.UTC(2024, 4, 1, 4)); // EDT: midnight is 04:00Z
    expect(bucketStart(PERIODS['1d'], Date.UTC(2024, 0, 2, 3))).toBe(Date.UTC(2024, 0, 1, 5)); // 22:00 ET on Jan 1 (EST)
    // 2024-03-10 is the spring-forward Sunday; a Monday session after it starts at 04:00Z.
    expect(bucketStart(PERIODS['1d'], nyLocalToEpochMs('2024-03-11', 9, 30))).toBe(Date.UTC(2024, 2, 11, 4));
    expect(sessionBucketStart(PERIODS['1d'], '2024-05-01')).toBe(Date.UTC(2024, 4, 1, 4));
  });

  it('1w is New York midnight of the Monday of the instant’s week', () => {
    expect(bucketStart(PERIODS['1w'], t)).toBe(Date.UTC(2024, 3, 29, 4)); // Wed 2024-05-01 -> Mon 2024-04-29
    expect(bucketStart(PERIODS['1w'], nyLocalToEpochMs('2024-04-29', 0, 0))).toBe(Date.UTC(2024, 3, 29, 4));
    expect(bucketStart(PERIODS['1w'], nyLocalToEpochMs('2024-05-05', 23, 59))).toBe(Date.UTC(2024, 3, 29, 4)); // Sunday
    expect(bucketStart(PERIODS['1w'], nyLocalToEpochMs('2024-05-06', 0, 0))).toBe(Date.UTC(2024, 4, 6, 4));
    expect(sessionBucketStart(PERIODS['1w'], '2024-01-05')).toBe(Date.UTC(2024, 0, 1, 5));
  });

  it('rolls 1-minute values up into coarser buckets, ascending', () => {
    const base = Date.UTC(2024, 4, 1, 14, 0);
    const minutes: [number, number][] = [
      [base + 16 * 60_000, 5],
      [base, 1],
      [base + 4 * 60_000, 2],
      [base + 5 * 60_000, 3],
    ];
    const rolled = rollUp(
      PERIODS['5m'],
      minutes,
      () => ({ sum: 0, n: 0 }),
      (a, v) => {
        a.sum += v;
        a.n++;
      },
    );
    expect(rolled).toEqual([
      [base, { sum: 3, n: 2 }],
      [base + 5 * 60_000, { sum: 3, n: 1 }],
      [base + 15 * 60_000, { sum: 5, n: 1 }],
    ]);
    expect(bucketKey(base)).toBe(String(base));
  });
});

describe('ordered maps', () => {
  it('keeps keys in the required order through JSON', () => {
    expect(
      JSON.stringify(
        orderedMap(
          [
            ['1714572000000', 1],
            ['1714571000000', 2],
          ],
          'epochMs',
        ),
      ),
    ).toBe('{"1714571000000":2,"1714572000000":1}');
    expect(
      Object.keys(
        orderedMap(
          [
            ['2024-05-02', 1],
            ['2023-12-29', 2],
            ['2024-01-02', 3],
          ],
          'date',
        ),
      ),
    ).toEqual(['2023-12-29', '2024-01-02', '2024-05-02']);
    expect(
      Object.keys(
        orderedMap(
          [
            ['95.0', 1],
            ['100.0', 2],
            ['97.5', 3],
          ],
          'decimal',
        ),
      ),
    ).toEqual(['95.0', '97.5', '100.0']);
    expect(
      Object.keys(
        orderedMap(
          [
            ['TSLA', 1],
            ['AAPL', 2],
            ['AMD', 3],
          ],
          'text',
        ),
      ),
    ).toEqual(['AAPL', 'AMD', 'TSLA']);
  });

  it('writes a map as JSON text in the same order as orderedMap, values by the given writer', () => {
    const entries: [string, { n: number; s: string }][] = [
      ['100.00', { n: 2, s: 'b' }],
      ['95.50', { n: 1.5, s: 'a"' }],
      ['97.25', { n: -3, s: '' }],
    ];
    const text = orderedMapJson(entries, 'decimal', (v) => JSON.stringify(v));
    expect(text).toBe(JSON.stringify(orderedMap(entries, 'decimal')));
    expect(Object.keys(JSON.parse(text))).toEqual(['95.50', '97.25', '100.00']);
    expect(orderedMapJson([], 'text', String)).toBe('{}');
    expect(orderedMapJson([['a"b', 1]], 'text', String)).toBe('{"a\\"b":1}');
  });

  it('writes strikes with at least one decimal and price levels with two', () => {
    expect(strikeKey(215)).toBe('215.0');
    expect(strikeKey(212.5)).toBe('212.5');
    expect(strikeKey(0.25)).toBe('0.25');
    expect(priceLevelKey(210)).toBe('210.00');
    expect(priceLevelKey(212.5)).toBe('212.50');
  });
});
