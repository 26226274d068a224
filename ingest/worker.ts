import { DelayedError, Worker, type Job } from 'bullmq';
import { loadConfig } from '../services/config';
import { createKafka, createRegistry } from '../services/kafka/clients';
import { createLogger } from '../services/log';
import { importFileOnce } from './produce/file-producer';
import { produceLive } from './produce/live-producer';
import { ProgressTracker } from './produce/progress';
import { publishReference } from './produce/reference';
import { produceSession, type IngestDeps, type Progress } from './produce/session-producer';
import { bullConnection, bullPrefix, INGEST_QUEUE, LIVE_QUEUE, type IngestJob } from './jobs/queues';
import { onStopSignal } from '../services/stop-signal';

/**
 * `npm run worker:ingest` — processes ingest jobs from the Redis queues. Every job is safe to run
 * more than once (a retry after a crash, or the same backfill enqueued twice): what it produces is
 * committed in Kafka transactions together with its progress, and a run resumes after the last
 * committed chunk. Run as many workers as you like; two workers on one session fence each other.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('ingest-worker', config.logLevel);
  const kafka = createKafka(config, 'mdq-ingest-worker', log);
  const registry = createRegistry(config);
  const progress = new ProgressTracker(kafka, registry, config.topicPrefix);
  await progress.start();
  const deps: IngestDeps = { config, kafka, registry, topicPrefix: config.topicPrefix, progress, log };
  const abort = new AbortController();

  const run = async (job: Job, token?: string): Promise<unknown> => {
    try {
      return await runJob(job);
    } catch (err) {
      // A job interrupted by this worker's shutdown is not a failure: it goes back to the queue
      // (resuming after its last committed chunk) without using up one of its attempts.
      if (abort.signal.aborted && token) {
        await job.moveToDelayed(Date.now() + 1_000, token);
        throw new DelayedError();
      }
      throw err;
    }
  };

  const runJob = async (job: Job): Promise<unknown> => {
    const j = { name: job.name, data: job.data } as IngestJob;
    let lastReport = 0;
    // What was already committed when this attempt started (its first report): `ingest -- status`
    // times the chunks an attempt produced itself, not those an earlier run left.
    let start: { start: number; tickStart: number } | undefined;
    const report = (p: Progress) => {
      start ??= { start: p.done, tickStart: p.tickDone ?? 0 };
      // Progress goes to Redis at most every 250 ms; the CLI draws its bar from it.
      if (Date.now() - lastReport < 250 && p.done < p.total) return;
      lastReport = Date.now();
      void job.updateProgress({ done: p.done, total: p.total, events: p.events, tickDone: p.tickDone, ...start });
    };
    const started = Date.now();
    log.info({ job: job.id, name: j.name, data: j.data, attempt: job.attemptsMade + 1 }, 'job started');
    let result: unknown;
    switch (j.name) {
      case 'reference':
        result = await publishReference(deps);
        break;
      case 'backfill-session':
        result = { ...(await produceSession(deps, j.data, report, abort.signal)), ...start };
        break;
      case 'import-file':
        result = await importFileOnce(deps, j.data.path, report);
        break;
      case 'live-session':
        result = await produceLive(deps, j.data, report, abort.signal);
        break;
      default:
        throw new Error(`unknown ingest job ${job.name}`);
    }
    log.info({ job: job.id, name: j.name, ms: Date.now() - started }, 'job done');
    return result;
  };

  // A job whose worker died is handed to another worker once its lock expires.
  const lockDuration = Number(process.env.MDQ_JOB_LOCK_MS ?? 30_000);
  const opts = { connection: bullConnection(config), prefix: bullPrefix(config), lockDuration, stalledInterval: lockDuration };
  const workers = [
    new Worker(INGEST_QUEUE, run, { ...opts, concurrency: Number(process.env.MDQ_INGEST_CONCURRENCY ?? 1) }),
    new Worker(LIVE_QUEUE, run, { ...opts, concurrency: 4 }),
  ];
  for (const w of workers)
    w.on('failed', (job, err) => log.warn({ job: job?.id, name: job?.name, err: err.message }, 'job failed (will retry if attempts remain)'));
  log.info('ingest worker ready');

  // Closing waits for running jobs (aborted below) and Redis: bounded by onStopSignal's grace.
  await new Promise<void>((resolve) => onStopSignal(() => resolve()));
  abort.abort();
  await Promise.all(workers.map((w) => w.close()));
  await progress.stop();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
