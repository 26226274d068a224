import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type Redis from 'ioredis';
import { MARKET_PARTITIONS, topicFor } from '../../schemas/catalog';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { settleWarmTier } from '../../projections/runtime/warm-tier';
import type { Projection } from '../../projections/runtime/projection';
import { PartitionKeys } from '../../services/views/keys';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW, orderFlowLayout } from '../../services/views/order-flow';
import { readOrderFlowPage, readOrderFlowStatistics } from '../../api/views/order-flow';
import { applyMicros, bytesOf, median, privateRedisServer } from '../support/bench-redis';
import { projectInChunks } from '../support/bench-redis';
import { orderFlowSample } from '../support/order-flow-sample';
import { orderFlowPageCases, orderFlowStatisticsCase } from '../support/order-flow-read-cases';

/**
 * The warm tier of the order-flow views, side by side with the same sessions kept hot:
 * `npx tsx test/bench/warm-tier.ts [--sessions 6] [--rows 40000]`.
 *
 * Starts its own redis-server, samples `--rows` option prints per session of the `full` market
 * (every 8th symbol; test/support/order-flow-sample.ts) for `--sessions` consecutive sessions,
 * and projects both views with the projections' own code twice: into `hot` with every session
 * kept hot, and into `tiered` keeping the newest 2 (each session moves when the next-but-one
 * starts, inside the projection; the last move by settleWarmTier). Reports projection rows/s of
 * both; the move alone (a third copy, every session hot, whose older sessions are then moved by
 * settleWarmTier), as this process's CPU and Redis's EXEC time per row moved against projecting
 * those rows; MEMORY USAGE per row of a hot and of a warm session (every key of the session, the
 * open-interest join included); and read latencies (median of repeated reads, µs) of the same
 * queries on a warm and on a hot session. Results: test/bench/results/warm-tier.json.
 */

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const SESSIONS = arg('sessions', 6);
const ROWS = arg('rows', 40_000);
const HOT_KEPT = 2;
const DATES = [
  '2024-05-01',
  '2024-05-02',
  '2024-05-03',
  '2024-05-06',
  '2024-05-07',
  '2024-05-08',
  '2024-05-09',
  '2024-05-10',
  '2024-05-13',
  '2024-05-14',
].slice(0, SESSIONS);
const OI = topicFor('open-interest')!.name;

/** This process's CPU time, seconds (less disturbed by the other work of a shared machine than wall time). */
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** What projecting (or moving) cost: wall and CPU seconds of this process, and Redis's time applying it (EXEC). */
interface Cost {
  seconds: number;
  cpu: number;
  redis: number;
}
async function measure(redis: Redis, run: () => Promise<unknown>): Promise<Cost> {
  const [t0, c0, r0] = [process.hrtime.bigint(), cpu(), await applyMicros(redis)];
  await run();
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, cpu: cpu() - c0, redis: ((await applyMicros(redis)) - r0) / 1e6 };
}
const sum = (cs: Cost[]): Cost =>
  cs.reduce((a, c) => ({ seconds: a.seconds + c.seconds, cpu: a.cpu + c.cpu, redis: a.redis + c.redis }), { seconds: 0, cpu: 0, redis: 0 });

/** Projects every session (its open interest, then its rows); the rows' cost per session. */
async function project(
  redis: Redis,
  prefix: string,
  projection: Projection,
  data: ReturnType<typeof orderFlowSample>[],
  rowsOf: (d: ReturnType<typeof orderFlowSample>) => { ticker: string }[],
): Promise<Cost[]> {
  const costs: Cost[] = [];
  for (const d of data) {
    await projectInChunks(redis, projection, OI, d.openInterest, prefix);
    costs.push(await measure(redis, () => projectInChunks(redis, projection, projection.topics[0].name, rowsOf(d), prefix)));
  }
  return costs;
}

async function main(): Promise<void> {
  const { redis, server } = await privateRedisServer();
  try {
    const data = DATES.map((d) => orderFlowSample(ROWS, d));
    const results: Record<string, unknown> = { sessions: SESSIONS, rowsPerSession: data.map((d) => d.prints.length), hotSessionsKept: HOT_KEPT };
    const views: [string, Projection, (d: ReturnType<typeof orderFlowSample>) => { ticker: string }[]][] = [
      [ORDER_FLOW_PRINTS_VIEW, orderFlowPrintsProjection, (d) => d.prints],
      [ORDER_FLOW_CONSOLIDATED_VIEW, orderFlowConsolidatedProjection, (d) => d.consolidated],
    ];
    for (const [view, projection, rowsOf] of views) {
      const rows = data.reduce((n, d) => n + rowsOf(d).length, 0);
      process.env.MDQ_WARM_QUIET_MESSAGES = '0';
      process.env.MDQ_HOT_SESSIONS = '1000';
      // `moved`: every session hot, then the older ones moved on their own below. Its pass comes
      // first, so that the JIT is warm for the measured passes.
      await project(redis, 'moved', projection, data, rowsOf);
      const hot = await project(redis, 'hot', projection, data, rowsOf);
      process.env.MDQ_HOT_SESSIONS = String(HOT_KEPT);
      const tiered = await project(redis, 'tiered', projection, data, rowsOf);
      const settle = await measure(redis, async () => {
        for (let p = 0; p < MARKET_PARTITIONS; p++) await settleWarmTier(redis, orderFlowLayout(view), new PartitionKeys('tiered', view, 1, p), HOT_KEPT);
      });
      // The move alone: the sessions older than the newest HOT_KEPT, frozen by the projection's own
      // move (settleWarmTier: the same freezeOps, applied in the same kind of transaction), against
      // projecting those sessions' rows.
      // The longest the move held the event loop (other partitions' chunks, Kafka heartbeats wait that long).
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const move = await measure(redis, async () => {
        for (let p = 0; p < MARKET_PARTITIONS; p++) await settleWarmTier(redis, orderFlowLayout(view), new PartitionKeys('moved', view, 1, p), HOT_KEPT);
      });
      loop.disable();
      const movedProjection = sum(hot.slice(0, -HOT_KEPT));
      const movedRows = data.slice(0, -HOT_KEPT).reduce((n, d) => n + rowsOf(d).length, 0);
      const pct = (a: number, b: number) => Number(((a / b) * 100).toFixed(1));
      const [hotSeconds, tieredSeconds, settleSeconds] = [sum(hot).seconds, sum(tiered).seconds, settle.seconds];
      const oldest = DATES[0];
      const newest = DATES[DATES.length - 1];
      const rowsIn = (d: string) => rowsOf(data[DATES.indexOf(d)]).length;
      const sessionBytes = (prefix: string, d: string) => bytesOf(redis, `${prefix}:${view}:v1:*:${d}:*`);
      results[view] = {
        rows,
        hotRowsPerSecond: Math.round(rows / hotSeconds),
        tieredRowsPerSecond: Math.round(rows / tieredSeconds),
        moveCostPercent: Number((((tieredSeconds + settleSeconds) / hotSeconds - 1) * 100).toFixed(1)),
        move: {
          rowsMoved: movedRows,
          cpuMicrosPerRow: Number(((move.cpu / movedRows) * 1e6).toFixed(2)),
          longestEventLoopBlockMs: Math.round(loop.max / 1e6),
          redisMicrosPerRow: Number(((move.redis / movedRows) * 1e6).toFixed(2)),
          projectionCpuMicrosPerRow: Number(((movedProjection.cpu / movedRows) * 1e6).toFixed(2)),
          projectionRedisMicrosPerRow: Number(((movedProjection.redis / movedRows) * 1e6).toFixed(2)),
          cpuPercentOfProjection: pct(move.cpu, movedProjection.cpu),
          cpuAndRedisPercentOfProjection: pct(move.cpu + move.redis, movedProjection.cpu + movedProjection.redis),
          wallPercentOfProjection: pct(move.seconds, movedProjection.seconds),
        },
        bytesPerRow: {
          hotSession: Math.round((await sessionBytes('hot', oldest)) / rowsIn(oldest)),
          warmSession: Math.round((await sessionBytes('tiered', oldest)) / rowsIn(oldest)),
          warmBlocksOnly: Math.round((await bytesOf(redis, `tiered:${view}:v1:*:${oldest}:w[bm]`)) / rowsIn(oldest)),
          newestStillHot: Math.round((await sessionBytes('tiered', newest)) / rowsIn(newest)),
        },
      };
      console.log(view, JSON.stringify(results[view]));
    }

    // Reads: the same query on the oldest session (warm in `tiered`) and on it kept hot.
    const sample = data[0].prints;
    const ticker = sample[Math.floor(sample.length / 2)].ticker;
    const cases = orderFlowPageCases(DATES[0], ticker);
    const latency: Record<string, unknown> = {};
    for (const [name, query] of Object.entries(cases)) {
      const cold = process.hrtime.bigint();
      await readOrderFlowPage(redis, 'tiered', query);
      latency[name] = {
        warmFirstReadMicros: Math.round(Number(process.hrtime.bigint() - cold) / 1e3),
        warmMicros: await median(30, () => readOrderFlowPage(redis, 'tiered', query)),
        hotMicros: await median(30, () => readOrderFlowPage(redis, 'hot', query)),
      };
    }
    // An aggregation over every session: statistics of puts of $100k or more, by scan.
    const stats = orderFlowStatisticsCase(DATES);
    latency[`statistics over ${SESSIONS} sessions (puts, premium >= $100k)`] = {
      tieredMicros: await median(10, () => readOrderFlowStatistics(redis, 'tiered', stats)),
      hotMicros: await median(10, () => readOrderFlowStatistics(redis, 'hot', stats)),
      // The same from the combination counters (`sc`), as the tape answers such a filter.
      tieredCountersMicros: await median(10, () => readOrderFlowStatistics(redis, 'tiered', { ...stats, countersFilter: true })),
      hotCountersMicros: await median(10, () => readOrderFlowStatistics(redis, 'hot', { ...stats, countersFilter: true })),
    };
    results.latency = latency;
    console.log(JSON.stringify(latency, null, 2));
    const out = path.join(__dirname, 'results', 'warm-tier.json');
    fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
