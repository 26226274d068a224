import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type Redis from 'ioredis';
import { MARKET_PARTITIONS, topicFor } from '../../schemas/catalog';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { settleWarmTier } from '../../projections/runtime/warm-tier';
import type { Projection } from '../../projections/runtime/projection';
import { PartitionKeys } from '../../services/views/keys';
import { isConsolidatedRow, type ConsolidatedTradeEvent, type EnrichedPrintEvent } from '../../services/domain/order-flow';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { PROFILES } from '../../ingest/simulator/profiles';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW, orderFlowLayout, type OrderFlowRow } from '../../services/views/order-flow';
import { keysMatching } from '../support/redis-keys';
import { readOrderFlowPage, readOrderFlowStatistics } from '../../api/views/order-flow';
import { applyMicros, bytesOf, median, privateRedisServer, projectInChunks, usedMemory } from '../support/bench-redis';
import { SampleFold, sampleOpenInterest, sampleSymbols } from '../support/order-flow-sample';
import { orderFlowPageCases, orderFlowStatisticsCase } from '../support/order-flow-read-cases';

/**
 * The order-flow tiers at the `full` scale (issue 35, item 4):
 * `npx tsx test/bench/warm-tier-full.ts [--sessions 2] [--move-last] [--every 1] [--limit N]`.
 *
 * Starts its own redis-server and streams `--sessions` consecutive sessions of the `full` market
 * (every symbol, or every `--every`-th; at most `--limit` prints a session) through the
 * processor's own fold, projecting both order-flow views with the projections' own code and the
 * runtime's atomic apply. Each session is projected hot, its MEMORY USAGE taken per view, then
 * moved to the warm tier on its own (settleWarmTier: the projection's own move, one transaction
 * per partition), timed, and measured again; the newest session stays hot (with `--move-last`,
 * it moves too, once its hot reads are timed, so that one session is read in both tiers). Only
 * one session is hot at a time: five hot `full` sessions (7–10 GB each) do not fit this
 * machine's 24 GB. Reads: first pages of the newest session hot and of the newest warm session,
 * and statistics by scan and from the counters.
 * Results: test/bench/results/warm-tier-full[-NAME].json (`--label NAME`); `--save FILE.rdb` keeps the
 * data set, and `--load FILE.rdb` times the reads of its newest session again (and statistics over
 * 30 sessions, its counters copied), without projecting.
 */

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const labelAt = process.argv.indexOf('--label');
const LABEL = labelAt > 0 ? `-${process.argv[labelAt + 1]}` : '';
const SESSIONS = arg('sessions', 2);
const EVERY = arg('every', 1);
const LIMIT = arg('limit', Infinity);
/** Where to save the Redis data set at the end (an RDB file), to profile reads without projecting again. */
const SAVE_AT = process.argv.indexOf('--save') > 0 ? path.resolve(process.argv[process.argv.indexOf('--save') + 1]) : null;
/** A data set saved with --save to read again instead of projecting (`--load FILE.rdb`). */
const LOAD_FROM = process.argv.indexOf('--load') > 0 ? path.resolve(process.argv[process.argv.indexOf('--load') + 1]) : null;
/** Move the newest session too, once its hot reads are timed, so that the same session is read in both tiers. */
const MOVE_LAST = process.argv.includes('--move-last');
/** Events projected per call (about 500 a partition, the projector's chunk). */
const BATCH = 500 * MARKET_PARTITIONS;
const DATES = ['2024-05-01', '2024-05-02', '2024-05-03', '2024-05-06', '2024-05-07', '2024-05-08'].slice(0, SESSIONS);
const OI = topicFor('open-interest')!.name;
const VIEWS: [string, Projection][] = [
  [ORDER_FLOW_PRINTS_VIEW, orderFlowPrintsProjection],
  [ORDER_FLOW_CONSOLIDATED_VIEW, orderFlowConsolidatedProjection],
];

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const mib = (b: number) => Number((b / 2 ** 20).toFixed(1));

/** Streams a session's prints into both views; the work per view (CPU and Redis EXEC seconds). */
async function projectSession(redis: Redis, fold: SampleFold, market: SimulatedMarket, date: string, symbols: Set<string>) {
  const openInterest = sampleOpenInterest(market, date, symbols);
  for (const [, projection] of VIEWS) await projectInChunks(redis, projection, OI, openInterest);
  const cost = { folds: 0, prints: { cpu: 0, redis: 0 }, consolidated: { cpu: 0, redis: 0 } };
  let prints: EnrichedPrintEvent[] = [];
  // The consolidated view gets each group's latest version per batch, as the projector's
  // coalescing would: a group's versions within one chunk end in its last.
  let consolidated = new Map<string, ConsolidatedTradeEvent>();
  let rows = 0;
  const consolidatedRows = new Set<string>();
  const perTicker = new Map<string, number>();
  const flush = async () => {
    for (const [name, events] of [
      ['prints', prints],
      ['consolidated', [...consolidated.values()]],
    ] as const) {
      const [c0, r0] = [cpu(), await applyMicros(redis)];
      const projection = name === 'prints' ? orderFlowPrintsProjection : orderFlowConsolidatedProjection;
      await projectInChunks(redis, projection, projection.topics[0].name, events);
      cost[name].cpu += cpu() - c0;
      cost[name].redis += ((await applyMicros(redis)) - r0) / 1e6;
    }
    prints = [];
    consolidated = new Map();
  };
  const c0 = cpu();
  for (const out of fold.session(date, symbols, LIMIT)) {
    prints.push(out.enriched);
    perTicker.set(out.enriched.ticker, (perTicker.get(out.enriched.ticker) ?? 0) + 1);
    rows++;
    if (isConsolidatedRow(out.consolidated.tradeConsolidationType)) {
      consolidated.set(out.consolidated.rowKey, out.consolidated);
      consolidatedRows.add(out.consolidated.rowKey);
    }
    if (prints.length >= BATCH) {
      await flush();
      if (rows % 500_000 < BATCH) console.log(`${date}: ${rows} prints`, new Date().toISOString());
    }
  }
  await flush();
  // What is left of this process's CPU is the simulator's and the processor's fold.
  cost.folds = cpu() - c0 - cost.prints.cpu - cost.consolidated.cpu;
  // Tickers by prints, busiest first (the reads take the busiest and a middling one).
  const tickers = [...perTicker].sort((a, b) => b[1] - a[1]);
  return { rows, consolidatedRows: consolidatedRows.size, contracts: openInterest.length, tickers: tickers.length, cost, tickersByPrints: tickers };
}

/** Moves every session of a view but the newest `hot` to the warm tier; wall seconds of the longest partition's move (its transaction). */
async function moveOlder(redis: Redis, view: string, hot: number) {
  const [t0, c0, r0] = [process.hrtime.bigint(), cpu(), await applyMicros(redis)];
  // The longest the move held the event loop (other partitions' chunks, Kafka heartbeats wait that long).
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let longest = 0;
  for (let p = 0; p < MARKET_PARTITIONS; p++) {
    const t = process.hrtime.bigint();
    await settleWarmTier(redis, orderFlowLayout(view), new PartitionKeys('mdq', view, 1, p), hot);
    longest = Math.max(longest, Number(process.hrtime.bigint() - t) / 1e9);
  }
  loop.disable();
  return {
    seconds: Number(process.hrtime.bigint() - t0) / 1e9,
    cpu: cpu() - c0,
    redis: ((await applyMicros(redis)) - r0) / 1e6,
    longestPartitionSeconds: longest,
    longestEventLoopBlockMs: Math.round(loop.max / 1e6),
  };
}

/** First read and median of repeated reads (µs) of the page cases on one session, for the busiest ticker and a middling one. */
async function timePages(redis: Redis, session: string, tickers: [string, number][]) {
  const out: Record<string, { rows: number; firstMicros: number; micros: number }> = {};
  for (const [ticker, prints] of [tickers[0], tickers[Math.floor(tickers.length / 2)]]) {
    for (const [name, query] of Object.entries(orderFlowPageCases(session, ticker))) {
      if (ticker !== tickers[0][0] && name !== 'one ticker, newest 50') continue;
      const cold = process.hrtime.bigint();
      const first = await readOrderFlowPage(redis, 'mdq', query);
      out[name.replace('one ticker', `${ticker} (${prints} prints)`)] = {
        rows: first.rows.length,
        firstMicros: Math.round(Number(process.hrtime.bigint() - cold) / 1e3),
        micros: await median(15, () => readOrderFlowPage(redis, 'mdq', query)),
      };
    }
  }
  return out;
}

/** Statistics over sessions by scan and from the combination counters (`sc`), as the tape answers such a filter (µs). */
async function timeStatistics(redis: Redis, sessions: string[]) {
  return {
    sessions: sessions.length,
    scanMicros: await median(3, () => readOrderFlowStatistics(redis, 'mdq', orderFlowStatisticsCase(sessions))),
    countersMicros: await median(3, () => readOrderFlowStatistics(redis, 'mdq', { ...orderFlowStatisticsCase(sessions), countersFilter: true })),
  };
}

/**
 * `--load FILE.rdb`: the reads of the newest session of a data set saved with --save (pages and
 * statistics, in whichever tier it was saved), and statistics over 30 sessions from the counters:
 * the session's counter hashes copied under 29 earlier dates (the counters' size, not the rows',
 * is what such a read pays; 30 `full` sessions of rows do not fit this machine).
 */
async function readSaved(file: string): Promise<void> {
  const { redis, server } = await privateRedisServer(['--dir', path.dirname(file), '--dbfilename', path.basename(file)]);
  try {
    while ((await redis.info('persistence')).includes('loading:1')) await new Promise((r) => setTimeout(r, 250));
    const pk = (p: number) => new PartitionKeys('mdq', ORDER_FLOW_PRINTS_VIEW, 1, p);
    const session = (await redis.zrange(pk(0).key('s'), -1, -1))[0];
    if (!session) throw new Error(`${file} holds no order-flow session`);
    // Prints per ticker from the tickers' counters (the `n` fields of `sc:<TICKER>`).
    const counterKeys = (await keysMatching(redis, `mdq:${ORDER_FLOW_PRINTS_VIEW}:v1:*:${session}:s*`)).filter((k) => /:(st|stt|sc)(:[^:]+)?$/.test(k));
    const tickers: [string, number][] = [];
    for (const key of counterKeys.filter((k) => k.includes(':sc:'))) {
      const flat = (await redis.call('HGETALL', key)) as string[];
      let n = 0;
      for (let i = 0; i < flat.length; i += 2) if (flat[i].endsWith('n')) n += Number(flat[i + 1]);
      tickers.push([key.slice(key.lastIndexOf(':') + 1), n]);
    }
    tickers.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const warm = (await redis.hget(pk(0).key('tier'), `w:${session}`)) !== null;
    const reads: Record<string, unknown> = {
      session,
      tier: warm ? 'warm' : 'hot',
      pages: await timePages(redis, session, tickers),
      statistics: await timeStatistics(redis, [session]),
    };
    // 29 earlier sessions with the same counters (and tier), then statistics over all 30.
    const copies = Array.from({ length: 29 }, (_, i) => `2024-03-${String(i + 1).padStart(2, '0')}`);
    const tiers = await Promise.all(Array.from({ length: MARKET_PARTITIONS }, (_, p) => redis.hget(pk(p).key('tier'), `w:${session}`)));
    for (const d of copies) {
      const pipe = redis.pipeline();
      for (const key of counterKeys) pipe.copy(key, key.replace(`:${session}:`, `:${d}:`), 'REPLACE');
      for (let p = 0; p < MARKET_PARTITIONS; p++) {
        pipe.zadd(pk(p).key('s'), 0, d);
        if (warm) pipe.hset(pk(p).key('tier'), `w:${d}`, tiers[p] ?? '0');
      }
      await pipe.exec();
    }
    const thirty = [...copies, session];
    const counted = (tickers?: string[]) => {
      const c = orderFlowStatisticsCase(thirty);
      return {
        ...c,
        countersFilter: true,
        ...(tickers ? { hints: { ...c.hints, tickers }, predicate: (r: OrderFlowRow) => tickers.includes(r.ticker) && c.predicate(r) } : {}),
      };
    };
    reads.statistics30 = {
      sessions: thirty.length,
      countersMicros: await median(9, () => readOrderFlowStatistics(redis, 'mdq', counted())),
      [`${tickers[0][0]} countersMicros`]: await median(9, () => readOrderFlowStatistics(redis, 'mdq', counted([tickers[0][0]]))),
    };
    console.log(JSON.stringify(reads, null, 2));
    fs.writeFileSync(path.join(__dirname, 'results', `warm-tier-full-saved${LABEL}.json`), JSON.stringify(reads, null, 2) + '\n');
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  if (LOAD_FROM) return readSaved(LOAD_FROM);
  if (SAVE_AT) fs.rmSync(SAVE_AT, { force: true });
  const { redis, server } = await privateRedisServer(SAVE_AT ? ['--dir', path.dirname(SAVE_AT), '--dbfilename', path.basename(SAVE_AT)] : []);
  try {
    const market = new SimulatedMarket(42, PROFILES.full);
    const symbols = sampleSymbols(market, EVERY);
    const fold = new SampleFold(market);
    const sessions: Record<string, unknown>[] = [];
    const latency: Record<string, unknown> = {};
    let busiest: [string, number][] = [];
    for (const [i, date] of DATES.entries()) {
      const last = i === DATES.length - 1;
      const t0 = process.hrtime.bigint();
      const { tickersByPrints, ...projected } = await projectSession(redis, fold, market, date, symbols);
      busiest = tickersByPrints;
      const entry: Record<string, unknown> = { date, ...projected, projectSeconds: Number(process.hrtime.bigint() - t0) / 1e9 };
      const rowsOf = (view: string) => (view === ORDER_FLOW_PRINTS_VIEW ? projected.rows : projected.consolidatedRows);
      for (const [view] of VIEWS) {
        const hotBytes = await bytesOf(redis, `mdq:${view}:v1:*:${date}:*`);
        entry[view] = { hotMiB: mib(hotBytes), hotBytesPerRow: Math.round(hotBytes / rowsOf(view)) };
      }
      entry.usedMemoryMiBHot = mib(await usedMemory(redis));
      // Reads of the newest session while it is hot (and, with --move-last, once it is warm).
      if (last) latency.hot = { session: date, pages: await timePages(redis, date, busiest), statistics: await timeStatistics(redis, [date]) };
      if (!last || MOVE_LAST) {
        for (const [view] of VIEWS) {
          const move = await moveOlder(redis, view, 0);
          const warmBytes = await bytesOf(redis, `mdq:${view}:v1:*:${date}:*`);
          const v = entry[view] as Record<string, unknown>;
          Object.assign(v, {
            warmMiB: mib(warmBytes),
            warmBytesPerRow: Math.round(warmBytes / rowsOf(view)),
            move: {
              ...move,
              cpuMicrosPerRow: Number(((move.cpu / rowsOf(view)) * 1e6).toFixed(1)),
              redisMicrosPerRow: Number(((move.redis / rowsOf(view)) * 1e6).toFixed(1)),
            },
            projection: view === ORDER_FLOW_PRINTS_VIEW ? projected.cost.prints : projected.cost.consolidated,
          });
        }
        entry.usedMemoryMiBWarm = mib(await usedMemory(redis));
      }
      sessions.push(entry);
      console.log(JSON.stringify(entry));
    }

    // Reads of the newest warm session: the same session as the hot reads with --move-last,
    // else the one before it (another session of the same market).
    const warmSessions = MOVE_LAST ? DATES : DATES.slice(0, -1);
    const warm = warmSessions[warmSessions.length - 1];
    latency.warm = { session: warm, pages: await timePages(redis, warm, busiest), statistics: await timeStatistics(redis, warmSessions) };
    console.log(JSON.stringify(latency, null, 2));
    const results = { sessions, every: EVERY, limit: LIMIT === Infinity ? null : LIMIT, latency };
    fs.writeFileSync(path.join(__dirname, 'results', `warm-tier-full${LABEL}.json`), JSON.stringify(results, null, 2) + '\n');
    if (SAVE_AT) await redis.save();
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
