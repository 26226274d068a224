import type Redis from 'ioredis';
import { MARKET_PARTITIONS, topicFor } from '../../schemas/catalog';
import { flowAggregatesProjection } from '../../projections/flow-aggregates/projection';
import { cubeMover } from '../../projections/flow-aggregates/warm-tier';
import { settleWarmTier } from '../../projections/runtime/warm-tier';
import { PartitionKeys } from '../../services/views/keys';
import { FLOW_AGGREGATES_VIEW, NET_FIELDS, TICKER_NET_FIELDS, CUBE_FIELDS, EXCHANGE_FIELDS, cubeGroupsKey } from '../../services/views/flow-aggregates';
import * as tiers from '../../api/views/flow-aggregates/tiers';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { PROFILES } from '../../ingest/simulator/profiles';
import { readFlowCells, type FlowQuery } from '../../api/views/flow-aggregates/reader';
import { benchWithRedis, bytesOf, median, projectInChunks } from '../support/bench-redis';
import { SampleFold, orderFlowSample } from '../support/order-flow-sample';

/**
 * The flow-aggregates cube's warm tier beside the same sessions kept hot:
 * `npx tsx test/bench/flow-cube-warm-tier.ts [--sessions 4] [--rows 30000] [--dev]`.
 *
 * Starts its own redis-server, samples `--rows` option prints per session of the `full` market
 * (every 8th symbol; test/support/order-flow-sample.ts), or with `--dev` the first `--rows` of
 * every symbol of the `dev` market `npm start` simulates, for `--sessions` sessions, and projects
 * the cube with its own code twice: into `hot` with every session kept hot, and into `tiered`
 * keeping the newest one (the older ones move inside the projection; the last move by
 * settleWarmTier). Reports projection prints/s of both (the move's cost is the difference, in
 * wall time and in this process's CPU time),
 * MEMORY USAGE per print of a hot and of a warm session (the warm groups' bytes by key kind too),
 * and the cube reads of four aggregations
 * over a warm and a hot session (µs): the first read of each warm session (nothing decoded yet in
 * this process), the median of repeated reads (decoded groups cached) and the hot median.
 * Results: test/bench/results/flow-cube-warm-tier[-dev].json.
 */

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const SESSIONS = arg('sessions', 4);
const DEV = process.argv.includes('--dev');
const ROWS = arg('rows', 30_000);
const DATES = ['2024-05-01', '2024-05-02', '2024-05-03', '2024-05-06', '2024-05-07', '2024-05-08', '2024-05-09', '2024-05-10'].slice(0, SESSIONS);
const TOPIC = topicFor('enriched-print')!.name;
const V = 1;

/** The stored bytes of a warm session's groups per print, by the kind of key they hold (cm, o, ...). */
async function groupBytesByKind(redis: Redis, d: string, prints: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (let p = 0; p < MARKET_PARTITIONS; p++) {
    const groups = await redis.hgetallBuffer(cubeGroupsKey(new PartitionKeys('tiered', FLOW_AGGREGATES_VIEW, V, p), d));
    for (const [id, body] of Object.entries(groups)) {
      const kind = id.split(':')[0];
      out[kind] = (out[kind] ?? 0) + body.length;
    }
  }
  return Object.fromEntries(
    Object.entries(out)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => [k, Number((n / prints).toFixed(1))]),
  );
}

/** The first ROWS option prints of each session of the `dev` market, every symbol (what `npm start` produces). */
function devSample() {
  const market = new SimulatedMarket(42, PROFILES.dev);
  const symbols = new Set(market.instruments.map((i) => i.symbol));
  const fold = new SampleFold(market);
  return DATES.map((d) => [...fold.session(d, symbols, ROWS)].map((o) => o.enriched));
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - t0) / 1e3;
}

async function main(): Promise<void> {
  await benchWithRedis(`flow-cube-warm-tier${DEV ? '-dev' : ''}`, async (redis) => {
    const data = DEV ? devSample() : DATES.map((d) => orderFlowSample(ROWS, d).prints);
    const prints = data.reduce((n, d) => n + d.length, 0);
    const results: Record<string, unknown> = {
      market: DEV ? 'dev, every symbol' : 'full, every 8th symbol',
      sessions: SESSIONS,
      printsPerSession: data.map((d) => d.length),
      hotSessionsKept: 1,
    };
    // Wall time, and this process's CPU time (less disturbed by the other work of a shared machine).
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    };
    const project = async (prefix: string) => {
      const [t0, c0] = [process.hrtime.bigint(), cpu()];
      for (const d of data) await projectInChunks(redis, flowAggregatesProjection, TOPIC, d, prefix);
      return [Number(process.hrtime.bigint() - t0) / 1e9, cpu() - c0];
    };
    process.env.MDQ_WARM_QUIET_MESSAGES = '0';
    process.env.MDQ_HOT_SESSIONS = '1000';
    // A first pass warms the JIT up, which would otherwise count against whichever run comes first.
    await project('warmup');
    const [hotSeconds, hotCpu] = await project('hot');
    process.env.MDQ_HOT_SESSIONS = '1';
    // The move's own work in this process, timed around the mover (reading and packing a session;
    // Redis applies the ops in its own process): less exposed to a shared machine than the difference.
    const freeze = cubeMover.freezeOps;
    let freezeCpu = 0;
    let freezeSeconds = 0;
    cubeMover.freezeOps = async (...args) => {
      const [t0, c0] = [process.hrtime.bigint(), cpu()];
      try {
        return await freeze.apply(cubeMover, args);
      } finally {
        freezeCpu += cpu() - c0;
        freezeSeconds += Number(process.hrtime.bigint() - t0) / 1e9;
      }
    };
    const [tieredSeconds, tieredCpu] = await project('tiered');
    const [t0, c0] = [process.hrtime.bigint(), cpu()];
    for (let p = 0; p < MARKET_PARTITIONS; p++) await settleWarmTier(redis, cubeMover, new PartitionKeys('tiered', FLOW_AGGREGATES_VIEW, V, p), 1);
    const settleSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const settleCpu = cpu() - c0;
    const frozenShare = data.slice(0, -1).reduce((n, d) => n + d.length, 0) / prints;
    const oldest = DATES[0];
    const session = (prefix: string, d: string) => bytesOf(redis, `${prefix}:${FLOW_AGGREGATES_VIEW}:v${V}:*:${d}:*`);
    const tierHash = await bytesOf(redis, `tiered:${FLOW_AGGREGATES_VIEW}:v${V}:*:tier`);
    results.projection = {
      hotPrintsPerSecond: Math.round(prints / hotSeconds),
      tieredPrintsPerSecond: Math.round(prints / tieredSeconds),
      moveCostPercent: Number((((tieredSeconds + settleSeconds) / hotSeconds - 1) * 100).toFixed(1)),
      moveCostPercentOfProjectorCpu: Number((((tieredCpu + settleCpu) / hotCpu - 1) * 100).toFixed(1)),
      // The sessions moved against their share of the hot projection's CPU and wall time.
      freezeCpuPercentOfMovedSessionsProjection: Number(((freezeCpu / (hotCpu * frozenShare)) * 100).toFixed(1)),
      freezeWallPercentOfMovedSessionsProjection: Number(((freezeSeconds / (hotSeconds * frozenShare)) * 100).toFixed(1)),
    };
    cubeMover.freezeOps = freeze;
    const hotBytes = await session('hot', oldest);
    // A warm session: its groups, its underlyings' list (kept as it is) and its share of the tier hashes.
    const warmBytes = (await session('tiered', oldest)) + tierHash / (SESSIONS - 1);
    results.bytesPerPrint = {
      hotSession: Math.round(hotBytes / data[0].length),
      warmSession: Number((warmBytes / data[0].length).toFixed(1)),
      warmGroupsOnly: Number(((await bytesOf(redis, `tiered:${FLOW_AGGREGATES_VIEW}:v${V}:*:${oldest}:wc`)) / data[0].length).toFixed(1)),
      newestStillHot: Math.round((await session('tiered', DATES[DATES.length - 1])) / data[DATES.length - 1].length),
      reduction: Number((hotBytes / warmBytes).toFixed(1)),
      warmGroupsByKind: await groupBytesByKind(redis, oldest, data[0].length),
    };
    console.log(JSON.stringify(results, null, 2));

    // Reads: the cube reads of three aggregations, each session alone.
    const busiest = [...data[0].reduce((m, p) => m.set(p.ticker, (m.get(p.ticker) ?? 0) + 1), new Map<string, number>())].sort((a, b) => b[1] - a[1])[0][0];
    const q = (d: string | string[], needs: ReadonlySet<string>, tickers?: string[]): FlowQuery => ({
      cubeVersion: V,
      printsVersion: null,
      sessions: Array.isArray(d) ? d : [d],
      window: null,
      tickers,
      predicate: () => true,
      cubeOnly: true,
      needs,
      hints: {},
    });
    const warm = DATES.slice(0, -1);
    const byMoney = new Set([...NET_FIELDS, 'MONEY_TYPE']);
    const byExchange = new Set([...NET_FIELDS, 'EXCHANGE']);
    const cases: Record<string, [(d: string) => FlowQuery, boolean]> = {
      'gainers-losers (ticker-net session cells, every underlying)': [(d) => q(d, TICKER_NET_FIELDS), false],
      [`net-flow of ${busiest} by minute (ticker-net minute cells)`]: [(d) => q(d, TICKER_NET_FIELDS, [busiest]), true],
      'net-flow of the market by minute (net minute cells)': [(d) => q(d, NET_FIELDS), true],
      [`contract statistics of ${busiest} (contract session cells)`]: [(d) => q(d, CUBE_FIELDS, [busiest]), false],
      [`net-flow of ${busiest} by minute and money type (coarse minute cells)`]: [(d) => q(d, byMoney, [busiest]), true],
      'net-flow of the market by minute of one exchange (market coarse minute cells)': [(d) => q(d, byExchange), true],
      'market-share (exchange session cells)': [(d) => q(d, EXCHANGE_FIELDS), false],
      [`net-flow of ${busiest} by minute over the ${warm.length} warm sessions (ticker-net minute cells)`]: [
        (d) => q(d === oldest ? warm : d, TICKER_NET_FIELDS, [busiest]),
        true,
      ],
      [`net-flow of ${busiest} by day over the ${warm.length} warm sessions (ticker-net session cells)`]: [
        (d) => q(d === oldest ? warm : d, TICKER_NET_FIELDS, [busiest]),
        false,
      ],
      [`net-flow of the market by day over the ${warm.length} warm sessions (net session cells)`]: [(d) => q(d === oldest ? warm : d, NET_FIELDS), false],
    };
    const latency: Record<string, unknown> = {};
    // Exported by builds whose API process caches derived keys too; a first read then starts from nothing cached.
    const clear = (tiers as { clearCubeCaches?: () => void }).clearCubeCaches ?? (() => undefined);
    for (const [name, [query, minutes]] of Object.entries(cases)) {
      const first: number[] = [];
      for (const d of name.includes('warm sessions') ? [oldest] : warm) {
        clear();
        first.push(await timed(() => readFlowCells(redis, 'tiered', query(d), minutes)));
      }
      first.sort((a, b) => a - b);
      const sorted = async (prefix: string) => (await readFlowCells(redis, prefix, query(oldest), minutes)).map((c) => JSON.stringify(c)).sort();
      const got = await sorted('tiered');
      const cells = got.length;
      if (JSON.stringify(got) !== JSON.stringify(await sorted('hot'))) throw new Error(`${name}: the tiers differ`);
      latency[name] = {
        cells,
        warmFirstReadMicros: Math.round(first[Math.floor(first.length / 2)]),
        warmCachedMicros: await median(100, () => readFlowCells(redis, 'tiered', query(oldest), minutes)),
        hotMicros: await median(100, () => readFlowCells(redis, 'hot', query(oldest), minutes)),
      };
    }
    results.latency = latency;
    console.log(JSON.stringify(latency, null, 2));
    return results;
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
