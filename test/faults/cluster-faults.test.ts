import fs from 'fs';
import calculateSlot from 'cluster-key-slot';
import { Kafka, logLevel } from 'kafkajs';
import { createKafka } from '../../services/kafka/clients';
import { isCluster } from '../../services/redis/client';
import { isAlive } from '../../services/stack/process';
import { stackDaemonPids } from '../support/stack-daemons';
import { stackUp } from '../../services/stack/stack';
import { PartitionKeys } from '../../services/views/keys';
import { expectEqual } from '../support/expect-equal';
import { writeFaultResults } from '../support/fault-results';
import { testConfig, waitFor } from '../support/env';
import { startApi, UNLIMITED } from '../support/http';
import { logEndAdmin, readCommitted } from '../support/kafka-count';
import { generatedCounts, marketTopics, type SessionPart } from '../support/generated-counts';
import { topicFor, topicName } from '../../schemas/catalog';
import { PROFILES } from '../../ingest/simulator/profiles';
import { SimulatedMarket } from '../../ingest/simulator/session';
import {
  TestPipeline,
  appliedCount,
  cleanNewsBuild,
  configEnv,
  openPipeline,
  provisionTestTopics,
  snapshotView,
  spawnTs,
  syntheticArticles,
} from '../support/pipeline';

/**
 * The fault suite (`npm run faults`): on the cluster profile of the test stack, each scenario
 * injects a fault, lets the system recover, and ends by comparing the view with a clean rebuild
 * from the topics and the topics with what was produced. Figures go to
 * test/bench/results/faults.json and docs/reliability.md.
 */

const STACK_DIR = process.env.MDQ_TEST_STACK_DIR ?? '';
const results: Record<string, unknown> = {};
const KILLS = Number(process.env.MDQ_FAULT_PROJECTOR_KILLS ?? 50);

beforeAll(() => {
  if (process.env.MDQ_STACK_PROFILE !== 'cluster') throw new Error('the fault suite runs on the cluster profile: npm run faults');
});

afterAll(() => writeFaultResults(results));

/** The pid of a stack component's daemon (`kafka-2`, `redis-4`), from its pid file. */
function daemonPid(component: string): number {
  const pid = stackDaemonPids(STACK_DIR, component).find((d) => d.component === component)?.pid;
  if (pid === undefined || !isAlive(pid)) throw new Error(`${component} is not running`);
  return pid;
}

async function killAndWait(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await waitFor(`pid ${pid} to exit`, async () => !isAlive(pid), 10_000, 50);
}

/** Starts what is down again (the stack's start is per node) and waits until every node is ready. */
async function restartStack(): Promise<number> {
  const t0 = Date.now();
  await stackUp({ dataDir: STACK_DIR, profile: 'cluster', freePorts: true, dieWithParent: true, env: {} });
  return Date.now() - t0;
}

const appliedMessages = (p: TestPipeline, keyPrefix: string) => appliedCount(p.redis, keyPrefix, 'news', 1, p.newsTopic);
const cleanBuild = (p: TestPipeline, keyPrefix: string) => cleanNewsBuild(p, keyPrefix, 300_000);

it(`a projector SIGKILLed at ${KILLS} random points of a replay ends equal, key for key, to a clean build`, async () => {
  const cfg = testConfig('fault-projector');
  const p = await openPipeline(cfg);
  try {
    const total = 30_000;
    const articles = syntheticArticles(total);
    for (let i = 0; i < total; i += 5_000) await p.producer.send(p.newsSpec, articles.slice(i, i + 5_000) as never);
    // Chunks of 200 applied one partition at a time: a kill lands at most a chunk past its point.
    const env = { ...configEnv(cfg), MDQ_PROJECTOR_CHUNK: '200', MDQ_PROJECTOR_CONCURRENCY: '1' };
    // One kill point in each of KILLS equal strata of the replay, in the first half of its
    // stratum, so a restarted projector always has a point ahead to pass.
    const stratum = total / KILLS;
    const targets = Array.from({ length: KILLS }, (_, k) => Math.floor(k * stratum + 1 + Math.random() * (stratum / 2)));
    const points: number[] = [];
    const t0 = Date.now();
    for (const target of targets) {
      const before = await appliedMessages(p, cfg.keyPrefix);
      if (before >= total) break;
      // Each restart applies at least one chunk before its kill, even when its point was passed.
      const at = Math.max(target, before + 1);
      const child = spawnTs('projections/main.ts', ['news'], env);
      await waitFor('the projector to pass the kill point', async () => (await appliedMessages(p, cfg.keyPrefix)) >= at, 120_000, 10);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      points.push(await appliedMessages(p, cfg.keyPrefix));
    }
    const last = spawnTs('projections/main.ts', ['news'], env);
    await p.waitCaughtUp(1, cfg.keyPrefix, 300_000);
    last.kill('SIGTERM');
    await new Promise((r) => last.once('exit', r));
    const recovered = await snapshotView(p.redis, cfg.keyPrefix, 'news', 1);
    const rebuilt = await cleanBuild(p, `${cfg.keyPrefix}-clean`);
    expectEqual(recovered, rebuilt);
    // Every point got its kill mid-replay (the last may land as the replay ends).
    expect(points.filter((n) => n < total).length).toBeGreaterThanOrEqual(KILLS - 1);
    results.projectorKills = {
      messages: total,
      killPoints: KILLS,
      kills: points.length,
      appliedAtKills: points,
      differences: 0,
      seconds: Math.round((Date.now() - t0) / 1000),
    };
  } finally {
    await p.close();
  }
}, 1_800_000);

it('a Kafka broker SIGKILLed during transactional ingest and during a replay: 0 lost, 0 duplicated, the view equal to a clean build', async () => {
  const cfg = testConfig('fault-broker');
  const p = await openPipeline(cfg);
  try {
    const total = 40_000;
    const articles = syntheticArticles(total);
    const projector = spawnTs('projections/main.ts', ['news'], configEnv(cfg));
    let killedAt = -1;
    let restartMs = 0;
    for (let i = 0; i < total; i += 1_000) {
      if (i === 10_000) {
        // During ingest (batches are transactions) and during the projector's reading.
        killedAt = i;
        await killAndWait(daemonPid('kafka-2'));
      }
      if (i === 25_000) restartMs = await restartStack();
      await p.producer.send(p.newsSpec, articles.slice(i, i + 1_000) as never);
    }
    // A second kill while the projector is still replaying what was produced.
    await killAndWait(daemonPid('kafka-3'));
    const second = await appliedMessages(p, cfg.keyPrefix);
    const restart2Ms = await restartStack();
    await p.waitCaughtUp(1, cfg.keyPrefix, 300_000);
    projector.kill('SIGTERM');
    await new Promise((r) => projector.once('exit', r));

    const counts = await readCommitted(createKafka(cfg, 'fault-count'), [p.newsTopic]);
    expect(counts[p.newsTopic]).toBe(total); // none lost, none written twice
    const recovered = await snapshotView(p.redis, cfg.keyPrefix, 'news', 1);
    expectEqual(recovered, await cleanBuild(p, `${cfg.keyPrefix}-clean`));
    results.brokerKills = {
      produced: total,
      committed: counts[p.newsTopic],
      killedDuringIngestAfter: killedAt,
      killedDuringReplayWhenApplied: second,
      brokerRestartMs: [restartMs, restart2Ms],
      viewDifferences: 0,
    };
  } finally {
    await p.close();
  }
}, 900_000);

it('a Kafka broker paused 20 s in a multi-topic transactional backfill (its leaders move): every topic holds exactly the generated events', async () => {
  // A paused broker (a long GC, a stalled disk) is worse than a dead one for a client: its
  // requests time out instead of failing, the controller fences it and moves its leaders, and a
  // produce retry must then send each unacknowledged partition to its new leader, and nothing else.
  const cfg = testConfig('fault-pause');
  await provisionTestTopics(cfg);
  const kafka = createKafka(cfg, 'fault-pause');
  const topics = marketTopics(cfg.topicPrefix);
  const optionPrints = topicName(topicFor('option-print')!, cfg.topicPrefix);
  const admin = logEndAdmin(kafka);
  await admin.connect();
  // Ended however the test ends: a backfill left waiting for its jobs would keep jest alive.
  const children: ReturnType<typeof spawnTs>[] = [];
  const leaders = async () => (await admin.fetchTopicMetadata({ topics: [optionPrints] })).topics[0].partitions.map((p) => p.leader);
  const written = async () => (await admin.fetchTopicOffsets(optionPrints)).reduce((n, p) => n + Number(p.high), 0);
  try {
    const dates = ['2026-11-16', '2026-11-17', '2026-11-18'];
    const started = Date.now();
    const worker = spawnTs('ingest/worker.ts', [], configEnv(cfg));
    const backfill = spawnTs(
      'ingest/cli.ts',
      ['backfill', '--from', dates[0], '--to', dates[2], '--level', 'tick', '--profile', 'dev', '--seed', '42'],
      configEnv(cfg),
    );
    children.push(worker, backfill);
    const exited = new Promise<number | null>((r) => backfill.once('exit', r));
    await waitFor('the backfill to commit option prints', async () => (await written()) > 0, 300_000, 200);
    // The broker leading the most option-print partitions.
    const before = await leaders();
    const node = [1, 2, 3].sort((a, b) => before.filter((l) => l === b).length - before.filter((l) => l === a).length)[0];
    const pid = daemonPid(`kafka-${node}`);
    const pausedAt = await written();
    // Asked of the two running brokers only, briefly: a request to the paused one hangs.
    const others = (await admin.describeCluster()).brokers.filter((b) => b.nodeId !== node).map((b) => `${b.host}:${b.port}`);
    const leadersNow = async () => {
      const probe = new Kafka({ brokers: others, requestTimeout: 2_000, retry: { retries: 0 }, logLevel: logLevel.NOTHING }).admin();
      try {
        await probe.connect();
        return (await probe.fetchTopicMetadata({ topics: [optionPrints] })).topics[0].partitions.map((p) => p.leader);
      } catch {
        return null;
      } finally {
        await probe.disconnect().catch(() => undefined);
      }
    };
    process.kill(pid, 'SIGSTOP');
    const pausedAtMs = Date.now();
    let moved = 0;
    try {
      // The controller fences the silent broker (9 s without a heartbeat) and elects new leaders.
      while (Date.now() - pausedAtMs < 20_000) {
        const now = await leadersNow();
        if (now) moved = Math.max(moved, now.filter((l, i) => before[i] === node && l !== node).length);
        await new Promise((r) => setTimeout(r, 1_000));
      }
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const runningAtResume = backfill.exitCode === null;
    const code = await exited;
    expect({ code, output: code === 0 ? '' : backfill.output() }).toEqual({ code: 0, output: '' });
    const counts = await readCommitted(kafka, topics);
    const market = new SimulatedMarket(42, PROFILES.dev);
    expect(counts).toEqual(
      generatedCounts(
        market,
        cfg.topicPrefix,
        dates.map((d): [string, SessionPart[]] => [d, ['daily without sample', 'tick']]),
      ),
    );
    // The fault landed inside the backfill, and took leadership away from the paused broker.
    expect(runningAtResume).toBe(true);
    expect(moved).toBeGreaterThan(0);
    results.brokerPause = {
      sessions: dates.length,
      pausedBroker: node,
      pausedForMs: 20_000,
      optionPrintsWrittenAtPause: pausedAt,
      leadersMoved: moved,
      committed: Object.fromEntries(Object.entries(counts).map(([t, n]) => [t.slice(cfg.topicPrefix.length), n])),
      duplicatedOrLost: 0,
      backfillMs: Date.now() - started,
    };
  } finally {
    for (const c of children.splice(0)) c.kill('SIGTERM');
    await admin.disconnect();
  }
}, 900_000);

it('a Redis master SIGKILLed during projection and under API load: answers are right or 503, and the view converges to a clean build', async () => {
  const cfg = testConfig('fault-redis');
  const p = await openPipeline(cfg);
  const api = await startApi(cfg, { quota: UNLIMITED });
  try {
    if (!isCluster(p.redis)) throw new Error('not a cluster client');
    // A view served under load (complete, so its right answer is known), and one being projected.
    const served = syntheticArticles(3_000);
    await p.producer.send(p.newsSpec, served as never);
    const first = p.newProjector();
    await first.start();
    await p.waitCaughtUp(1);
    await first.stop();
    const queries = [{ size: 50 }, { size: 20, filter: { tickers: ['AAPL'] } }, { size: 10, filter: { topics: ['EARNINGS'] } }];
    const expected = await Promise.all(queries.map(async (q) => (await api.post('/v1/news/tool/news-articles', q)).json));

    const more = syntheticArticles(20_000).map((a) => ({ ...a, id: 100_000 + a.id }));
    const writerPrefix = `${cfg.keyPrefix}-w`;
    const writer = spawnTs('projections/main.ts', ['news'], { ...configEnv(cfg), MDQ_KEY_PREFIX: writerPrefix, MDQ_PROJECTOR_CHUNK: '500' });
    for (let i = 0; i < more.length; i += 2_000) await p.producer.send(p.newsSpec, more.slice(i, i + 2_000) as never);

    // The master holding partition 0 of the view: the one the writer and the readers both use.
    const slot = calculateSlot(new PartitionKeys(cfg.keyPrefix, 'news', 1, 0).offsets);
    const node = p.redis.slots[slot]?.[0];
    const port = Number(node?.split(':')[1]);
    const dir = fs
      .readdirSync(STACK_DIR)
      .find((d) => d.startsWith('redis-') && fs.readFileSync(`/proc/${daemonPid(d)}/cmdline`, 'utf8').includes(String(port)));
    if (!dir) throw new Error(`no stack node on port ${port}`);

    let ok = 0;
    let unavailable = 0;
    const wrong: string[] = [];
    let firstFailure = 0;
    let recoveredAt = 0;
    let stop = false;
    const load = (async () => {
      for (let i = 0; !stop; i++) {
        const q = queries[i % queries.length];
        const res = await api.post('/v1/news/tool/news-articles', q);
        if (res.status === 200) {
          ok++;
          if (firstFailure && !recoveredAt) recoveredAt = Date.now();
          if (JSON.stringify(res.json) !== JSON.stringify(expected[i % queries.length])) wrong.push(JSON.stringify(res.json).slice(0, 200));
        } else if (res.status === 503 && res.headers.get('retry-after')) {
          unavailable++;
          firstFailure ||= Date.now();
        } else wrong.push(`${res.status} ${JSON.stringify(res.json).slice(0, 200)}`);
      }
    })();
    await new Promise((r) => setTimeout(r, 2_000));
    const killedAt = Date.now();
    await killAndWait(daemonPid(dir));
    // The replica takes over after cluster-node-timeout (5 s) and an election.
    await waitFor('a replica to take over the slot', async () => recoveredAt > 0 || (firstFailure === 0 && Date.now() - killedAt > 15_000), 60_000, 200);
    await new Promise((r) => setTimeout(r, 3_000));
    stop = true;
    await load;
    const restartMs = await restartStack(); // the old master comes back as a replica
    await p.waitCaughtUp(1, writerPrefix, 300_000);
    writer.kill('SIGTERM');
    await new Promise((r) => writer.once('exit', r));

    expect(wrong).toEqual([]);
    expect(ok).toBeGreaterThan(0);
    const converged = await snapshotView(p.redis, writerPrefix, 'news', 1);
    expectEqual(converged, await cleanBuild(p, `${cfg.keyPrefix}-clean`));
    results.redisFailover = {
      answers: { right: ok, unavailable503: unavailable, wrong: wrong.length },
      secondsUnavailable: firstFailure ? ((recoveredAt || Date.now()) - firstFailure) / 1000 : 0,
      killedNode: node,
      oldMasterRejoinMs: restartMs,
      viewDifferences: 0,
    };
  } finally {
    await api.close();
    await p.close();
  }
}, 900_000);
