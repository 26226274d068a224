import { Queue } from 'bullmq';
import { topicFor, topicName } from '../../schemas/catalog';
import { createKafka } from '../../services/kafka/clients';
import { historyKey, type HistoryRecord } from '../../ingest/jobs/history';
import { INGEST_QUEUE, LIVE_QUEUE, openQueue } from '../../ingest/jobs/queues';
import { PROFILES } from '../../ingest/simulator/profiles';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { loadUniverse } from '../../services/domain/universe';
import { testConfig, waitFor } from '../support/env';
import { readCommitted } from '../support/kafka-count';
import { configEnv, spawnTs, provisionTestTopics } from '../support/pipeline';
import { generatedCounts, marketTopics as marketTopicsOf, type SessionPart } from '../support/generated-counts';

/**
 * Ingest through BullMQ jobs and the worker process, against the real Kafka, registry and Redis:
 * every event of a backfilled session is committed exactly once — also when the same backfill
 * runs twice and when the worker is killed in the middle of one — and a live session grows while
 * it plays.
 */
const config = testConfig('jobs');
const env = { ...configEnv(config), MDQ_JOB_LOCK_MS: '3000' };
const kafka = createKafka(config, 'mdq-test-jobs');
// The `mini` market (three symbols): three tick sessions are produced, regenerated and read back.
const market = new SimulatedMarket(42, PROFILES.mini);
const marketTopics = marketTopicsOf(config.topicPrefix);
const expected = (sessions: [string, SessionPart[]][]) => generatedCounts(market, config.topicPrefix, sessions);

async function cli(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawnTs('ingest/cli.ts', args, env);
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, out: child.output() };
}

/** `ingest -- backfill` on the test's market. */
const backfill = (...args: string[]) => cli(['backfill', ...args, '--profile', 'mini']);

async function endOffsets(): Promise<string> {
  const admin = kafka.admin();
  await admin.connect();
  const all = [];
  for (const t of marketTopics) all.push(t, ...(await admin.fetchTopicOffsets(t)).map((p) => p.high));
  await admin.disconnect();
  return all.join(',');
}

let worker = spawnTs('ingest/worker.ts', [], env);
let queue: Queue;
let live: Queue;

beforeAll(async () => {
  await provisionTestTopics(config);
  queue = openQueue(config, INGEST_QUEUE);
  live = openQueue(config, LIVE_QUEUE);
});

afterAll(async () => {
  worker.kill('SIGTERM');
  await queue.close();
  await live.close();
});

describe('ingest jobs', () => {
  it('publishes reference data once per content version', async () => {
    const first = await cli(['reference']);
    expect(first.code).toBe(0);
    const instruments = topicName(topicFor('instrument')!, config.topicPrefix);
    const calendar = topicName(topicFor('calendar-day')!, config.topicPrefix);
    const counts = await readCommitted(kafka, [instruments, calendar]);
    expect(counts[instruments]).toBe(loadUniverse().length);
    expect(counts[calendar]).toBeGreaterThan(5 * 250); // weekdays 2022 through next year
    const again = await cli(['reference']);
    expect(again.code).toBe(0);
    expect(await readCommitted(kafka, [instruments])).toEqual({ [instruments]: loadUniverse().length });
  });

  it('backfills daily and tick sessions; the same backfills again add nothing', async () => {
    const daily = await backfill('--from', '2026-11-16', '--to', '2026-11-17', '--level', 'daily');
    expect(daily.code).toBe(0);
    expect(daily.out).toMatch(/2\/2 jobs/);
    const tick = await backfill('--from', '2026-11-17', '--to', '2026-11-17', '--level', 'tick');
    expect(tick.code).toBe(0);
    const before = await endOffsets();
    const again = await backfill('--from', '2026-11-16', '--to', '2026-11-17', '--level', 'daily');
    expect(again.code).toBe(0);
    const third = await backfill('--from', '2026-11-17', '--to', '2026-11-17', '--level', 'tick');
    expect(third.code).toBe(0);
    // Not one message more on any partition of any topic.
    expect(await endOffsets()).toBe(before);
  });

  it('loses and duplicates nothing when the worker is killed in the middle of a backfill', async () => {
    const job = await queue.add('backfill-session', { seed: 42, profile: 'mini', date: '2026-11-18', level: 'tick' });
    await waitFor(
      'the backfill to be a third done',
      async () => {
        const p = (await queue.getJob(job.id!))?.progress as { done: number; total: number } | undefined;
        return p && p.done > p.total / 3;
      },
      90_000,
      50,
    );
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));
    expect(await (await queue.getJob(job.id!))!.isCompleted()).toBe(false); // killed part-way
    worker = spawnTs('ingest/worker.ts', [], env);
    await waitFor('the backfill to complete after the restart', async () => (await queue.getJob(job.id!))?.isCompleted(), 120_000, 200);
  });

  it('plays a live session (the half day after Thanksgiving): it grows while it plays, survives a worker shutdown and ends complete', async () => {
    const job = await live.add('live-session', { seed: 42, profile: 'mini', date: '2026-11-27', speed: 600 });
    const seen: number[] = [];
    await waitFor(
      'the live session to advance twice',
      async () => {
        const p = (await live.getJob(job.id!))?.progress as { done: number; total: number } | undefined;
        if (p && p.done > 0 && p.done < p.total && seen[seen.length - 1] !== p.done) seen.push(p.done);
        return seen.length >= 3;
      },
      60_000,
      100,
    );
    expect(seen[2]).toBeGreaterThan(seen[0]);
    // A worker shutdown hands the session back to the queue without spending an attempt...
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    const parked = (await live.getJob(job.id!))!;
    expect(await parked.getState()).toMatch(/delayed|waiting/);
    expect(parked.attemptsMade).toBe(0);
    // ...and the next worker resumes it after its last committed chunk.
    worker = spawnTs('ingest/worker.ts', [], env);
    await waitFor('the live session to end', async () => (await live.getJob(job.id!))?.isCompleted(), 120_000, 200);
  });

  it('history: the newest session whole, every daily tier, then the older ticks; `status` shows how far it is and the time left', async () => {
    // Enqueued while no worker runs, so the first status is deterministic.
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    const enqueued = await cli(['history', '--sessions', '3', '--tick-sessions', '2', '--through', '2026-11-13', '--profile', 'mini', '--no-wait']);
    expect(enqueued.code).toBe(0);
    const record = JSON.parse((await (await queue.client).get(historyKey(config.keyPrefix)))!) as HistoryRecord;
    expect(record.jobs.map(({ date, level, ticksLater }) => [date, level, ticksLater ?? false])).toEqual([
      ['2026-11-13', 'tick', false],
      ['2026-11-12', 'daily', true],
      ['2026-11-11', 'daily', false],
      ['2026-11-12', 'tick', false],
    ]);
    const before = await cli(['status']);
    expect(before.code).toBe(0);
    expect(before.out).toMatch(/^history: 3 sessions through 2026-11-13, the newest 2 with ticks \(seed 42, mini; enqueued .+ UTC\)$/m);
    expect(before.out).toContain(
      ['  daily tier  0/3 sessions', '  ticks       0/2 sessions', '  time left   not known yet: no job of a remaining level has produced anything'].join('\n'),
    );

    worker = spawnTs('ingest/worker.ts', [], env);
    const jobs = async () => Promise.all(record.jobs.map(async (j) => (await queue.getJob(j.id))!));
    await waitFor('the history to complete', async () => (await Promise.all((await jobs()).map((j) => j.isCompleted()))).every(Boolean), 120_000, 200);
    // One job at a time, in the order enqueued: the older session's ticks after every daily tier.
    const finished = (await jobs()).map((j) => j.finishedOn!);
    expect([...finished].sort((a, b) => a - b)).toEqual(finished);
    const after = await cli(['status']);
    expect(after.code).toBe(0);
    expect(after.out).toContain(
      ['  daily tier  3/3 sessions', '  ticks       2/2 sessions', '  time left   none: every job of this history has ended'].join('\n'),
    );
    expect(after.out).toMatch(
      /time left {3}none: every job of this history has ended \(observed: ticks [\d.]+ (s|min) a session, daily tier [\d.]+ s a session\)/,
    );
  });

  it('has committed every generated event exactly once; a session with ticks has no off-exchange sample unless its daily tier came first', async () => {
    const counts = await readCommitted(kafka, marketTopics);
    expect(counts).toEqual(
      expected([
        ['2026-11-11', ['daily']],
        ['2026-11-12', ['daily without sample', 'tick']],
        ['2026-11-13', ['daily without sample', 'tick']],
        ['2026-11-16', ['daily']],
        // Backfilled at daily level first: its daily tier (with the sample) was complete when the ticks came.
        ['2026-11-17', ['daily', 'tick']],
        ['2026-11-18', ['daily without sample', 'tick']],
        ['2026-11-27', ['daily without sample', 'tick']],
      ]),
    );
    // Beyond the tapes' prints, the equity-print topic holds the samples of the three sessions
    // whose daily tier was produced as a history session's: 135 + 168 + 149 prints.
    const equity = topicName(topicFor('equity-print')!, config.topicPrefix);
    const tapes = expected(['2026-11-12', '2026-11-13', '2026-11-17', '2026-11-18', '2026-11-27'].map((d): [string, SessionPart[]] => [d, ['tick']]));
    expect(counts[equity] - tapes[equity]).toBe(135 + 168 + 149);
  });
});
