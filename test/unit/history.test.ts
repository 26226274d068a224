import { formatDuration, formatHistory, historyPlan, summarizeHistory, type HistoryRecord, type JobSnapshot } from '../../ingest/jobs/history';
import { sessionChunkCount } from '../../ingest/simulator/session';

/** `ingest -- history`'s order of jobs and `ingest -- status`'s counts and time left (pure logic). */

const DAYS = ['2026-11-19', '2026-11-18', '2026-11-17', '2026-11-16'];
const C = sessionChunkCount('2026-11-19'); // 4,682: every day here is a regular session

describe('history plan', () => {
  it('produces the newest session whole, then every daily tier newest first, then the older ticks', () => {
    expect(historyPlan(DAYS, 2)).toEqual([
      { date: '2026-11-19', level: 'tick' },
      { date: '2026-11-18', level: 'daily', ticksLater: true },
      { date: '2026-11-17', level: 'daily' },
      { date: '2026-11-16', level: 'daily' },
      { date: '2026-11-18', level: 'tick' },
    ]);
  });

  it('with no tick sessions is the daily tiers alone; more tick sessions than sessions are all of them', () => {
    expect(historyPlan(DAYS.slice(0, 2), 0)).toEqual([
      { date: '2026-11-19', level: 'daily' },
      { date: '2026-11-18', level: 'daily' },
    ]);
    expect(historyPlan(DAYS.slice(0, 2), 30)).toEqual([
      { date: '2026-11-19', level: 'tick' },
      { date: '2026-11-18', level: 'daily', ticksLater: true },
      { date: '2026-11-18', level: 'tick' },
    ]);
    expect(historyPlan(DAYS, 1).filter((p) => p.level === 'tick' || p.ticksLater)).toEqual([{ date: '2026-11-19', level: 'tick' }]);
  });
});

const record: HistoryRecord = {
  seed: 42,
  profile: 'dev',
  through: '2026-11-19',
  sessions: 4,
  tickSessions: 2,
  enqueuedAt: Date.UTC(2026, 10, 28, 7, 40, 3, 250),
  jobs: historyPlan(DAYS, 2).map((p, i) => ({ ...p, id: String(i + 2) })),
};

describe('history status', () => {
  // The newest session took 20 s for its ticks; a daily tier 0.1 s; one daily job found its
  // session already in (timed out of the rate); one runs half done; the older ticks wait.
  const jobs: JobSnapshot[] = [
    { state: 'completed', processedOn: 0, finishedOn: 20_000, progress: { done: 5 * C, total: 5 * C, tickDone: 4 * C, start: 0, tickStart: 0 } },
    { state: 'completed', processedOn: 20_000, finishedOn: 20_100, progress: { done: C, total: C, tickDone: 0, start: 0, tickStart: 0 } },
    { state: 'completed', processedOn: 20_100, finishedOn: 20_105, progress: { done: C, total: C, tickDone: 0, start: C, tickStart: 0 } },
    { state: 'active', processedOn: 20_105, progress: { done: C / 2, total: C, tickDone: 0, start: 0, tickStart: 0 } },
    { state: 'waiting' },
  ];

  it('counts the sessions in per tier and estimates the time left from the observed rates', () => {
    const s = summarizeHistory(record, jobs, 20_155);
    expect(s.daily).toEqual({ done: 3, total: 4 });
    expect(s.ticks).toEqual({ done: 1, total: 2 });
    expect(s.failed).toBe(0);
    expect(s.missing).toBe(0);
    // ticks: 4C chunks left at 4C per 20 s; daily: C/2 left at 1.5C per 150 ms.
    expect(s.secondsLeft).toBeCloseTo(20.05, 9);
    expect(s.secondsPerSession.tick).toBeCloseTo(20, 9);
    expect(s.secondsPerSession.daily).toBeCloseTo(0.1, 9);
    expect(formatHistory(record, s)).toEqual([
      'history: 4 sessions through 2026-11-19, the newest 2 with ticks (seed 42, dev; enqueued 2026-11-28 07:40:03 UTC)',
      '  daily tier  3/4 sessions',
      '  ticks       1/2 sessions',
      '  time left   ~20 s (observed: ticks 20 s a session, daily tier 0.10 s a session)',
    ]);
  });

  it('a running tick session is timed by the chunks its attempt produced', () => {
    // The second tick session resumed at a quarter (an earlier attempt) and is now at half after 5 s.
    const running: JobSnapshot[] = [
      ...jobs.slice(0, 3),
      { ...jobs[1], processedOn: 20_105, finishedOn: 20_205 },
      { state: 'active', processedOn: 30_000, progress: { done: 3 * C, total: 5 * C, tickDone: 2 * C, start: 2 * C, tickStart: C } },
    ];
    const s = summarizeHistory(record, running, 35_000);
    expect(s.daily).toEqual({ done: 4, total: 4 });
    expect(s.ticks).toEqual({ done: 1, total: 2 });
    // 5C tick chunks produced in 25 s; 2C left.
    expect(s.secondsLeft).toBeCloseTo(10, 9);
  });

  it('weighs sessions by their chunks: a half day is half the work', () => {
    // The day after Thanksgiving closes at 13:00 (2,522 chunks against 4,682).
    const half = sessionChunkCount('2026-11-27');
    expect(half).toBe(2_522);
    const r: HistoryRecord = { ...record, through: '2026-11-27', jobs: historyPlan(['2026-11-27', '2026-11-25'], 2).map((p, i) => ({ ...p, id: String(i) })) };
    const s = summarizeHistory(
      r,
      [
        { state: 'completed', processedOn: 0, finishedOn: 10_000, progress: { done: 5 * half, total: 5 * half, tickDone: 4 * half, start: 0, tickStart: 0 } },
        { state: 'completed', processedOn: 10_000, finishedOn: 10_100, progress: { done: C, total: C, tickDone: 0, start: 0, tickStart: 0 } },
        { state: 'waiting' },
      ],
      10_100,
    );
    expect(s.secondsLeft).toBeCloseTo((10 * C) / half, 9);
    // Per session: the average of the planned sessions' chunks at the observed rate.
    expect(s.secondsPerSession.tick).toBeCloseTo((10 * (half + C)) / 2 / half, 9);
  });

  it('says so when nothing has produced yet, when all is done, and counts failed and missing jobs', () => {
    const waiting = summarizeHistory(
      record,
      record.jobs.map(() => ({ state: 'waiting' })),
      0,
    );
    expect(waiting).toEqual({
      daily: { done: 0, total: 4 },
      ticks: { done: 0, total: 2 },
      failed: 0,
      missing: 0,
      secondsLeft: null,
      secondsPerSession: { daily: null, tick: null },
    });
    expect(formatHistory(record, waiting).slice(1)).toEqual([
      '  daily tier  0/4 sessions',
      '  ticks       0/2 sessions',
      '  time left   not known yet: no job of a remaining level has produced anything',
    ]);
    const ended: JobSnapshot[] = [...jobs.slice(0, 3), { state: 'failed', processedOn: 1, finishedOn: 2 }, { state: 'missing' }];
    const s = summarizeHistory(record, ended, 50_000);
    expect(s).toMatchObject({ daily: { done: 3, total: 4 }, ticks: { done: 1, total: 2 }, failed: 1, missing: 1, secondsLeft: 0 });
    expect(formatHistory(record, s).slice(3)).toEqual([
      '  failed      1 job(s), not retried any more (below)',
      '  unknown     1 job(s) no longer in the queue',
      '  time left   none: every job of this history has ended (observed: ticks 20 s a session, daily tier 0.10 s a session)',
    ]);
  });

  it('writes durations in seconds, minutes, then hours', () => {
    expect([0.2, 41.4, 89, 90, 851, 5_340, 7_510].map(formatDuration)).toEqual(['~1 s', '~41 s', '~89 s', '~2 min', '~14 min', '~89 min', '~2 h 05 min']);
  });
});
