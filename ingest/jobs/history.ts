import type { Level } from '../produce/session-producer';
import { TICK_SHARDS } from '../produce/shards';
import { sessionChunkCount } from '../simulator/session';

/**
 * `ingest -- history`: the order its sessions are enqueued in, the record of the latest run it
 * keeps in Redis, and the summary `ingest -- status` draws from that record and the run's jobs.
 */

export interface PlannedSession {
  date: string;
  level: Level;
  /** a daily-level job whose session gets its ticks later in the run (no off-exchange sample) */
  ticksLater?: boolean;
}

/**
 * The jobs of a history of `days` (newest first) whose newest `tickSessions` have ticks: the
 * newest session whole, then the daily tier of every other session, newest first, then the older
 * tick sessions' ticks, newest first. A daily tier takes a fraction of a second and a tick session
 * minutes, so the look-backs (IV rank, open interest over time, dark-pool levels) have their whole
 * range soon after a start while the older sessions' ticks arrive in the background.
 */
export function historyPlan(days: readonly string[], tickSessions: number): PlannedSession[] {
  const k = Math.max(0, Math.min(Math.floor(tickSessions), days.length));
  if (k === 0) return days.map((date) => ({ date, level: 'daily' }));
  return [
    { date: days[0], level: 'tick' },
    ...days.slice(1).map((date, i): PlannedSession => (i + 1 < k ? { date, level: 'daily', ticksLater: true } : { date, level: 'daily' })),
    ...days.slice(1, k).map((date): PlannedSession => ({ date, level: 'tick' })),
  ];
}

/** The latest `history` run: what was asked and the ids of its session jobs. */
export interface HistoryRecord {
  seed: number;
  profile: string;
  through: string;
  sessions: number;
  tickSessions: number;
  enqueuedAt: number;
  jobs: (PlannedSession & { id: string })[];
}

/** The Redis key (REDIS_URL, beside the queues) of the latest history run's record. */
export function historyKey(keyPrefix: string): string {
  return `${keyPrefix}:ingest:history`;
}

/** A job's progress as the worker reports it (and returns it when done). */
export interface JobProgress {
  done: number;
  total: number;
  /** chunks of the tick tier among `done` */
  tickDone?: number;
  /** `done` and `tickDone` when the job's latest attempt started */
  start?: number;
  tickStart?: number;
}

export interface JobSnapshot {
  /** `waiting` covers waiting, delayed (a retry's back-off) and prioritized; `missing`: removed from the queue */
  state: 'completed' | 'failed' | 'active' | 'waiting' | 'missing';
  processedOn?: number;
  finishedOn?: number;
  progress?: JobProgress;
}

export interface HistorySummary {
  /** sessions whose daily tier is in, of the history's sessions */
  daily: { done: number; total: number };
  /** sessions whose tick tier is in, of those with ticks */
  ticks: { done: number; total: number };
  failed: number;
  missing: number;
  /** seconds until the remaining jobs are done at the observed rates; null while a rate is unknown */
  secondsLeft: number | null;
  /** observed seconds per session of each tier's work; null before a job of that level produced */
  secondsPerSession: { daily: number | null; tick: number | null };
}

/**
 * Counts what is in and estimates the time left. Rates are measured per level over the chunks the
 * run's jobs produced themselves (a job that finds its session already in produces none) in the
 * time they ran, the daily tier's chunks for daily-level jobs and the tick tier's for tick-level
 * jobs (whose daily tier, produced beside the ticks, costs little). The remaining work is the
 * chunks not yet produced by the jobs not yet done; jobs run one after another (the worker's
 * default concurrency), so the time left is the sum over the levels.
 */
export function summarizeHistory(record: HistoryRecord, jobs: readonly JobSnapshot[], now: number): HistorySummary {
  const dates = new Set<string>();
  const tickDates = new Set<string>();
  const dailyIn = new Set<string>();
  let ticksIn = 0;
  let failed = 0;
  let missing = 0;
  // perSession: chunks of the level's planned sessions, to state a rate per (average) session.
  const work = { daily: { units: 0, ms: 0, left: 0, chunks: 0, sessions: 0 }, tick: { units: 0, ms: 0, left: 0, chunks: 0, sessions: 0 } };
  record.jobs.forEach((planned, i) => {
    const job = jobs[i] ?? { state: 'missing' };
    dates.add(planned.date);
    const chunks = sessionChunkCount(planned.date);
    const w = work[planned.level];
    const perSession = planned.level === 'tick' ? TICK_SHARDS * chunks : chunks;
    w.chunks += perSession;
    w.sessions++;
    if (planned.level === 'tick') tickDates.add(planned.date);
    if (job.state === 'completed') {
      dailyIn.add(planned.date); // a tick-level job holds its session's daily tier too
      if (planned.level === 'tick') ticksIn++;
    }
    if (job.state === 'failed') failed++;
    if (job.state === 'missing') missing++;
    const p = job.progress;
    const done = planned.level === 'tick' ? (p?.tickDone ?? 0) : (p?.done ?? 0);
    const start = planned.level === 'tick' ? (p?.tickStart ?? 0) : (p?.start ?? 0);
    if (job.state === 'waiting' || job.state === 'active') w.left += Math.max(0, perSession - (job.state === 'active' ? done : 0));
    const until = job.state === 'completed' ? job.finishedOn : job.state === 'active' ? now : undefined;
    if (until !== undefined && job.processedOn !== undefined && done > start) {
      w.units += done - start;
      w.ms += Math.max(0, until - job.processedOn);
    }
  });
  const rate = (w: typeof work.daily) => (w.units > 0 && w.ms > 0 ? w.units / w.ms : null);
  let secondsLeft: number | null = 0;
  for (const w of [work.daily, work.tick]) {
    if (!w.left) continue;
    const r = rate(w);
    secondsLeft = r === null || secondsLeft === null ? null : secondsLeft + w.left / r / 1000;
  }
  const perSession = (w: typeof work.daily) => {
    const r = rate(w);
    return r === null ? null : w.chunks / w.sessions / r / 1000;
  };
  return {
    daily: { done: dailyIn.size, total: dates.size },
    ticks: { done: ticksIn, total: tickDates.size },
    failed,
    missing,
    secondsLeft,
    secondsPerSession: { daily: perSession(work.daily), tick: perSession(work.tick) },
  };
}

/** "~40 s", "~14 min", "~2 h 05 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 90) return `~${Math.max(1, Math.round(seconds))} s`;
  const min = Math.round(seconds / 60);
  if (min < 90) return `~${min} min`;
  return `~${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

const perSessionText = (s: number) => (s < 10 ? `${s.toFixed(2)} s` : formatDuration(s).slice(1));

/** The lines `ingest -- status` prints for the latest history run. */
export function formatHistory(record: HistoryRecord, s: HistorySummary): string[] {
  const at = new Date(record.enqueuedAt)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const lines = [
    `history: ${record.sessions} sessions through ${record.through}, the newest ${s.ticks.total} with ticks (seed ${record.seed}, ${record.profile}; enqueued ${at})`,
    `  daily tier  ${s.daily.done}/${s.daily.total} sessions`,
    `  ticks       ${s.ticks.done}/${s.ticks.total} sessions`,
  ];
  if (s.failed) lines.push(`  failed      ${s.failed} job(s), not retried any more (below)`);
  if (s.missing) lines.push(`  unknown     ${s.missing} job(s) no longer in the queue`);
  const rates = [
    s.secondsPerSession.tick !== null ? `ticks ${perSessionText(s.secondsPerSession.tick)} a session` : '',
    s.secondsPerSession.daily !== null ? `daily tier ${perSessionText(s.secondsPerSession.daily)} a session` : '',
  ].filter(Boolean);
  const observed = rates.length ? ` (observed: ${rates.join(', ')})` : '';
  if (s.secondsLeft === 0) lines.push(`  time left   none: every job of this history has ended${observed}`);
  else if (s.secondsLeft === null) lines.push(`  time left   not known yet: no job of a remaining level has produced anything${observed}`);
  else lines.push(`  time left   ${formatDuration(s.secondsLeft)}${observed}`);
  return lines;
}
