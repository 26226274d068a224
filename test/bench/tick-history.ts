/**
 * How long `npm start`'s history takes to produce into Kafka, ingest alone (a script, not a test):
 *
 *   npm run bench:history -- [--sessions 400] [--tick-sessions 30] [--profile dev]
 *
 * Starts a private stack (free ports, a temporary folder: never the one `npm start` uses), runs
 * one ingest worker and enqueues the history as `npm start` does (`ingest -- history --no-wait`),
 * prints `ingest -- status` every 20 s (to see its estimate against the outcome), and reports when
 * the newest session, every daily tier and every tick session were in, with the events per second
 * of each level's jobs (events of the tiers they produced, over the time they ran). No projector
 * or processor runs: under `npm start` they share the cores. Stops its stack and removes its folder
 * at the end; results go to test/bench/results/tick-history.json.
 */
import { spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { parseArgs } from 'util';
import { historyKey, type HistoryRecord } from '../../ingest/jobs/history';
import { INGEST_QUEUE, openQueue } from '../../ingest/jobs/queues';
import { ProgressTracker } from '../../ingest/produce/progress';
import { streamName, tickStream } from '../../ingest/produce/session-producer';
import { TICK_SHARDS } from '../../ingest/produce/shards';
import { loadConfig } from '../../services/config';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { provisionTopicsAndSchemas } from '../../services/kafka/provision';
import { nodeArgv } from '../../services/node-args';
import { repoRoot } from '../../services/stack/paths';
import { stackDown, stackUp } from '../../services/stack/stack';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '400' },
    'tick-sessions': { type: 'string', default: '30' },
    profile: { type: 'string', default: 'dev' },
  },
});

function run(script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, nodeArgv(script, args), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function output(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = run(script, args, env);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} exited with ${code}: ${out}`);
  return out;
}

const stamp = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(0).padStart(5)} s`;

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-bench-history-'));
  const stackOpts = { dataDir, freePorts: true, env: {}, log: (m: string) => console.log(`[stack] ${m}`) };
  let worker: ChildProcess | undefined;
  try {
    const stackEnv = await stackUp(stackOpts);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...stackEnv, MDQ_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const config = loadConfig(env);
    await provisionTopicsAndSchemas(config);
    worker = run('ingest/worker.ts', [], env);
    worker.stderr!.on('data', (d) => process.stderr.write(`[worker] ${d}`));

    const t0 = Date.now();
    await output(
      'ingest/cli.ts',
      ['history', '--no-wait', '--sessions', values.sessions!, '--tick-sessions', values['tick-sessions']!, '--profile', values.profile!],
      env,
    );
    const queue = openQueue(config, INGEST_QUEUE);
    const record = JSON.parse((await (await queue.client).get(historyKey(config.keyPrefix)))!) as HistoryRecord;
    const milestones: Record<string, number> = {};
    const statusLog: { seconds: number; lines: string[] }[] = [];
    let lastStatus = 0;
    for (;;) {
      const jobs = await Promise.all(record.jobs.map(async (j) => ({ planned: j, job: (await queue.getJob(j.id))! })));
      const done = await Promise.all(jobs.map(({ job }) => job.isCompleted()));
      const s = (Date.now() - t0) / 1000;
      if (done[0] && milestones.newestSession === undefined) milestones.newestSession = s;
      if (jobs.every((j, i) => j.planned.level === 'tick' || done[i]) && milestones.dailyTiers === undefined) milestones.dailyTiers = s;
      if (done.every(Boolean)) {
        milestones.all = s;
        break;
      }
      if (Date.now() - lastStatus >= 20_000) {
        lastStatus = Date.now();
        const lines = (await output('ingest/cli.ts', ['status'], env)).split('\n').filter((l) => /^(history| {2}(daily|ticks|time))/.test(l));
        statusLog.push({ seconds: Math.round(s), lines });
        console.log(`${stamp(t0)} ${lines.slice(1).join(' |')}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const jobs = await Promise.all(record.jobs.map(async (j) => ({ planned: j, job: (await queue.getJob(j.id))! })));
    await queue.close();

    // Events per tier from the progress topic (each stream's record carries its running total).
    const kafka = createKafka(config, 'mdq-bench-history');
    const progress = new ProgressTracker(kafka, createRegistry(config), config.topicPrefix);
    await progress.start();
    await progress.caughtUp();
    const r = { seed: 42, profile: values.profile! };
    const level = (l: 'daily' | 'tick') => {
      const mine = jobs.filter((j) => j.planned.level === l);
      const ms = mine.reduce((a, { job }) => a + (job.finishedOn! - job.processedOn!), 0);
      let events = 0;
      for (const { planned } of mine) {
        if (l === 'daily') events += progress.peek(streamName({ ...r, date: planned.date }, 'daily'))?.events ?? 0;
        else for (let k = 0; k < TICK_SHARDS; k++) events += progress.peek(tickStream({ ...r, date: planned.date }, k))?.events ?? 0;
      }
      return { sessions: mine.length, jobSeconds: ms / 1000, events, eventsPerSecond: Math.round(events / (ms / 1000)) };
    };
    const ticks = level('tick');
    const daily = level('daily');
    // The newest session's job also produced its daily tier, beside the ticks.
    const newestDaily = progress.peek(streamName({ ...r, date: record.jobs[0].date }, 'daily'))?.events ?? 0;
    await progress.stop();
    const results = {
      measuredAt: new Date().toISOString(),
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average at the end ${os.loadavg()[0].toFixed(2)}`,
      profile: values.profile,
      sessions: record.sessions,
      tickSessions: record.tickSessions,
      secondsUntil: milestones,
      tickJobs: { ...ticks, minutes: Math.round((ticks.jobSeconds / 60) * 10) / 10, newestSessionDailyEvents: newestDaily },
      dailyJobs: daily,
      statusLog,
    };
    console.log(JSON.stringify({ ...results, statusLog: undefined }, null, 2));
    const out = path.join(__dirname, 'results', 'tick-history.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
    console.log(`written to ${path.relative(process.cwd(), out)}`);
  } finally {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((r) => worker!.once('exit', r));
    }
    await stackDown(stackOpts);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
