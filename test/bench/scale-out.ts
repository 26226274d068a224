/**
 * `npx tsx test/bench/scale-out.ts [--messages 200000]` → results/scale-out.json: replay
 * throughput of one view with 1, 2 and 3 projector processes on the cluster profile (a private
 * cluster stack on free ports), and the CPU each component used meanwhile: the projectors (from
 * /proc), the three Kafka brokers (from /proc) and the Redis masters and replicas (INFO).
 * The view is news; each run has topics of its own, its projectors join their consumer group
 * before the first message is produced, and the time runs from the first message produced to
 * the view caught up.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { parseArgs } from 'util';
import { loadConfig } from '../../services/config';
import { createRedis, isCluster } from '../../services/redis/client';
import { stackDaemonPids } from '../support/stack-daemons';
import { stackDown, stackUp } from '../../services/stack/stack';
import { processCpuSeconds } from '../support/cpu';
import { configEnv, openPipeline, spawnTs, syntheticArticles } from '../support/pipeline';
import { waitFor } from '../support/env';
import { createKafka } from '../../services/kafka/clients';
import { groupId } from '../../projections/runtime/runner';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '200000' } } });
const MESSAGES = Number(values.messages);

const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + (processCpuSeconds(p) ?? 0), 0);

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-scale-out-'));
  const env = await stackUp({ dataDir, profile: 'cluster', freePorts: true, dieWithParent: true, env: {}, log: (m) => console.log(`[stack] ${m}`) });
  Object.assign(process.env, env);
  const redis = createRedis(env.REDIS_URL);
  const out: Record<string, unknown>[] = [];
  const brokers = stackDaemonPids(dataDir, 'kafka-').map((d) => d.pid);
  const pipes: Awaited<ReturnType<typeof openPipeline>>[] = [];
  try {
    if (!isCluster(redis)) throw new Error('not a cluster');
    const articles = syntheticArticles(MESSAGES);
    for (const n of [1, 2, 3]) {
      // Topics of its own per run; the projectors join their group (and split its partitions)
      // before the first message, so the figure is projection, not process start or rebalance.
      const cfg = { ...loadConfig(process.env), topicPrefix: `scale${n}.`, keyPrefix: `scale-${n}`, logLevel: 'silent' as const };
      const p = await openPipeline(cfg);
      pipes.push(p);
      const procs = Array.from({ length: n }, () => spawnTs('projections/main.ts', ['news'], configEnv(cfg)));
      const admin = createKafka(cfg, 'scale-out').admin();
      await admin.connect();
      await waitFor(
        `${n} projectors in the group`,
        async () => {
          const { groups } = await admin.describeGroups([groupId(cfg.topicPrefix, cfg.keyPrefix, 'news', 1)]);
          return groups[0]?.state === 'Stable' && groups[0].members.length === n;
        },
        120_000,
        200,
      );
      await admin.disconnect();
      const nodeCpu = () => Promise.all(redis.nodes('all').map(async (node) => Number(/used_cpu_user:([0-9.]+)/.exec(await node.info('cpu'))?.[1] ?? 0)));
      const redisBefore = await nodeCpu();
      const brokersBefore = cpuOf(brokers);
      const projectorsBefore = procs.map((c) => processCpuSeconds(c.pid) ?? 0);
      const t0 = Date.now();
      for (let i = 0; i < MESSAGES; i += 10_000) await p.producer.send(p.newsSpec, articles.slice(i, i + 10_000) as never);
      const producedSeconds = (Date.now() - t0) / 1000;
      await p.waitCaughtUp(1, cfg.keyPrefix, 600_000);
      const seconds = (Date.now() - t0) / 1000;
      const projectorCpu = procs.map((c, i) => Math.round(((processCpuSeconds(c.pid) ?? 0) - projectorsBefore[i]) * 10) / 10);
      const redisAfter = await nodeCpu();
      for (const c of procs) c.kill('SIGTERM');
      await Promise.all(procs.map((c) => new Promise((r) => c.once('exit', r))));
      const row = {
        projectors: n,
        seconds,
        producedSeconds,
        messagesPerSecond: Math.round(MESSAGES / seconds),
        cpuSeconds: {
          projectors: projectorCpu,
          kafkaBrokers: Math.round((cpuOf(brokers) - brokersBefore) * 10) / 10,
          redisNodesUser: redisAfter.map((v, i) => Math.round((v - redisBefore[i]) * 10) / 10),
        },
        loadAverage: os.loadavg()[0],
      };
      console.log(JSON.stringify(row));
      out.push(row);
    }
    const file = path.join(__dirname, 'results', 'scale-out.json');
    fs.writeFileSync(file, JSON.stringify({ messages: MESSAGES, cores: os.cpus().length, loadAverage: os.loadavg(), runs: out }, null, 2) + '\n');
    console.log(`→ ${file}`);
  } finally {
    redis.disconnect();
    for (const p of pipes) await p.close();
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
