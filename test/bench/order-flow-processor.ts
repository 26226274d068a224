/**
 * Order-flow processor throughput benchmark (a script, not a test): `npm run bench:processor -- [options]`
 *
 *   --prints 600000     option prints replayed (the first N of the session, in stream order)
 *   --profile full      simulator profile of the session the prints come from
 *   --date 2026-11-19   the session
 *   --chunk 2000        MDQ_PROCESSOR_CHUNK of the measured process
 *   --concurrency 12    MDQ_PROCESSOR_CONCURRENCY of the measured process
 *   --state-save-ms 5000  MDQ_PROCESSOR_STATE_SAVE_MS of the measured process
 *   --threads 1,2       MDQ_PROCESSOR_THREADS of the measured process (each listed value is measured)
 *   --runs 1            measured runs (each from an empty output and a fresh consumer group)
 *   --cpu-prof DIR      write a V8 CPU profile of the processor into DIR
 *   --node-options S    NODE_OPTIONS of the processor process (e.g. V8 heap flags)
 *   --node-args S       extra node arguments of the processor process (e.g. --trace-gc)
 *
 * It runs against a stack of its own (free ports, data in .data/bench-processor, left running so
 * the populated source topic is reused by the next run; `KAFKA_BROKERS` etc. select another one).
 * The source topic is populated once per (profile, date, prints). Each run deletes the derived
 * topics, the consumer group and the processor state, starts ONE processor process
 * (projections/order-flow-processor/main.ts) and measures until the group has committed every
 * print: prints/s from the first commit to the last (steady state) and from process start (incl.
 * start-up), the process's CPU seconds and peak RSS. Results go to
 * test/bench/results/order-flow-processor.json.
 */
import { spawn } from 'child_process';
import fs from 'fs';
import { processCpuSeconds, redisCpu } from '../support/cpu';
import os from 'os';
import path from 'path';
import { parseArgs } from 'util';
import Redis from 'ioredis';
import type { Admin } from 'kafkajs';
import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { marketFor } from '../../ingest/produce/session-producer';
import type { SimEvent } from '../../ingest/simulator/events';
import { profileNamed } from '../../ingest/simulator/profiles';
import { processorGroupId } from '../../projections/order-flow-processor/processor';
import { TOPICS, topicFor, topicName } from '../../schemas/catalog';
import { loadConfig } from '../../services/config';
import { loadUniverse } from '../../services/domain/universe';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { provisionTopicsAndSchemas } from '../../services/kafka/provision';
import { ensureTopics } from '../../services/kafka/topics';
import { defaultDataDir, repoRoot } from '../../services/stack/paths';
import { nodeArgv } from '../../services/node-args';
import { stackUp } from '../../services/stack/stack';

const printSpec = topicFor('option-print')!;
const derived = TOPICS.filter((t) => t.derived);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      prints: { type: 'string', default: '600000' },
      profile: { type: 'string', default: 'full' },
      date: { type: 'string', default: '2026-11-19' },
      chunk: { type: 'string', default: '2000' },
      concurrency: { type: 'string', default: '12' },
      threads: { type: 'string', default: '1,2' },
      'state-save-ms': { type: 'string', default: '5000' },
      runs: { type: 'string', default: '1' },
      'cpu-prof': { type: 'string' },
      'node-options': { type: 'string' },
      'node-args': { type: 'string' },
    },
  });
  const n = Number(values.prints);
  const profile = profileNamed(values.profile!).name;
  const date = values.date!;
  const stackEnv = await stackUp({ dataDir: path.join(defaultDataDir(), 'bench-processor'), freePorts: true, log: (m) => console.log(`[stack] ${m}`) });
  const env = { ...process.env, ...stackEnv };
  const prefix = `bench-ofp-${profile}-${date}-${n}.`;
  const keyPrefix = `bench-ofp-${n}`;
  const config = { ...loadConfig(env), topicPrefix: prefix, keyPrefix, logLevel: 'warn' };
  await provisionTopicsAndSchemas(config);
  const kafka = createKafka(config, 'mdq-bench');
  const admin = kafka.admin();
  await admin.connect();
  const sourceTopic = topicName(printSpec, prefix);
  const results: Record<string, unknown> = {
    prints: n,
    profile,
    date,
    chunk: Number(values.chunk),
    concurrency: Number(values.concurrency),
    stateSaveMs: Number(values['state-save-ms']),
    threads: values.threads,
    nodeOptions: values['node-options'] ?? null,
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    node: process.version,
  };
  // Whether node_modules carries this repo's kafkajs produce patch (patches/, applied by postinstall).
  results.kafkajsProducePatch = fs.readFileSync(require.resolve('kafkajs/src/protocol/encoder.js'), 'utf8').includes('varints are written in place');
  const log = (k: string, v: unknown) => {
    results[k] = v;
    console.log(`${k}: ${typeof v === 'number' ? v.toLocaleString('en-US') : JSON.stringify(v)}`);
  };

  // 1. The source topic, once: the first N option prints of the session, and the instruments.
  if ((await offsetSum(admin, sourceTopic)) < n) {
    console.log(`populating ${sourceTopic} with ${n.toLocaleString('en-US')} prints (${profile} ${date})...`);
    const t0 = Date.now();
    const writer = new ChunkWriter(kafka, createRegistry(config), prefix, 'bench-source');
    await writer.connect();
    await writer.commit(
      loadUniverse().map((i) => ({ type: 'instrument', time: 0, data: { ...i } })),
      [],
    );
    const gen = marketFor(42, profile).session(date, 'tick');
    let produced = 0;
    let pending: SimEvent[] = [];
    for (let k = 0; k < gen.chunks && produced < n; k++) {
      for (const e of gen.chunk(k)) {
        if (e.type !== 'option-print' || produced >= n) continue;
        pending.push(e);
        produced++;
      }
      if (pending.length >= 20_000 || produced >= n) {
        await writer.commit(pending, []);
        pending = [];
      }
    }
    if (pending.length) await writer.commit(pending, []);
    await writer.disconnect();
    console.log(`populated in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const lastOffsets = new Map((await admin.fetchTopicOffsets(sourceTopic)).map((p) => [p.partition, Number(p.high) - 1]));
  log('sourcePartitionsWithPrints', [...lastOffsets.values()].filter((o) => o >= 0).length);

  const redis = new Redis(config.viewsRedisUrl); // the processor's state
  const byThreads: Record<string, Record<string, number>[]> = {};
  for (const threads of values.threads!.split(',').map((t) => t.trim())) {
    const runs: Record<string, number>[] = (byThreads[threads] = []);
    for (let run = 0; run < Number(values.runs); run++) {
      await reset(admin, redis, prefix, keyPrefix);
      runs.push({ threads: Number(threads), ...(await measure(admin, redis, env, prefix, keyPrefix, n, lastOffsets, { ...values, threads })) });
      console.log(`threads ${threads}, run ${run + 1}: ${JSON.stringify(runs[run])}`);
    }
  }
  redis.disconnect();
  await admin.disconnect();
  log('runs', byThreads);
  for (const [threads, runs] of Object.entries(byThreads)) {
    const best = runs.reduce((a, b) => (b.steadyPrintsPerSecond > a.steadyPrintsPerSecond ? b : a));
    log(`threads${threads}_steadyPrintsPerSecond`, best.steadyPrintsPerSecond);
    log(`threads${threads}_printsPerCpuSecond`, best.printsPerCpuSecond);
  }
  const out = path.join(__dirname, 'results', 'order-flow-processor.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ measuredAt: new Date().toISOString(), ...results }, null, 2) + '\n');
  console.log(`written to ${path.relative(process.cwd(), out)}`);
}

async function offsetSum(admin: Admin, topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((s, p) => s + Number(p.high), 0);
}

/** Empty derived topics, no consumer group, no processor state. */
async function reset(admin: Admin, redis: Redis, prefix: string, keyPrefix: string): Promise<void> {
  const names = derived.map((t) => topicName(t, prefix));
  await admin.deleteTopics({ topics: names, timeout: 30_000 }).catch(() => {});
  await admin.deleteGroups([processorGroupId(prefix)]).catch(() => {});
  // Topic deletion completes asynchronously: recreate until the broker accepts it.
  for (let i = 0; ; i++) {
    try {
      await ensureTopics(admin, prefix, derived);
      const offs = await Promise.all(names.map((t) => offsetSum(admin, t)));
      if (offs.every((o) => o === 0)) break;
    } catch (err) {
      if (i > 100) throw err;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}:proc:order-flow:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

/** Redis's CPU time so far (main thread and children: a background save counts too). */
async function redisCpuSeconds(redis: Redis): Promise<number> {
  const c = await redisCpu(redis);
  return c.all + c.children;
}

/** The bench stack's broker process, when this script's stack runs it. */
function brokerPidOf(): number | null {
  try {
    return Number(fs.readFileSync(path.join(defaultDataDir(), 'bench-processor', 'kafka', 'kafka.pid'), 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

function procStat(pid: number): { cpuSeconds: number; peakRssMiB: number } {
  try {
    const cpuSeconds = processCpuSeconds(pid);
    if (cpuSeconds === null) throw new Error('gone');
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { cpuSeconds, peakRssMiB: Math.round(hwm / 1024) };
  } catch {
    return { cpuSeconds: NaN, peakRssMiB: NaN };
  }
}

async function measure(
  admin: Admin,
  redis: Redis,
  env: NodeJS.ProcessEnv,
  prefix: string,
  keyPrefix: string,
  n: number,
  lastOffsets: Map<number, number>,
  values: Record<string, string | undefined>,
): Promise<Record<string, number>> {
  const script = 'projections/order-flow-processor/main.ts';
  // The flags production starts it with (services/node-args.ts), then the ones asked for.
  const extra: string[] = [];
  if (values['node-args']) extra.push(...values['node-args'].split(' ').filter(Boolean));
  if (values['cpu-prof']) extra.push('--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`);
  const child = spawn(process.execPath, nodeArgv(script, [], extra), {
    cwd: repoRoot,
    env: {
      ...env,
      ...(values['node-options'] ? { NODE_OPTIONS: values['node-options'] } : {}),
      MDQ_TOPIC_PREFIX: prefix,
      MDQ_KEY_PREFIX: keyPrefix,
      LOG_LEVEL: 'warn',
      MDQ_PROCESSOR_CHUNK: values.chunk,
      MDQ_PROCESSOR_CONCURRENCY: values.concurrency,
      MDQ_PROCESSOR_THREADS: values.threads,
      MDQ_PROCESSOR_STATE_SAVE_MS: values['state-save-ms'],
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const started = Date.now();
  // The broker shares the machine: its CPU over the run says what is left for the processor.
  const brokerPid = brokerPidOf();
  const brokerCpuAtStart = brokerPid ? procStat(brokerPid).cpuSeconds : NaN;
  // So does Redis, which stores the processor's state (INFO cpu works on any Redis, ours or not).
  const redisCpuAtStart = await redisCpuSeconds(redis);
  const group = processorGroupId(prefix);
  const sourceTopic = topicName(printSpec, prefix);
  let firstAt = 0;
  let firstDone = 0;
  let cpuAtFirst = 0;
  let stat = { cpuSeconds: 0, peakRssMiB: 0 };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`processor exited with ${child.exitCode}`);
    const [{ partitions }] = await admin.fetchOffsets({ groupId: group, topics: [sourceTopic] });
    // Committed offsets count offsets (markers included); close enough for progress, exact at the end.
    const done = partitions.reduce((s, p) => s + Math.max(0, Number(p.offset)), 0);
    const complete = [...lastOffsets].every(([p, last]) => last < 0 || Number(partitions.find((x) => x.partition === p)?.offset ?? -1) >= last);
    stat = procStat(child.pid!);
    if (!firstAt && done > 0) {
      firstAt = Date.now();
      firstDone = done;
      cpuAtFirst = stat.cpuSeconds;
    }
    if (complete) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const doneAt = Date.now();
  const brokerCpuSeconds = brokerPid ? procStat(brokerPid).cpuSeconds - brokerCpuAtStart : NaN;
  const redisCpu = (await redisCpuSeconds(redis)) - redisCpuAtStart;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const steadySeconds = (doneAt - firstAt) / 1000;
  return {
    startToFirstCommitSeconds: (firstAt - started) / 1000,
    steadySeconds,
    steadyPrintsPerSecond: Math.round((n - firstDone) / steadySeconds),
    endToEndPrintsPerSecond: Math.round(n / ((doneAt - started) / 1000)),
    processCpuSeconds: Math.round(stat.cpuSeconds * 10) / 10,
    printsPerCpuSecond: Math.round((n - firstDone) / (stat.cpuSeconds - cpuAtFirst)),
    peakRssMiB: stat.peakRssMiB,
    brokerCpuSecondsDuringRun: Math.round(brokerCpuSeconds * 10) / 10,
    redisCpuSecondsDuringRun: Math.round(redisCpu * 10) / 10,
    wallSeconds: (doneAt - started) / 1000,
    // The machine is shared (other builds and tests may run): its load says how contended it was.
    loadAverage1mAtEnd: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
