/**
 * Order-flow pipeline benchmark, on the stack of KAFKA_BROKERS / SCHEMA_REGISTRY_URL / VIEWS_REDIS_URL
 * (REDIS_URL when unset):
 *
 *  1. loads one simulated session (option prints of the chosen symbols, their start-of-session
 *     open interest, the reference data) into fresh topics, transactionally like the ingest;
 *  2. replay: runs the order-flow processor alone until it has committed every print, then each
 *     projector alone until its view has caught up — prints/s per process, and Redis memory per
 *     stored row (used_memory delta, every key and index included);
 *  3. live: with everything running, sends probe prints stamped with the wall clock (plus a
 *     background flow) and measures print time -> row queryable in each view (p50/p99), and
 *     print time -> counted in the flow-aggregates cube (every aggregate endpoint reads it).
 *
 *   npm run bench:pipeline -- [--profile full] [--date 2026-11-20] [--symbols 40] [--probes 300] [--background 2000] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` writes a V8 CPU profile of the processor and of each replaying projector into DIR.
 *
 * Projector-only runs, to compare projector changes on the same data within one hour:
 *
 *   npm run bench:pipeline -- --reuse STAMP [--views order-flow-consolidated] [--cpu-prof DIR]
 *
 * replays the topics of an earlier run (its key prefix `bench-STAMP`, printed at its end) into
 * views under a new key prefix, skipping the load, the processor and the live phase; results go
 * to order-flow-pipeline-reuse.json. Drop those views after (`--drop` does it at the end).
 *
 * The views stay in Redis under the printed key prefix for `npm run bench:queries`.
 * Results: test/bench/results/order-flow-pipeline.json.
 */
import fs from 'fs';
import path from 'path';
import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { marketFor } from '../../ingest/produce/session-producer';
import type { SimEvent } from '../../ingest/simulator/events';
import { processorGroupId } from '../../projections/order-flow-processor/processor';
import { caughtUp, dropVersion, viewLag } from '../../projections/runtime/versions';
import { topicFor, topicName } from '../../schemas/catalog';
import { loadConfig } from '../../services/config';
import { sessionDateOf } from '../../services/domain/calendar';
import { BLOCK_MIN_SIZE, rowKeyOf } from '../../services/domain/order-flow';
import { loadUniverse } from '../../services/domain/universe';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { EventProducer } from '../../services/kafka/producer';
import { provisionTopicsAndSchemas } from '../../services/kafka/provision';
import { createRedis } from '../../services/redis/client';
import { PartitionKeys } from '../../services/views/keys';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW, orderFlowKeys } from '../../services/views/order-flow';
import { FLOW_AGGREGATES_VIEW } from '../../services/views/flow-aggregates/keys';
import { repoRoot } from '../../services/stack/paths';
import { sleep } from '../../services/stack/process';
import { configEnv, spawnTs } from '../support/pipeline';
import { processCpuSeconds, redisCpu } from '../support/cpu';
import * as hdr from 'hdr-histogram-js';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const PROFILE = flag('profile', 'full') as 'full' | 'dev';
const DATE = flag('date', '2026-11-20');
const SYMBOLS = Number(flag('symbols', '40'));
const PROBES = Number(flag('probes', '300'));
const BACKGROUND = Number(flag('background', '2000'));
const CPU_PROF = flag('cpu-prof', '');
const profArgs = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF)}`] : [];
const stamp = Date.now().toString(36);
/** The run whose topics are replayed again (--reuse), or this run. */
const REUSE = flag('reuse', '');
const VIEWS = flag('views', `${ORDER_FLOW_PRINTS_VIEW},${ORDER_FLOW_CONSOLIDATED_VIEW}`).split(',');
const DROP = args.includes('--drop');
const config = { ...loadConfig(), topicPrefix: `bench-${REUSE || stamp}.`, keyPrefix: `bench-${stamp}`, logLevel: 'warn' };
/** Where a run records its prints count, for the runs that reuse its topics. */
const printsKey = (s: string) => `bench-${s}:bench-prints`;
const spec = (t: string) => topicFor(t as never)!;
const topic = (t: string) => topicName(spec(t), config.topicPrefix);

async function usedMemory(redis: ReturnType<typeof createRedis>): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

/**
 * Where a phase's time went: cores used by the measured process, by Redis's main thread and by
 * Redis's forked children (an AOF rewrite or a snapshot copies the whole dataset, every other
 * view included), and the rewrites and snapshots finished. Redis adds a child's CPU when the child
 * exits, so a child started in one phase may be counted in the next.
 */
async function phaseCpu(redis: ReturnType<typeof createRedis>, before: Awaited<ReturnType<typeof redisCpu>>, seconds: number, processCpu: number | null) {
  const after = await redisCpu(redis);
  const share = (cpu: number) => Math.round((100 * cpu) / seconds) / 100;
  return {
    processCores: processCpu === null ? null : share(processCpu),
    redisMainCores: share(after.main - before.main),
    redisChildCores: share(after.children - before.children),
    aofRewrites: after.aofRewrites - before.aofRewrites,
    snapshots: after.snapshots - before.snapshots,
  };
}

/**
 * The replay rate without the process's start (spawning it under tsx, the group join, the
 * reference or open-interest read): from the first poll that saw progress to the end. Progress is
 * in topic offsets, which count the transaction markers too, so the rate is the share of the
 * topic's offsets left at that poll times the messages, over the time from that poll to the end.
 */
class ReplayRate {
  private first: { offsets: number; at: number } | null = null;

  constructor(private readonly startedAt: number) {}

  /** `offsets`: offsets consumed so far, summed over the partitions, at `at` (ms). */
  progress(offsets: number, at: number): void {
    if (this.first === null && offsets > 0) this.first = { offsets, at };
  }

  result(messages: number, totalOffsets: number, end: number): { startSeconds: number | null; messagesPerSecond: number | null } {
    const first = this.first;
    if (first === null || end <= first.at || totalOffsets <= 0) return { startSeconds: null, messagesPerSecond: null };
    const left = (messages * (totalOffsets - first.offsets)) / totalOffsets;
    return { startSeconds: Math.round((first.at - this.startedAt) / 100) / 10, messagesPerSecond: Math.round(left / ((end - first.at) / 1000)) };
  }
}

/**
 * Waits until Redis is idle: after a view is dropped or flushed Redis (with its jemalloc) spends
 * minutes of CPU handing the memory back (over a core for ~3 minutes after a 13 GB flush), which
 * halved the rate of a projector replay started meanwhile.
 */
async function settle(redis: ReturnType<typeof createRedis>): Promise<void> {
  for (let waited = 0; ; waited++) {
    const a = await redisCpu(redis);
    await sleep(1_000);
    const b = await redisCpu(redis);
    if (b.all - a.all < 0.05) return;
    if (waited === 0) console.log('[settle] waiting for Redis to be idle');
  }
}

async function main(): Promise<void> {
  const kafka = createKafka(config, 'mdq-bench');
  const admin = kafka.admin();
  await admin.connect();
  const redis = createRedis(config.viewsRedisUrl); // the views and the processor's state
  await provisionTopicsAndSchemas(config);
  const out: Record<string, unknown> = {
    measuredAt: new Date().toISOString(),
    profile: PROFILE,
    date: DATE,
    machine: '2 cores, 24 GiB, shared by Kafka, Redis and the measured process',
    keyPrefix: config.keyPrefix,
  };

  // 1. The source: the most active symbols of the profile (by options activity weight).
  const universe = loadUniverse();
  const market = marketFor(42, PROFILE);
  const chosen = new Set(
    [...universe]
      .sort((a, b) => b.optionsActivityWeight - a.optionsActivityWeight)
      .slice(0, SYMBOLS)
      .map((i) => i.symbol),
  );
  const env = { ...configEnv(config), LOG_LEVEL: 'warn' };
  let prints: number;
  let processor: ReturnType<typeof spawnTs> | null = null;
  let mem1 = await usedMemory(redis);
  if (REUSE) {
    prints = Number(flag('prints', '') || (await redis.get(printsKey(REUSE))));
    if (!prints) throw new Error(`no prints count recorded for bench-${REUSE}: pass --prints N`);
    out.reuse = { topicPrefix: config.topicPrefix, prints };
  } else {
    const writer = new ChunkWriter(kafka, createRegistry(config), config.topicPrefix, `bench-${stamp}`);
    await writer.connect();
    await writer.commit(
      universe.map((i) => ({ type: 'instrument', time: 0, data: { ...i } as Record<string, unknown> })),
      [],
    );
    const daily = market.session(DATE, 'daily', chosen);
    for (let k = 0; k < daily.chunks; k++)
      await writer.commit(
        daily.chunk(k).filter((e) => e.type === 'open-interest'),
        [],
      );
    const tick = market.session(DATE, 'tick', chosen);
    prints = 0;
    let batch: SimEvent[] = [];
    const t0 = Date.now();
    for (let k = 0; k < tick.chunks; k++) {
      for (const e of tick.chunk(k)) if (e.type === 'option-print') batch.push(e);
      if (batch.length >= 20_000 || k === tick.chunks - 1) {
        await writer.commit(batch, []);
        prints += batch.length;
        batch = [];
        process.stdout.write(`\r[load] ${prints} prints`);
      }
    }
    await writer.disconnect();
    console.log(`\n[load] ${prints} option prints of ${chosen.size} symbols in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    out.symbols = chosen.size;
    out.prints = prints;
    await redis.set(printsKey(stamp), String(prints));

    // 2a. The processor alone.
    const source = await admin.fetchTopicOffsets(topic('option-print'));
    const mem0 = await usedMemory(redis);
    const work = await redisCpu(redis);
    const t = Date.now();
    const proc = (processor = spawnTs('projections/order-flow-processor/main.ts', [], env, profArgs));
    const processorRate = new ReplayRate(t);
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`processor exited:\n${proc.output().slice(-3000)}`);
      const [{ partitions }] = await admin.fetchOffsets({ groupId: processorGroupId(config.topicPrefix), topics: [topic('option-print')] });
      processorRate.progress(
        partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0),
        Date.now(),
      );
      // A partition that received no print (few symbols) has no committed offset: it is done.
      const done = source.every((s) => Number(s.high) === 0 || Number(partitions.find((p) => p.partition === s.partition)?.offset ?? -1) >= Number(s.high));
      if (done) break;
      await sleep(250);
    }
    const processorEnd = Date.now();
    const processorSeconds = (processorEnd - t) / 1000;
    const processorCpu = await phaseCpu(redis, work, processorSeconds, processCpuSeconds(proc.pid));
    const processorReplay = processorRate.result(
      prints,
      source.reduce((n, s) => n + Number(s.high), 0),
      processorEnd,
    );
    out.processor = {
      seconds: processorSeconds,
      printsPerSecond: Math.round(prints / processorSeconds),
      cpu: processorCpu,
      replay: processorReplay,
      note: 'printsPerSecond includes the start-up (spawn, group join, reference load); replay.messagesPerSecond runs from the first committed offset seen (polled every 250 ms) to the end',
    };
    console.log(
      `[processor] ${prints} prints in ${processorSeconds.toFixed(1)} s = ${Math.round(prints / processorSeconds)} prints/s (after ${processorReplay.startSeconds} s of start: ${processorReplay.messagesPerSecond}/s); cores ${JSON.stringify(processorCpu)}`,
    );
    mem1 = await usedMemory(redis);
    out.processorStateBytes = mem1 - mem0;
  }
  // 2b. Each projector alone, then memory per stored row.
  const projected: Record<string, unknown> = {};
  let mem = mem1;
  for (const [view, derived] of [
    [ORDER_FLOW_PRINTS_VIEW, 'enriched-print'],
    [ORDER_FLOW_CONSOLIDATED_VIEW, 'consolidated-trade'],
  ] as const) {
    if (!VIEWS.includes(view)) continue;
    await settle(redis);
    // Taken again after settling: a view dropped before this run is freed only now.
    mem = await usedMemory(redis);
    const work = await redisCpu(redis);
    const t = Date.now();
    const projector = spawnTs('projections/main.ts', [view], env, profArgs);
    const rate = new ReplayRate(t);
    let derivedOffsets = 0;
    for (;;) {
      if (projector.exitCode !== null) throw new Error(`projector exited:\n${projector.output().slice(-3000)}`);
      const lag = await viewLag(admin, redis, [topic(derived), topic('open-interest')], config.keyPrefix, view, 1).catch(() => null);
      if (lag) {
        const own = lag.filter((l) => l.topic === topic(derived));
        derivedOffsets = own.reduce((n, l) => n + l.latest + 1, 0);
        rate.progress(
          own.reduce((n, l) => n + l.applied + 1, 0),
          Date.now(),
        );
      }
      if (lag && caughtUp(lag)) break;
      await sleep(250);
    }
    const end = Date.now();
    const seconds = (end - t) / 1000;
    const replay = rate.result(prints, derivedOffsets, end);
    const cpu = await phaseCpu(redis, work, seconds, processCpuSeconds(projector.pid));
    let rows = 0;
    for (let p = 0; p < 12; p++) rows += await redis.hlen(orderFlowKeys(new PartitionKeys(config.keyPrefix, view, 1, p)).rows(DATE));
    const after = await usedMemory(redis);
    projected[view] = {
      messages: prints,
      rows,
      seconds,
      messagesPerSecond: Math.round(prints / seconds),
      replay,
      bytesPerRow: Math.round((after - mem) / rows),
      cpu,
    };
    console.log(
      `[projector ${view}] ${prints} messages -> ${rows} rows in ${seconds.toFixed(1)} s = ${Math.round(prints / seconds)} msg/s (after ${replay.startSeconds} s of start: ${replay.messagesPerSecond}/s); ${Math.round((after - mem) / rows)} B/row; cores ${JSON.stringify(cpu)}`,
    );
    mem = after;
    projector.kill('SIGTERM');
    await new Promise((r) => projector.once('exit', r));
  }
  out.projectors = projected;
  if (REUSE) {
    await finish(path.join(repoRoot, 'test/bench/results/order-flow-pipeline-reuse.json'), out, admin, redis);
    return;
  }

  // 3. Live freshness: both views projected by one projector process, the processor running.
  const live = spawnTs('projections/main.ts', [ORDER_FLOW_PRINTS_VIEW, ORDER_FLOW_CONSOLIDATED_VIEW, FLOW_AGGREGATES_VIEW], env);
  await sleep(10_000); // group join
  // The cube was not replayed above: let it catch up with the session before probing.
  for (;;) {
    if (live.exitCode !== null) throw new Error(`projector exited:\n${live.output().slice(-3000)}`);
    const lag = await viewLag(admin, redis, [topic('enriched-print')], config.keyPrefix, FLOW_AGGREGATES_VIEW, 1).catch(() => null);
    if (lag && caughtUp(lag)) break;
    await sleep(500);
  }
  const producer = new EventProducer(kafka, createRegistry(config), config.topicPrefix);
  await producer.connect();
  const printSpec = spec('option-print');
  const symbols = [...chosen];
  const hPrint = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000, numberOfSignificantValueDigits: 3 });
  const hGroup = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000, numberOfSignificantValueDigits: 3 });
  const hCube = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000, numberOfSignificantValueDigits: 3 });
  let stop = false;
  // Background flow: prints of random contracts at the wall clock, BACKGROUND per second.
  const template = (await (async () => {
    const gen = market.session(DATE, 'tick', new Set(symbols.slice(0, 5)));
    const xs: Record<string, unknown>[] = [];
    for (let k = 1; k < gen.chunks && xs.length < 5000; k++) for (const e of gen.chunk(k)) if (e.type === 'option-print') xs.push(e.data);
    return xs;
  })()) as Record<string, unknown>[];
  let seq = 0;
  const background = (async () => {
    while (!stop) {
      const now = Date.now();
      const n = Math.max(1, Math.round(BACKGROUND / 10));
      const batch = Array.from({ length: n }, () => ({ ...template[seq % template.length], id: `bg-${stamp}-${seq++}`, time: now }));
      await producer.send(printSpec, batch);
      await sleep(Math.max(0, 100 - (Date.now() - now)));
    }
  })();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < PROBES; i++) {
    const base = template[(i * 7919) % template.length];
    const sent = Date.now();
    // At least the block size, so that alone it is a consolidated row (a BLOCK): a lone smaller
    // print is no consolidated trade and would never appear in the consolidated view.
    const probe = { ...base, id: `probe-${stamp}-${i}`, time: sent, size: Math.max(Number(base.size), BLOCK_MIN_SIZE) };
    const [meta] = await producer.send(printSpec, [probe]);
    const rowKey = rowKeyOf(meta.partition, Number(meta.baseOffset));
    const d = sessionDateOf(sent);
    const pk = (view: string) => orderFlowKeys(new PartitionKeys(config.keyPrefix, view, 1, meta.partition)).rows(d);
    pending.push(
      (async () => {
        let printSeen = false;
        let groupSeen = false;
        // The prints view's applied offset of the enriched topic when the probe showed there: the
        // cube holds the probe once it has applied as far (an upper bound on the cube's delay).
        let cubeTarget = -1;
        let cubeSeen = false;
        const offsets = (view: string) => new PartitionKeys(config.keyPrefix, view, 1, meta.partition).offsets;
        const deadline = sent + 120_000;
        while ((!printSeen || !groupSeen || !cubeSeen) && Date.now() < deadline) {
          const [a, b] = await Promise.all([
            printSeen ? 1 : redis.hexists(pk(ORDER_FLOW_PRINTS_VIEW), rowKey),
            groupSeen ? 1 : redis.hexists(pk(ORDER_FLOW_CONSOLIDATED_VIEW), rowKey),
          ]);
          const now = Date.now();
          if (!printSeen && a) {
            printSeen = true;
            hPrint.recordValue(now - sent);
            cubeTarget = Number(await redis.hget(offsets(ORDER_FLOW_PRINTS_VIEW), topic('enriched-print')));
          }
          if (printSeen && !cubeSeen && Number((await redis.hget(offsets(FLOW_AGGREGATES_VIEW), topic('enriched-print'))) ?? -1) >= cubeTarget) {
            cubeSeen = true;
            hCube.recordValue(Date.now() - sent);
          }
          // The probe may join a trade started by a background print; then its own rowKey never
          // appears in the consolidated view and only the print view is measured.
          if (!groupSeen && b) {
            groupSeen = true;
            hGroup.recordValue(now - sent);
          }
          if (printSeen && cubeSeen && !groupSeen && now - sent > 30_000) break;
          await sleep(2);
        }
      })(),
    );
    await sleep(50);
  }
  await Promise.all(pending);
  stop = true;
  await background;
  const pct = (h: hdr.Histogram) => ({
    samples: h.totalCount,
    p50: h.getValueAtPercentile(50),
    p90: h.getValueAtPercentile(90),
    p99: h.getValueAtPercentile(99),
    max: h.maxValue,
  });
  out.liveFreshnessMs = {
    backgroundPrintsPerSecond: BACKGROUND,
    unconsolidated: pct(hPrint),
    consolidated: pct(hGroup),
    flowAggregates: pct(hCube),
    measured:
      'print time (wall clock at send) to row present in the view, polled every ~2 ms; flowAggregates: to the cube having applied the enriched topic as far as the prints view had when the row showed',
  };
  console.log(`[live] freshness ms: prints ${JSON.stringify(pct(hPrint))}; consolidated ${JSON.stringify(pct(hGroup))}; cube ${JSON.stringify(pct(hCube))}`);

  await producer.disconnect();
  live.kill('SIGTERM');
  processor?.kill('SIGTERM');
  await finish(path.join(repoRoot, 'test/bench/results/order-flow-pipeline.json'), out, admin, redis);
}

async function finish(
  file: string,
  out: Record<string, unknown>,
  admin: ReturnType<ReturnType<typeof createKafka>['admin']>,
  redis: ReturnType<typeof createRedis>,
): Promise<void> {
  if (DROP) {
    for (const view of VIEWS) out[`dropped:${view}`] = await dropVersion(redis, config.keyPrefix, view, 1);
  }
  await admin.disconnect();
  redis.disconnect();
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(
    `results written to ${path.relative(process.cwd(), file)}; ${DROP ? 'views dropped' : `views kept under MDQ_KEY_PREFIX=${config.keyPrefix}`}; topics: ${config.topicPrefix}`,
  );
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
