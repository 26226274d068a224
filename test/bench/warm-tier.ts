import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { MARKET_PARTITIONS, topicFor } from '../../schemas/catalog';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { settleWarmTier } from '../../projections/runtime/warm-tier';
import type { Projection } from '../../projections/runtime/projection';
import { PartitionKeys } from '../../services/views/keys';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW, orderFlowLayout, type OrderFlowRow } from '../../services/views/order-flow';
import { readOrderFlowPage, readOrderFlowStatistics, type OrderFlowHints, type OrderFlowPageQuery } from '../../api/views/order-flow';
import { bytesOf, median, privateRedisServer } from '../support/bench-redis';
import { projectInChunks } from '../support/bench-redis';
import { orderFlowSample } from '../support/order-flow-sample';

/**
 * The warm tier of the order-flow views, side by side with the same sessions kept hot:
 * `npx tsx test/bench/warm-tier.ts [--sessions 6] [--rows 40000]`.
 *
 * Starts its own redis-server, samples `--rows` option prints per session of the `full` market
 * (every 8th symbol; test/support/order-flow-sample.ts) for `--sessions` consecutive sessions,
 * and projects both views with the projections' own code twice: into `hot` with every session
 * kept hot, and into `tiered` keeping the newest 2 (each session moves when the next-but-one
 * starts, inside the projection; the last move by settleWarmTier). Reports projection rows/s of
 * both (the move's cost is the difference), MEMORY USAGE per row of a hot and of a warm session,
 * and read latencies (median of repeated reads, µs) of the same queries on a warm and on a hot
 * session. Results: test/bench/results/warm-tier.json.
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

async function project(
  redis: Redis,
  prefix: string,
  projection: Projection,
  data: ReturnType<typeof orderFlowSample>[],
  rowsOf: (d: ReturnType<typeof orderFlowSample>) => { ticker: string }[],
): Promise<number> {
  let seconds = 0;
  for (const d of data) {
    await projectInChunks(redis, projection, OI, d.openInterest, prefix);
    const t0 = process.hrtime.bigint();
    await projectInChunks(redis, projection, projection.topics[0].name, rowsOf(d), prefix);
    seconds += Number(process.hrtime.bigint() - t0) / 1e9;
  }
  return seconds;
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
      const hotSeconds = await project(redis, 'hot', projection, data, rowsOf);
      process.env.MDQ_HOT_SESSIONS = String(HOT_KEPT);
      const tieredSeconds = await project(redis, 'tiered', projection, data, rowsOf);
      const t0 = process.hrtime.bigint();
      for (let p = 0; p < MARKET_PARTITIONS; p++) await settleWarmTier(redis, orderFlowLayout(view), new PartitionKeys('tiered', view, 1, p), HOT_KEPT);
      const settleSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const oldest = DATES[0];
      const newest = DATES[DATES.length - 1];
      const rowsIn = (d: string) => rowsOf(data[DATES.indexOf(d)]).length;
      const sessionBytes = (prefix: string, d: string) => bytesOf(redis, `${prefix}:${view}:v1:*:${d}:*`);
      results[view] = {
        rows,
        hotRowsPerSecond: Math.round(rows / hotSeconds),
        tieredRowsPerSecond: Math.round(rows / tieredSeconds),
        moveCostPercent: Number((((tieredSeconds + settleSeconds) / hotSeconds - 1) * 100).toFixed(1)),
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
    const q = (
      sessions: string[],
      hints: OrderFlowHints,
      predicate: (r: OrderFlowRow) => boolean,
      field: 'TRADE_TIME' | 'PREMIUM',
    ): OrderFlowPageQuery<OrderFlowRow> => ({
      view: ORDER_FLOW_PRINTS_VIEW,
      version: 1,
      sessions,
      window: null,
      predicate,
      hints,
      sort: { field, descending: true, value: (r) => (field === 'PREMIUM' ? r.premium : r.tradeTime) },
      after: null,
      size: 50,
    });
    const cases = {
      'one ticker, newest 50': q([DATES[0]], { tickers: [ticker] }, (r) => r.ticker === ticker, 'TRADE_TIME'),
      'premium >= $1M by premium, 50': q([DATES[0]], { ranges: { PREMIUM: [1_000_000, null] } }, (r) => r.premium >= 1_000_000, 'PREMIUM'),
      'every row, newest 50': q([DATES[0]], {}, () => true, 'TRADE_TIME'),
    };
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
    const stats = {
      ...q(DATES, { contractTypes: ['PUT'], ranges: { PREMIUM: [100_000, null] } }, (r) => r.contractType === 'PUT' && r.premium >= 100_000, 'TRADE_TIME'),
    };
    latency[`statistics over ${SESSIONS} sessions (puts, premium >= $100k)`] = {
      tieredMicros: await median(10, () => readOrderFlowStatistics(redis, 'tiered', stats)),
      hotMicros: await median(10, () => readOrderFlowStatistics(redis, 'hot', stats)),
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
