import { createKafka } from '../../services/kafka/clients';
import type { Config } from '../../services/config';
import { createRedis } from '../../services/redis/client';
import { processorGroupId } from '../../projections/order-flow-processor/processor';
import { PROJECTIONS } from '../../projections/registry';
import { caughtUp, servedVersion, viewLag } from '../../projections/runtime/versions';
import { topicFor, topicName } from '../../schemas/catalog';
import { waitFor } from './env';
import { logEndAdmin } from './kafka-count';
import { configEnv, provisionTestTopics, spawnTs } from './pipeline';
import { phase } from './phase-profile';

/**
 * The simulated market as `npm start` serves it, without the live session and news feed that
 * would keep it moving: the ingest worker, the order-flow processor and the projector run as
 * processes, `ingest history` produces `sessions` sessions (the newest `tickSessions` with ticks)
 * of a profile, and the call returns once every job has ended, the processor has folded every
 * print and every view has applied everything. From then on the views stand still, so two
 * requests asking the same thing get the same answer: what the client tests compare.
 */
export interface SimulatedMarket {
  stop(): Promise<void>;
}

export async function simulatedMarket(config: Config, o: { sessions: number; tickSessions: number; profile: 'mini' | 'dev' }): Promise<SimulatedMarket> {
  await provisionTestTopics(config);
  const env = { ...configEnv(config), MDQ_PROFILE: o.profile };
  const processes = [
    spawnTs('projections/main.ts', [], env),
    spawnTs('projections/order-flow-processor/main.ts', [], env),
    spawnTs('ingest/worker.ts', [], env),
  ];
  const stop = async () => {
    for (const p of processes) if (p.exitCode === null) p.kill('SIGTERM');
    await Promise.all(processes.map((p) => (p.exitCode === null ? new Promise((r) => p.once('exit', r)) : null)));
  };
  try {
    await phase('produce', async () => {
      const history = spawnTs(
        'ingest/cli.ts',
        ['history', '--sessions', String(o.sessions), '--tick-sessions', String(o.tickSessions), '--profile', o.profile],
        env,
      );
      const code = await new Promise<number | null>((resolve) => history.once('exit', resolve));
      if (code !== 0) throw new Error(`ingest history exited with ${code}:\n${history.output().slice(-3000)}`);
    });
    await phase('projection wait', () => settled(config, processes));
    return { stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Waits until the processor has folded every print and every view version served has applied every message of its topics. */
async function settled(config: Config, processes: ReturnType<typeof spawnTs>[]): Promise<void> {
  const kafka = createKafka(config, 'mdq-test-settled');
  const admin = logEndAdmin(kafka);
  await admin.connect();
  const redis = createRedis(config.viewsRedisUrl);
  const prints = topicName(topicFor('option-print')!, config.topicPrefix);
  try {
    await waitFor(
      'the processor and every view to catch up',
      async () => {
        const dead = processes.find((p) => p.exitCode !== null);
        if (dead) throw new Error(`a pipeline process exited:\n${dead.output().slice(-3000)}`);
        const ends = await admin.fetchTopicOffsets(prints);
        const [{ partitions }] = await admin.fetchOffsets({ groupId: processorGroupId(config.topicPrefix), topics: [prints] });
        const folded = ends.every((e) => Number(e.high) === 0 || Number(partitions.find((p) => p.partition === e.partition)?.offset ?? -1) >= Number(e.high));
        if (!folded) return false;
        for (const projection of PROJECTIONS) {
          const version = await servedVersion(redis, config.keyPrefix, projection.view);
          if (!version) return false;
          const topics = projection.topics.map((t) => topicName(t, config.topicPrefix));
          if (!caughtUp(await viewLag(admin, redis, topics, config.keyPrefix, projection.view, version))) return false;
        }
        return true;
      },
      240_000,
      500,
    );
  } finally {
    await admin.disconnect();
    redis.disconnect();
  }
}
