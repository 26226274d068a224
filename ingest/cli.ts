import path from 'path';
import { parseArgs } from 'util';
import type { Queue } from 'bullmq';
import { currentSession, isTradingDay, latestCompletedSession, nextTradingDay, tradingDaysBetween } from '../services/domain/calendar';
import { loadConfig } from '../services/config';
import { createKafka, createRegistry } from '../services/kafka/clients';
import { EventProducer } from '../services/kafka/producer';
import { createLogger } from '../services/log';
import { createRedis } from '../services/redis/client';
import { followJobs } from './jobs/follow';
import { formatHistory, historyKey, historyPlan, summarizeHistory, type HistoryRecord, type JobProgress, type JobSnapshot } from './jobs/history';
import { INGEST_QUEUE, LIVE_QUEUE, openQueue } from './jobs/queues';
import { TRADING_DAYS } from './simulator/market';
import { profileNamed } from './simulator/profiles';
import { NewsFeed } from './sources/news-feed';
import { onStopSignal } from '../services/stop-signal';

const USAGE = `usage: npm run ingest -- <command> [options]

  reference                         publish the instrument universe and the NYSE calendar
  backfill --from D --to D          simulated sessions D..D (trading days), one job each
           [--level daily|tick]     daily: open interest, EOD quotes, closes, notifications, news (default)
                                    tick: everything (prices per second, quotes, option and equity prints)
  history  [--sessions 400] [--tick-sessions 30] [--through D]
                                    reference + daily data for the last N sessions + ticks for the last K
                                    (the newest session whole, then every daily tier, then older ticks)
  live     [--date D] [--speed N]   play a session as it happens (default: today's session at speed 1 when
                                    the market is open, otherwise the next session at speed 10)
  file <path.jsonl>                 import a JSONL event file (format: docs/ingest.md)
  news-live                         the simulated 24/7 background news feed
  status                            the latest history's sessions in and time left; job counts per
                                    queue, active jobs and their progress

  common: --profile dev|full|mini (dev)  --seed N (42)  --no-wait (enqueue and return)
  Jobs run in ingest workers (npm run worker:ingest); this command enqueues them and shows progress.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      level: { type: 'string', default: 'daily' },
      sessions: { type: 'string', default: '400' },
      'tick-sessions': { type: 'string', default: '30' },
      through: { type: 'string' },
      date: { type: 'string' },
      speed: { type: 'string' },
      profile: { type: 'string', default: process.env.MDQ_PROFILE ?? 'dev' },
      seed: { type: 'string', default: process.env.MDQ_SEED ?? '42' },
      'no-wait': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const [cmd, arg] = positionals;
  if (!cmd || values.help) {
    console.log(USAGE);
    return cmd ? 0 : 2;
  }
  const config = loadConfig();
  const log = createLogger('ingest', config.logLevel);
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const profile = profileNamed(values.profile!).name;
  const level = values.level;
  if (level !== 'daily' && level !== 'tick') throw new Error(`--level must be daily or tick, got ${level}`);

  if (cmd === 'news-live') return newsLive(config, log, seed);

  const queue = openQueue(config, INGEST_QUEUE);
  const live = openQueue(config, LIVE_QUEUE);
  try {
    const wait = !values['no-wait'];
    const enqueue = async (
      q: Queue,
      jobs: { name: string; data: object; jobId?: string }[],
      label: string,
      onEnqueued?: (ids: string[]) => Promise<void>,
    ): Promise<number> => {
      const added = await q.addBulk(jobs.map((j) => (j.jobId ? { name: j.name, data: j.data, opts: { jobId: j.jobId } } : { name: j.name, data: j.data })));
      await onEnqueued?.(added.map((j) => j.id!));
      console.error(`${label}: ${added.length} job(s) enqueued`);
      if (!wait) return 0;
      const r = await followJobs(
        q,
        added.map((j) => j.id!),
        label,
      );
      for (const j of r.failed) console.error(`job ${j.id} (${j.name} ${JSON.stringify(j.data)}) failed: ${j.failedReason}`);
      return r.failed.length ? 1 : 0;
    };

    if (cmd === 'status') {
      for (const line of await historyStatus(queue, config.keyPrefix)) console.log(line);
      for (const q of [queue, live]) {
        const counts = await q.getJobCounts('active', 'waiting', 'delayed', 'completed', 'failed');
        console.log(
          `${q.name}: ${Object.entries(counts)
            .map(([k, v]) => `${v} ${k}`)
            .join(', ')}`,
        );
        for (const j of await q.getJobs(['active'])) console.log(`  active ${j.name} ${JSON.stringify(j.data)} ${JSON.stringify(j.progress)}`);
        for (const j of await q.getJobs(['failed'], 0, 4)) console.log(`  failed ${j.name} ${JSON.stringify(j.data)}: ${j.failedReason}`);
      }
      return 0;
    }
    if (cmd === 'reference') return await enqueue(queue, [{ name: 'reference', data: {} }], 'reference');
    if (cmd === 'file') {
      if (!arg) throw new Error('usage: npm run ingest -- file <path.jsonl>');
      const added = await queue.add('import-file', { path: path.resolve(arg) });
      if (!wait) return 0;
      const r = await followJobs(queue, [added.id!], 'import');
      if (r.failed.length) {
        console.error(`import failed: ${r.failed[0].failedReason}`);
        return 1;
      }
      const rep = r.completed[0].returnvalue as { lines: number; produced: number; alreadyProduced: number; bad: { line: number; reason: string }[] };
      for (const b of rep.bad) console.error(`line ${b.line}: ${b.reason}`);
      console.log(`${arg}: ${rep.lines} lines, ${rep.produced} events produced, ${rep.alreadyProduced} already imported before, ${rep.bad.length} bad lines`);
      return rep.bad.length ? 1 : 0;
    }
    if (cmd === 'backfill') {
      if (!values.from || !values.to) throw new Error('backfill needs --from and --to (yyyy-MM-dd)');
      const days = tradingDaysBetween(values.from, values.to).filter((d) => TRADING_DAYS.includes(d));
      if (!days.length) throw new Error(`no simulated trading day between ${values.from} and ${values.to}`);
      return await enqueue(
        queue,
        days.reverse().map((date) => ({ name: 'backfill-session', data: { seed, profile, date, level } })),
        `backfill ${level}`,
      );
    }
    if (cmd === 'history') {
      const count = (name: 'sessions' | 'tick-sessions'): number => {
        const n = Number(values[name]);
        if (!(Number.isSafeInteger(n) && n >= 0)) throw new Error(`--${name} must be a whole number, got ${values[name]}`);
        return n;
      };
      const sessions = count('sessions');
      const ticks = count('tick-sessions');
      const through = values.through ?? latestCompletedSession(Date.now());
      const i = TRADING_DAYS.indexOf(through);
      if (i < 0) throw new Error(`--through ${through} is not a simulated trading day`);
      const days = TRADING_DAYS.slice(Math.max(0, i - sessions + 1), i + 1).reverse(); // newest first
      const plan = historyPlan(days, ticks);
      const jobs = [{ name: 'reference', data: {} }, ...plan.map((p) => ({ name: 'backfill-session', data: { seed, profile, ...p } }))];
      return await enqueue(queue, jobs, 'history', async (ids) => {
        // The run `ingest -- status` reports on (the latest; an earlier run's record is replaced).
        const record: HistoryRecord = {
          seed,
          profile,
          through,
          sessions: days.length,
          tickSessions: Math.min(ticks, days.length),
          enqueuedAt: Date.now(),
          jobs: plan.map((p, n) => ({ ...p, id: ids[n + 1] })),
        };
        await (await queue.client).set(historyKey(config.keyPrefix), JSON.stringify(record));
      });
    }
    if (cmd === 'live') {
      const now = Date.now();
      const open = currentSession(now);
      const date = values.date ?? open ?? nextTradingDay(latestCompletedSession(now));
      if (!isTradingDay(date)) throw new Error(`${date} is not a trading day`);
      const speed = Number(values.speed ?? (values.date || !open ? 10 : 1));
      // One live job per session: enqueuing it again (another `npm start`) joins the existing one,
      // unless that one failed for good, which is then replaced.
      const jobId = `live-${seed}-${profile}-${date}`;
      const old = await live.getJob(jobId);
      if (old && (await old.isFailed())) await old.remove();
      return await enqueue(live, [{ name: 'live-session', data: { seed, profile, date, speed }, jobId }], `live ${date} x${speed}`);
    }
    console.error(USAGE);
    return 2;
  } finally {
    await queue.close();
    await live.close();
  }
}

/** The latest history run's progress (ingest/jobs/history.ts), from its record and its jobs. */
async function historyStatus(queue: Queue, keyPrefix: string): Promise<string[]> {
  const raw = await (await queue.client).get(historyKey(keyPrefix));
  if (!raw) return ['history: none enqueued yet'];
  const record = JSON.parse(raw) as HistoryRecord;
  const jobs = await Promise.all(
    record.jobs.map(async ({ id }): Promise<JobSnapshot> => {
      const job = await queue.getJob(id);
      if (!job) return { state: 'missing' };
      const state = await job.getState();
      const s = state === 'completed' || state === 'failed' || state === 'active' ? state : 'waiting';
      // A finished job's progress is its return value (the worker's last report may still be in flight).
      const progress = (s === 'completed' ? job.returnvalue : job.progress) as JobProgress | undefined;
      return { state: s, processedOn: job.processedOn, finishedOn: job.finishedOn, progress: typeof progress === 'object' ? progress : undefined };
    }),
  );
  return formatHistory(record, summarizeHistory(record, jobs, Date.now()));
}

async function newsLive(config: ReturnType<typeof loadConfig>, log: ReturnType<typeof createLogger>, seed: number): Promise<number> {
  const kafka = createKafka(config, 'mdq-ingest', log);
  const producer = new EventProducer(kafka, createRegistry(config), config.topicPrefix);
  const redis = createRedis(config.redisUrl, log);
  await producer.connect();
  const feed = new NewsFeed({ producer, redis, keyPrefix: config.keyPrefix, log, seed, backfillDays: Number(process.env.MDQ_NEWS_BACKFILL_DAYS ?? 7) });
  feed.start();
  await new Promise<void>((resolve) => onStopSignal(() => resolve()));
  await feed.stop();
  await producer.disconnect();
  await redis.quit().catch(() => {});
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(process.env.MDQ_DEBUG && err instanceof Error ? err.stack : err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
