/**
 * `npx tsx test/bench/scale-out.ts [--messages 200000]` → results/scale-out.json: replay
 * throughput of one view with 1, 2 and 3 projector processes on the cluster profile (a private
 * cluster stack on free ports), and the CPU each component used meanwhile: the projectors (from
 * /proc), the three Kafka brokers (from /proc) and the Redis masters and replicas (INFO).
 * The view is news (the same topic replayed by each run into a key prefix of its own).
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { parseArgs } from 'util';
import { loadConfig } from '../../services/config';
import { createRedis, isCluster } from '../../services/redis/client';
import { readPid } from '../../services/stack/process';
import { stackDown, stackUp } from '../../services/stack/stack';
import { processCpuSeconds } from '../support/cpu';
import { configEnv, openPipeline, spawnTs, syntheticArticles } from '../support/pipeline';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '200000' } } });
const MESSAGES = Number(values.messages);

function daemonPids(dataDir: string, prefix: string): number[] {
  return fs
    .readdirSync(dataDir)
    .filter((d) => d.startsWith(prefix))
    .flatMap((d) =>
      fs
        .readdirSync(path.join(dataDir, d))
        .filter((f) => f.endsWith('.pid'))
        .map((f) => readPid(path.join(dataDir, d, f))),
    )
    .filter((p): p is number => p !== null);
}

const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + (processCpuSeconds(p) ?? 0), 0);

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-scale-out-'));
  const env = await stackUp({ dataDir, profile: 'cluster', freePorts: true, dieWithParent: true, env: {}, log: (m) => console.log(`[stack] ${m}`) });
  Object.assign(process.env, env);
  const base = { ...loadConfig(process.env), topicPrefix: 'scale.', keyPrefix: 'scale', logLevel: 'silent' as const };
  const p = await openPipeline(base);
  const redis = createRedis(env.REDIS_URL);
  const out: Record<string, unknown>[] = [];
  try {
    const articles = syntheticArticles(MESSAGES);
    for (let i = 0; i < MESSAGES; i += 10_000) await p.producer.send(p.newsSpec, articles.slice(i, i + 10_000) as never);
    console.log(`produced ${MESSAGES} articles`);
    const brokers = daemonPids(dataDir, 'kafka-');
    for (const n of [1, 2, 3]) {
      const keyPrefix = `scale-${n}`;
      if (!isCluster(redis)) throw new Error('not a cluster');
      const redisBefore = await Promise.all(redis.nodes('all').map(async (node) => Number(/used_cpu_user:([0-9.]+)/.exec(await node.info('cpu'))?.[1] ?? 0)));
      const brokersBefore = cpuOf(brokers);
      const t0 = Date.now();
      const procs = Array.from({ length: n }, () => spawnTs('projections/main.ts', ['news'], { ...configEnv({ ...base, keyPrefix }) }));
      const cpu = new Map<number, number>();
      const sample = setInterval(() => procs.forEach((c) => cpu.set(c.pid!, processCpuSeconds(c.pid) ?? cpu.get(c.pid!) ?? 0)), 200);
      await p.waitCaughtUp(1, keyPrefix, 600_000);
      const seconds = (Date.now() - t0) / 1000;
      clearInterval(sample);
      procs.forEach((c) => cpu.set(c.pid!, processCpuSeconds(c.pid) ?? cpu.get(c.pid!) ?? 0));
      for (const c of procs) c.kill('SIGTERM');
      await Promise.all(procs.map((c) => new Promise((r) => c.once('exit', r))));
      const redisAfter = await Promise.all(redis.nodes('all').map(async (node) => Number(/used_cpu_user:([0-9.]+)/.exec(await node.info('cpu'))?.[1] ?? 0)));
      const row = {
        projectors: n,
        seconds,
        messagesPerSecond: Math.round(MESSAGES / seconds),
        cpuSeconds: {
          projectors: [...cpu.values()].map((v) => Math.round(v * 10) / 10),
          kafkaBrokers: Math.round((cpuOf(brokers) - brokersBefore) * 10) / 10,
          redisNodesUser: redisAfter.map((v, i) => Math.round((v - redisBefore[i]) * 10) / 10),
        },
      };
      console.log(JSON.stringify(row));
      out.push(row);
    }
    const file = path.join(__dirname, 'results', 'scale-out.json');
    fs.writeFileSync(file, JSON.stringify({ messages: MESSAGES, cores: os.cpus().length, loadAverage: os.loadavg(), runs: out }, null, 2) + '\n');
    console.log(`→ ${file}`);
  } finally {
    redis.disconnect();
    await p.close();
    await stackDown({ dataDir, profile: 'cluster' });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
