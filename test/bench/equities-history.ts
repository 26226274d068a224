/**
 * What the equities views cost (a script, not a test): `npx tsx test/bench/equities-history.ts
 * [--sessions 40]`, against the stack in KAFKA_BROKERS / SCHEMA_REGISTRY_URL / VIEWS_REDIS_URL.
 *
 *  1. Daily-level backfill of `--sessions` dev sessions into Kafka (fresh topic prefix, deleted at
 *     the end) without and with the off-exchange history sample (darkPoolSampleMinutes), on
 *     different dates: seconds and events, extrapolated to npm start's 400 sessions.
 *  2. Views' Redis memory: the dark-pool levels of 30 dev history sessions (their samples), and the
 *     equity-print tape, dark-pool levels and stock prices of one dev tick session, projected with the real
 *     projections into a scratch key prefix (MEMORY USAGE of every key), then deleted.
 * Results are printed and written to test/bench/results/equities-history.json.
 */
import fs from 'fs';
import path from 'path';
import { parseArgs } from 'util';
import type Redis from 'ioredis';
import { loadConfig } from '../../services/config';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { provisionTopicsAndSchemas } from '../../services/kafka/provision';
import { createSingleRedis } from '../../services/redis/client';
import { partitionOf } from '../../services/kafka/partition';
import { PartitionKeys } from '../../services/views/keys';
import { MARKET_PARTITIONS, TOPICS, topicName } from '../../schemas/catalog';
import { ProgressTracker } from '../../ingest/produce/progress';
import { marketFor, produceSession } from '../../ingest/produce/session-producer';
import { TRADING_DAYS, dayIndex } from '../../ingest/simulator/market';
import { PROFILES } from '../../ingest/simulator/profiles';
import type { SimEvent } from '../../ingest/simulator/events';
import type { SessionGenerator } from '../../ingest/simulator/session';
import { darkPoolLevelsProjection } from '../../projections/equities/dark-pool-levels';
import { equityPrintsProjection } from '../../projections/equities/equity-prints';
import { stockPricesProjection } from '../../projections/equities/stock-prices';
import type { Projection, SourceEvent } from '../../projections/runtime/projection';

const allEvents = (g: SessionGenerator): SimEvent[] => {
  const out: SimEvent[] = [];
  for (let k = 0; k < g.chunks; k++) out.push(...g.chunk(k));
  return out;
};

/** Projects the events with `projection` into `prefix` (plain pipelines: a measurement, not the runtime) and returns the bytes its keys take. */
async function projectAndMeasure(redis: Redis, prefix: string, projection: Projection, events: SimEvent[]): Promise<{ bytes: number; keys: number }> {
  const byPartition = new Map<number, SourceEvent[]>();
  for (const e of events) {
    const p = partitionOf(String(e.data.ticker), MARKET_PARTITIONS);
    if (!byPartition.has(p)) byPartition.set(p, []);
    byPartition.get(p)!.push({ topic: 'x', partition: p, offset: 0, key: String(e.data.ticker), value: e.data });
  }
  for (const [p, list] of byPartition) {
    for (let i = 0; i < list.length; i += 3_000) {
      const ops = await projection.project(list.slice(i, i + 3_000), new PartitionKeys(prefix, projection.view, 1, p), redis);
      const pipe = redis.pipeline();
      for (const [cmd, key, ...args] of ops) pipe.call(cmd, key, ...args);
      await pipe.exec();
    }
  }
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
  return { bytes, keys };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sessions: { type: 'string', default: '40' } } });
  const n = Number(values.sessions);
  const prefix = `benchq${Date.now().toString(36)}`;
  const config = { ...loadConfig(process.env), topicPrefix: `${prefix}.`, logLevel: 'warn' as const };
  const results: Record<string, unknown> = {};
  const log = (k: string, v: unknown) => {
    results[k] = v;
    console.log(`${k}: ${typeof v === 'number' ? v.toLocaleString('en-US') : JSON.stringify(v)}`);
  };

  // 1. Daily backfill without, then with, the sample.
  await provisionTopicsAndSchemas(config);
  const kafka = createKafka(config, 'mdq-bench');
  const registry = createRegistry(config);
  const progress = new ProgressTracker(kafka, registry, config.topicPrefix);
  await progress.start();
  const deps = { config, kafka, registry, topicPrefix: config.topicPrefix, progress };
  const end = dayIndex('2026-11-19') - 1;
  const every = PROFILES.dev.darkPoolSampleMinutes;
  for (const [label, minutes, from] of [
    ['without', 0, end],
    ['with', every, end - n],
  ] as const) {
    PROFILES.dev.darkPoolSampleMinutes = minutes;
    const t0 = Date.now();
    let events = 0;
    for (let i = from; i > from - n; i--) events += (await produceSession(deps, { seed: 42, profile: 'dev', date: TRADING_DAYS[i], level: 'daily' })).events;
    const s = (Date.now() - t0) / 1000;
    log(`daily_${label}Sample_${n}SessionsSeconds`, s);
    log(`daily_${label}Sample_eventsPerSession`, Math.round(events / n));
    log(`daily_${label}Sample_400SessionsSecondsExtrapolated`, Math.round((s / n) * 400));
  }
  PROFILES.dev.darkPoolSampleMinutes = every;
  await progress.stop();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: TOPICS.map((t) => topicName(t, config.topicPrefix)) }).catch(() => {});
  await admin.disconnect();

  // 2. Views' memory.
  const redis = createSingleRedis(config.viewsRedisUrl);
  const market = marketFor(42, 'dev');
  const history: SimEvent[] = [];
  for (let i = end; i > end - 30; i--) history.push(...allEvents(market.session(TRADING_DAYS[i], 'daily')).filter((e) => e.type === 'equity-print'));
  log('historySamplePrints30Sessions', history.length);
  const lv = await projectAndMeasure(redis, `${prefix}lv`, darkPoolLevelsProjection, history);
  log('darkPoolLevels30HistorySessionsBytes', lv.bytes);
  const tickAll = allEvents(market.session(TRADING_DAYS[end], 'tick'));
  const tick = tickAll.filter((e) => e.type === 'equity-print');
  const ticks = [...tickAll, ...allEvents(market.session(TRADING_DAYS[end], 'daily'))].filter((e) => e.type === 'underlying-price');
  log('tickSessionUnderlyingPrices', ticks.length);
  log('stockPricesOneTickSessionBytes', (await projectAndMeasure(redis, `${prefix}px`, stockPricesProjection, ticks)).bytes);
  log('tickSessionEquityPrints', tick.length);
  const tape = await projectAndMeasure(redis, `${prefix}tp`, equityPrintsProjection, tick);
  log('equityPrintsTapeOneTickSessionBytes', tape.bytes);
  log('equityPrintsTapeBytesPerPrint', Math.round(tape.bytes / tick.length));
  const lvTick = await projectAndMeasure(redis, `${prefix}lt`, darkPoolLevelsProjection, tick);
  log('darkPoolLevelsOneTickSessionBytes', lvTick.bytes);
  redis.disconnect();

  const out = path.join(__dirname, 'results', 'equities-history.json');
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
