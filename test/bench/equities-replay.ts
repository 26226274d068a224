/**
 * Replay cost of the equities projections that keep minute cells (a script, not a test):
 * `npx tsx test/bench/equities-replay.ts [--runs 3] [--sessions 1] [--only stockPrices]`, against the Redis in
 * VIEWS_REDIS_URL (or redis://127.0.0.1:6379).
 *
 * One dev tick session (its tick and daily tiers: per-second prices, the official open and close,
 * every equity print) is generated in process, then projected with the real stock-prices and
 * dark-pool-levels projections in chunks of 3,000 events per partition, as the projector's
 * default MDQ_PROJECTOR_CHUNK, each chunk's writes applied in one pipeline (a measurement, not the
 * runtime: no offsets, no MULTI, no Kafka fetch or Avro decoding). Per projection and run: the
 * seconds spent (project + apply), the CPU seconds of this process and of the Redis server over
 * them, and the bytes the view's keys take afterwards. On a shared machine the CPU seconds are the
 * figure to compare before and after a layout change (wall time follows the neighbours' load).
 * The equity-print tape is measured beside them for scale (the same topic's other projection).
 * Results are printed and written to test/bench/results/equities-replay.json.
 */
import fs from 'fs';
import path from 'path';
import { parseArgs } from 'util';
import type Redis from 'ioredis';
import { createSingleRedis } from '../../services/redis/client';
import { partitionOf } from '../../services/kafka/partition';
import { PartitionKeys } from '../../services/views/keys';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { marketFor } from '../../ingest/produce/session-producer';
import { TRADING_DAYS, dayIndex } from '../../ingest/simulator/market';
import type { SimEvent } from '../../ingest/simulator/events';
import type { SessionGenerator } from '../../ingest/simulator/session';
import { darkPoolLevelsProjection } from '../../projections/equities/dark-pool-levels';
import { equityPrintsProjection } from '../../projections/equities/equity-prints';
import { stockPricesProjection } from '../../projections/equities/stock-prices';
import type { Projection, SourceEvent } from '../../projections/runtime/projection';

const CHUNK = 3_000;

const allEvents = (g: SessionGenerator): SimEvent[] => {
  const out: SimEvent[] = [];
  for (let k = 0; k < g.chunks; k++) for (const e of g.chunk(k)) out.push(e);
  return out;
};

/** Projects `events` into `prefix`; seconds spent and the bytes of the keys written (then deleted). */
/** Seconds of CPU the Redis server has used (user + system). */
async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const f = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)![1]);
  return f('used_cpu_user') + f('used_cpu_sys');
}

async function replay(
  redis: Redis,
  prefix: string,
  projection: Projection,
  events: SimEvent[],
): Promise<{ seconds: number; cpuSeconds: number; bytes: number; keys: number }> {
  const byPartition = new Map<number, SourceEvent[]>();
  for (const e of events) {
    const p = partitionOf(String(e.data.ticker), MARKET_PARTITIONS);
    if (!byPartition.has(p)) byPartition.set(p, []);
    byPartition.get(p)!.push({ topic: 'x', partition: p, offset: 0, key: String(e.data.ticker), value: e.data });
  }
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const redis0 = await redisCpu(redis);
  for (const [p, list] of byPartition) {
    for (let i = 0; i < list.length; i += CHUNK) {
      const ops = await projection.project(list.slice(i, i + CHUNK), new PartitionKeys(prefix, projection.view, 1, p), redis);
      const pipe = redis.pipeline();
      for (const [cmd, key, ...args] of ops) pipe.call(cmd, key, ...args);
      await pipe.exec();
    }
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6 + (await redisCpu(redis)) - redis0;
  let bytes = 0;
  let keys = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const k of batch) {
      bytes += (await redis.memory('USAGE', k, 'SAMPLES', '0')) ?? 0;
      keys++;
    }
    if (batch.length) await redis.unlink(...batch);
  } while (cursor !== '0');
  return { seconds, cpuSeconds, bytes, keys };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '3' }, sessions: { type: 'string', default: '1' }, only: { type: 'string' } },
  });
  const runs = Number(values.runs);
  const redis = createSingleRedis(process.env.VIEWS_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const market = marketFor(42, 'dev');
  const end = dayIndex('2026-11-19') - 1;
  const events: SimEvent[] = [];
  for (let i = end - Number(values.sessions) + 1; i <= end; i++)
    for (const e of [...allEvents(market.session(TRADING_DAYS[i], 'daily')), ...allEvents(market.session(TRADING_DAYS[i], 'tick'))].sort(
      (a, b) => a.time - b.time,
    ))
      events.push(e);
  const prices = events.filter((e) => e.type === 'underlying-price');
  const prints = events.filter((e) => e.type === 'equity-print');
  const results: Record<string, unknown> = { priceEvents: prices.length, equityPrints: prints.length };
  console.log(results);
  for (const [name, projection, input] of [
    ['stockPrices', stockPricesProjection, prices],
    ['darkPoolLevels', darkPoolLevelsProjection, prints],
    ['equityPrints', equityPrintsProjection, prints],
  ] as const) {
    if (values.only && !name.toLowerCase().includes(values.only.toLowerCase())) continue;
    const seconds: number[] = [];
    const cpuSeconds: number[] = [];
    let bytes = 0;
    let keys = 0;
    for (let r = 0; r < runs; r++) {
      const m = await replay(redis, `benchr${Date.now().toString(36)}`, projection, input);
      seconds.push(Number(m.seconds.toFixed(3)));
      cpuSeconds.push(Number(m.cpuSeconds.toFixed(3)));
      bytes = m.bytes;
      keys = m.keys;
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    results[name] = { seconds, cpuSeconds, medianSeconds: median(seconds), medianCpuSeconds: median(cpuSeconds), bytes, keys };
    console.log(name, results[name]);
  }
  redis.disconnect();
  const out = path.join(__dirname, 'results', 'equities-replay.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ measuredAt: new Date().toISOString(), ...results }, null, 2) + '\n');
  console.log(`written to ${path.relative(process.cwd(), out)}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
