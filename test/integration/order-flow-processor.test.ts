import type { Admin, Kafka } from 'kafkajs';
import net from 'net';
import { createRedis, scanKeys, unlinkKeys, type RedisClient as Redis } from '../../services/redis/client';
import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { marketFor } from '../../ingest/produce/session-producer';
import type { SimEvent } from '../../ingest/simulator/events';
import { OrderFlowPartition, UNKNOWN_REFERENCE, type ReferenceData } from '../../projections/order-flow-processor/partition-state';
import { processorGroupId } from '../../projections/order-flow-processor/processor';
import { StateStore, stateKeys } from '../../projections/order-flow-processor/state-store';
import { avroTypeOf, topicFor, topicName } from '../../schemas/catalog';
import type { Config } from '../../services/config';
import { rowKeyOf, type ConsolidatedTradeEvent, type EnrichedPrintEvent, type OptionPrint } from '../../services/domain/order-flow';
import { RISK_FREE_RATE } from '../../services/domain/rates';
import { loadUniverse } from '../../services/domain/universe';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { testConfig, waitFor } from '../support/env';
import { type CommittedRecord, readCommittedRecords } from '../support/kafka-count';
import { configEnv, spawnTs, provisionTestTopics } from '../support/pipeline';

/**
 * The order-flow processor as a process against the real stack: the derived topics must equal,
 * message for message and byte for byte, the pure fold (OrderFlowPartition) over the source
 * partitions in offset order — after a clean run, after a SIGKILL mid-stream, after a crash
 * between a Kafka commit and its state write, and after a SIGKILL with the Redis state deleted.
 */

const printSpec = topicFor('option-print')!;
const enrichedSpec = topicFor('enriched-print')!;
const consolidatedSpec = topicFor('consolidated-trade')!;
const MAIN = 'projections/order-flow-processor/main.ts';
// Eight dev-profile symbols on six partitions (a few thousand prints), a second session of one of
// them, and a ticker reference.instruments does not know.
const SYMBOLS = ['SOUN', 'GME', 'JPM', 'XOM', 'MSFT', 'PLTR', 'VIX', 'NVDA'];
const UNKNOWN_TICKER = 'ZZZT';

function sourceEvents(): { instruments: SimEvent[]; prints: SimEvent[] } {
  const market = marketFor(42, 'dev');
  const prints: SimEvent[] = [];
  const take = (date: string, symbols: string[]) => {
    const gen = market.session(date, 'tick', new Set(symbols));
    for (let k = 0; k < gen.chunks; k++) for (const e of gen.chunk(k)) if (e.type === 'option-print') prints.push(e);
  };
  take('2026-11-19', SYMBOLS);
  take('2026-11-20', ['GME']);
  const t0 = Date.UTC(2026, 10, 20, 15, 0);
  for (let i = 0; i < 40; i++) {
    const time = t0 + i * 300; // 300 ms apart: consolidated into a few trades
    const data = {
      id: `ZZZT-${i}`,
      osi: 'ZZZT  261218C00010000',
      ticker: UNKNOWN_TICKER,
      time,
      price: 1.05,
      size: 5 + i,
      exchange: i % 3 ? 'CBOE' : 'ISE',
      conditions: ['AUTO'],
      bidPrice: 1,
      askPrice: 1.05,
      underlyingPrice: 10.2,
    };
    prints.push({ type: 'option-print', time, data });
  }
  const instruments = loadUniverse().map((i) => ({ type: 'instrument' as const, time: 0, data: { ...i } as Record<string, unknown> }));
  return { instruments, prints };
}

const EVENTS = sourceEvents();
const REFERENCE = new Map<string, ReferenceData>(
  loadUniverse().map((i) => [i.symbol, { sector: i.sector, industry: i.industry, isETF: i.isETF, isIndex: i.isIndex }]),
);

interface Expected {
  enriched: Map<number, EnrichedPrintEvent[]>;
  consolidated: Map<number, ConsolidatedTradeEvent[]>;
  states: Map<number, OrderFlowPartition>;
  count: number;
}

/** The pure computation over the source as committed: partition by partition, in offset order. */
function recompute(source: Map<number, CommittedRecord[]>): Expected {
  const printType = avroTypeOf(printSpec);
  const exp: Expected = { enriched: new Map(), consolidated: new Map(), states: new Map(), count: 0 };
  for (const [p, records] of source) {
    const part = new OrderFlowPartition(p, RISK_FREE_RATE);
    const e: EnrichedPrintEvent[] = [];
    const c: ConsolidatedTradeEvent[] = [];
    for (const r of records) {
      const print = printType.fromBuffer(r.value!.subarray(5)) as OptionPrint;
      const out = part.apply(print, r.offset, REFERENCE.get(print.ticker) ?? UNKNOWN_REFERENCE);
      e.push(out.enriched);
      c.push(out.consolidated);
    }
    exp.enriched.set(p, e);
    exp.consolidated.set(p, c);
    exp.states.set(p, part);
    exp.count += records.length;
  }
  return exp;
}

interface Scenario {
  config: Config;
  kafka: Kafka;
  admin: Admin;
  redis: Redis;
  source: Map<number, CommittedRecord[]>;
  expected: Expected;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** Fresh topics and keys; instruments and prints published in transactions like the ingest does. */
async function openScenario(name: string): Promise<Scenario> {
  const config = testConfig(name);
  await provisionTestTopics(config);
  const kafka = createKafka(config, 'mdq-test');
  const writer = new ChunkWriter(kafka, createRegistry(config), config.topicPrefix, 'test-source');
  await writer.connect();
  await writer.commit(EVENTS.instruments, []);
  // Several transactions, so the source partitions carry commit markers between the prints.
  for (let i = 0; i < EVENTS.prints.length; i += 700) await writer.commit(EVENTS.prints.slice(i, i + 700), []);
  await writer.disconnect();
  const source = await readComplete(kafka, topicName(printSpec, config.topicPrefix), EVENTS.prints.length);
  const admin = kafka.admin();
  await admin.connect();
  const redis = createRedis(config.viewsRedisUrl);
  const env = { ...configEnv(config), LOG_LEVEL: 'info', MDQ_PROCESSOR_SESSION_TIMEOUT_MS: '6000' };
  return {
    config,
    kafka,
    admin,
    redis,
    source,
    expected: recompute(source),
    env,
    async close() {
      await admin.disconnect();
      redis.disconnect();
    },
  };
}

/**
 * A topic read read_committed until it holds `count` messages: a transaction's commit markers are
 * written after the commit returns, so the last stable offset can lag the commit for a moment.
 */
async function readComplete(kafka: Kafka, topic: string, count: number): Promise<Map<number, CommittedRecord[]>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const records = await readCommittedRecords(kafka, topic);
    const n = [...records.values()].reduce((sum, r) => sum + r.length, 0);
    if (n >= count || Date.now() > deadline) return records;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Committed offset of the processor's group per source partition (-1: none). */
async function committed(s: Scenario): Promise<Map<number, number>> {
  const [{ partitions }] = await s.admin.fetchOffsets({
    groupId: processorGroupId(s.config.topicPrefix),
    topics: [topicName(printSpec, s.config.topicPrefix)],
  });
  return new Map(partitions.map((p) => [p.partition, Number(p.offset)]));
}

/** Offset of the processor state stored for a partition (-1: none). */
async function stateOffset(s: Scenario, partition: number): Promise<number> {
  return Number((await s.redis.hget(stateKeys(s.config.keyPrefix, partition).meta, 'offset')) ?? -1);
}

/** Share of the source prints whose derived events are committed. */
async function progress(s: Scenario): Promise<number> {
  const c = await committed(s);
  let done = 0;
  for (const [p, records] of s.source) for (const r of records) if (r.offset < (c.get(p) ?? -1)) done++;
  return done / s.expected.count;
}

async function waitComplete(s: Scenario, timeoutMs = 120_000): Promise<void> {
  await waitFor('the processor to commit every print', async () => (await progress(s)) === 1, timeoutMs, 200);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

type Child = ReturnType<typeof spawnTs>;
function exited(child: Child): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
}

async function stopGracefully(child: Child): Promise<void> {
  child.kill('SIGTERM');
  const { code } = await exited(child);
  if (code !== 0) throw new Error(`processor exited with ${code}:\n${child.output().slice(-3000)}`);
}

/**
 * Starts a processor with small transactions on two partitions at a time (slow enough to be
 * killed part-way), SIGKILLs it once `atLeast` of the stream is processed, and checks it was
 * killed part-way indeed.
 */
async function killMidStream(s: Scenario, atLeast: number, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const child = spawnTs(MAIN, [], { ...s.env, MDQ_PROCESSOR_CHUNK: '20', MDQ_PROCESSOR_CONCURRENCY: '2', ...env });
  await waitFor('part of the stream to be processed', async () => (await progress(s)) >= atLeast || child.exitCode !== null, 60_000, 10);
  child.kill('SIGKILL');
  await exited(child);
  const atKill = await progress(s);
  expect(atKill).toBeGreaterThan(0);
  expect(atKill).toBeLessThan(1);
}

/** Every derived message equals the pure computation, byte for byte, in order, on its source partition. */
async function expectDerivedTopicsExact(s: Scenario): Promise<void> {
  const checks: [string, Map<number, unknown[]>, ReturnType<typeof avroTypeOf>][] = [
    [topicName(enrichedSpec, s.config.topicPrefix), s.expected.enriched, avroTypeOf(enrichedSpec)],
    [topicName(consolidatedSpec, s.config.topicPrefix), s.expected.consolidated, avroTypeOf(consolidatedSpec)],
  ];
  for (const [topic, expected, type] of checks) {
    const actual = await readComplete(s.kafka, topic, s.expected.count);
    let total = 0;
    for (const [p, sourceRecords] of s.source) {
      const want = expected.get(p)!;
      const got = actual.get(p)!;
      expect({ topic, partition: p, count: got.length }).toEqual({ topic, partition: p, count: want.length });
      for (let i = 0; i < want.length; i++) {
        const body = got[i].value!.subarray(5);
        if (!body.equals(type.toBuffer(want[i]))) {
          // Decode for a readable difference, then fail either way.
          expect({ topic, partition: p, index: i, event: type.fromBuffer(body) }).toEqual({ topic, partition: p, index: i, event: want[i] });
          throw new Error(`${topic}[${p}][${i}] differs in its bytes only`);
        }
        expect(got[i].key).toBe((want[i] as { ticker: string }).ticker);
        expect(got[i].timestamp).toBe(sourceRecords[i].timestamp); // the print's time
      }
      total += got.length;
    }
    // Nothing on partitions without source prints either.
    for (const [p, got] of actual) if (!s.source.has(p) || !s.source.get(p)!.length) expect({ p, n: got.length }).toEqual({ p, n: 0 });
    expect(total).toBe(s.expected.count);
  }
}

/** The processor's Redis state equals the pure computation's final state. */
async function expectStateExact(s: Scenario): Promise<void> {
  const store = new StateStore(s.redis, s.config.keyPrefix);
  const c = await committed(s);
  for (const [p, part] of s.expected.states) {
    if (!s.source.get(p)!.length) continue;
    const loaded = await store.load(p);
    expect(loaded.offset).toBe(c.get(p)! - 1);
    expect(new Map([...loaded.volumes].sort())).toEqual(new Map([...part.volumes].sort()));
    expect(JSON.stringify(loaded.consolidator.snapshot())).toBe(JSON.stringify(part.consolidator.snapshot()));
  }
}

async function deleteState(s: Scenario): Promise<number> {
  let n = 0;
  await scanKeys(s.redis, `${s.config.keyPrefix}:proc:order-flow:*`, async (keys) => void (n += await unlinkKeys(s.redis, keys)));
  return n;
}

describe('order-flow processor', () => {
  it('the source covers several partitions, both sessions and the unknown ticker', () => {
    const tickers = new Set(EVENTS.prints.map((e) => e.data.ticker));
    expect(tickers.size).toBe(SYMBOLS.length + 1);
    expect(EVENTS.prints.length).toBeGreaterThan(5_000);
  });

  it('a clean run: both derived topics equal the pure computation, byte for byte; the state too; a restart adds nothing', async () => {
    const s = await openScenario('ofp-clean');
    try {
      expect([...s.source.values()].filter((r) => r.length).length).toBeGreaterThanOrEqual(6);
      const metricsPort = await freePort();
      const proc = spawnTs(MAIN, [], { ...s.env, METRICS_PORT: String(metricsPort) });
      await waitComplete(s);
      // Prometheus: every print counted once, no lag left. The counter moves after the Kafka
      // commit and the state write, so the group's offsets can be seen first: poll for it.
      const scrape = async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        const processed = [...text.matchAll(/^mdq_processor_processed_messages_total\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
        return { text, processed };
      };
      await waitFor('the processed counter to reach every print', async () => (await scrape()).processed >= s.expected.count, 10_000, 50);
      const { text: metrics, processed } = await scrape();
      expect(processed).toBe(s.expected.count);
      expect(metrics).toMatch(/^mdq_processor_lag_messages\{/m);
      for (const m of metrics.matchAll(/^mdq_processor_lag_messages\{[^}]*\} (\d+)/gm)) expect(Number(m[1])).toBeLessThanOrEqual(1); // at most a trailing commit marker
      // Caught-up partitions have their state written while the process runs, not only at a stop.
      await waitFor(
        'the state of every caught-up partition to be written',
        async () => {
          const c = await committed(s);
          for (const [p, records] of s.source) {
            if (!records.length) continue;
            if ((await stateOffset(s, p)) !== c.get(p)! - 1) return false;
          }
          return true;
        },
        10_000,
        100,
      );
      await stopGracefully(proc);
      await expectDerivedTopicsExact(s);
      await expectStateExact(s);
      expect(proc.output()).toMatch(/ticker not in reference.instruments/);

      // Semantics visible in the output: sessions apart, every consolidation state (SINGLE: a lone
      // print below the block size, which the consolidated view leaves out), the fallback.
      const all = [...s.expected.consolidated.values()].flat();
      expect(new Set(all.map((c) => c.tradeConsolidationType))).toEqual(new Set(['SWEEP', 'SPLIT', 'BLOCK', 'SINGLE']));
      expect(new Set(all.map((c) => c.sessionDate))).toEqual(new Set(['2026-11-19', '2026-11-20']));
      const unknown = [...s.expected.enriched.values()].flat().filter((e) => e.ticker === UNKNOWN_TICKER);
      expect(unknown).toHaveLength(40);
      expect(unknown[0]).toMatchObject({ sector: 'NOT_APPLICABLE', industry: 'NOT_APPLICABLE', isETF: false, isIndex: false });
      const [p, records] = [...s.source].find(([, r]) => r.length)!;
      expect(s.expected.enriched.get(p)![0].rowKey).toBe(rowKeyOf(p, records[0].offset));

      // Started again over a fully processed topic: nothing is produced twice.
      const again = spawnTs(MAIN, [], s.env);
      await waitFor('the second processor to join', async () => /joined the group/.test(again.output()), 60_000, 100);
      await new Promise((r) => setTimeout(r, 2_000));
      await stopGracefully(again);
      await expectDerivedTopicsExact(s);
    } finally {
      await s.close();
    }
  }, 300_000);

  it('SIGKILL mid-stream with the state written rarely, then a restart: exactly the pure computation, no duplicate, no loss', async () => {
    const s = await openScenario('ofp-kill');
    try {
      // The state is written only when its interval is over (never, here) or a partition is
      // caught up (not mid-stream): it stays many chunks behind what committed.
      await killMidStream(s, 0.2, { MDQ_PROCESSOR_STATE_SAVE_MS: '600000' });
      const c = await committed(s);
      let behindByMoreThanAChunk = 0;
      for (const [p] of s.source) {
        const off = await stateOffset(s, p);
        // Committed offset C (-1: nothing committed yet, like 0): the state never passes C - 1.
        const C = Math.max(c.get(p) ?? -1, 0);
        expect({ p, stateAhead: off > C - 1 }).toEqual({ p, stateAhead: false });
        if (C - 1 - off > 20) behindByMoreThanAChunk++;
      }
      expect(behindByMoreThanAChunk).toBeGreaterThan(0);
      // Restarted with two processing threads: two group members share the partitions.
      const second = spawnTs(MAIN, [], { ...s.env, MDQ_PROCESSOR_THREADS: '2' });
      await waitComplete(s);
      await stopGracefully(second);
      expect(second.output()).toMatch(/"thread":1.*joined the group/);
      await expectDerivedTopicsExact(s);
      await expectStateExact(s);
    } finally {
      await s.close();
    }
  }, 300_000);

  it('a crash between a Kafka commit and its state write: the restart replays into state only', async () => {
    const s = await openScenario('ofp-window');
    try {
      const first = spawnTs(MAIN, [], { ...s.env, MDQ_PROCESSOR_CHUNK: '100', MDQ_PROCESSOR_CONCURRENCY: '1', MDQ_PROCESSOR_CRASH_AFTER_COMMITS: '12' });
      expect((await exited(first)).signal).toBe('SIGKILL');
      const atCrash = await progress(s);
      expect(atCrash).toBeGreaterThan(0);
      expect(atCrash).toBeLessThan(1);
      // The window was hit: some partition's state is behind its committed output.
      const c = await committed(s);
      const behind = [];
      for (const [p] of s.source) {
        if ((c.get(p) ?? -1) >= 0 && (await stateOffset(s, p)) < c.get(p)! - 1) behind.push(p);
      }
      expect(behind.length).toBeGreaterThan(0);
      const second = spawnTs(MAIN, [], s.env);
      await waitComplete(s);
      await stopGracefully(second);
      expect(second.output()).toMatch(/replaying into state only/);
      await expectDerivedTopicsExact(s);
      await expectStateExact(s);
    } finally {
      await s.close();
    }
  }, 300_000);

  it('SIGKILL, the Redis state deleted, a restart: the state is rebuilt by replay and the topics are still exact', async () => {
    const s = await openScenario('ofp-lost');
    try {
      await killMidStream(s, 0.3);
      expect(await deleteState(s)).toBeGreaterThan(0);
      const second = spawnTs(MAIN, [], s.env);
      await waitComplete(s);
      await stopGracefully(second);
      expect(second.output()).toMatch(/replaying into state only/);
      await expectDerivedTopicsExact(s);
      await expectStateExact(s);
    } finally {
      await s.close();
    }
  }, 300_000);
});
