import { flowAggregatesProjection } from '../../projections/flow-aggregates/projection';
import { MARKET_PARTITIONS, topicName } from '../../schemas/catalog';
import { FLOW_AGGREGATES_VIEW } from '../../services/views/flow-aggregates';
import { testConfig, waitFor } from '../support/env';
import { orderFlowFixture, PRINTS_SPEC } from '../support/order-flow-data';
import { appliedCount, configEnv, openPipeline, spawnTs, viewContents, type TestPipeline } from '../support/pipeline';
import { expectEqual } from '../support/expect-equal';
import { withTierEnv } from '../support/tier-env';
import { cubeMover } from '../../projections/flow-aggregates/warm-tier';
import { settleWarmTier } from '../../projections/runtime/warm-tier';
import { PartitionKeys } from '../../services/views/keys';

/**
 * The flow-aggregates cube against the real stack: enriched prints produced to Kafka and
 * projected by ViewProjectors (or a projector process). A rebuild replays into a new version that
 * is key for key the old one, and a projector killed mid-stream and restarted ends equal to a
 * clean build: the cube's sums, bars and last prices do not depend on how the stream was chunked
 * or interrupted, nor, with older sessions moved to the warm tier, on when the moves happened.
 */

const config = testConfig('flowagg-view');
const fixture = orderFlowFixture({ sessions: ['2024-05-01', '2024-05-02', '2024-05-03'], printsPerSession: 4000, seed: 11 });
let pipe: TestPipeline;

beforeAll(async () => {
  pipe = await openPipeline(config);
  for (let i = 0; i < fixture.prints.length; i += 2000) await pipe.producer.send(PRINTS_SPEC, fixture.prints.slice(i, i + 2000) as never);
});
afterAll(async () => {
  await pipe.close();
});

/** The cube built from scratch into `prefix` by a ViewProjector (chunks of its own): what every other build must equal. */
async function cleanBuild(prefix: string, settled = false): Promise<Record<string, unknown>> {
  const p = pipe.newProjector(prefix, flowAggregatesProjection, undefined, 1_000);
  await p.start();
  await pipe.waitCaughtUp(1, prefix, 120_000, flowAggregatesProjection);
  await p.stop();
  if (settled) await settle(prefix);
  return viewContents(pipe.redis, prefix, FLOW_AGGREGATES_VIEW, 1);
}

/** Moves every session but the newest of each partition to the warm tier (what the next quiet chunk would). */
async function settle(prefix: string): Promise<void> {
  for (let p = 0; p < MARKET_PARTITIONS; p++) await settleWarmTier(pipe.redis, cubeMover, new PartitionKeys(prefix, FLOW_AGGREGATES_VIEW, 1, p), 1);
}

it('a rebuild replays into a new version that is key for key the old one, then serves it', async () => {
  const prefix = `${config.keyPrefix}-rebuild`;
  const projector = pipe.newProjector(prefix, flowAggregatesProjection);
  await projector.start();
  await pipe.waitCaughtUp(1, prefix, 120_000, flowAggregatesProjection);
  const v1 = await viewContents(pipe.redis, prefix, FLOW_AGGREGATES_VIEW, 1);
  // Not trivial: every kind of key of every session.
  for (const kind of [':cs:', ':cm:', ':ks:', ':km:', ':ms', ':mm', ':u:', ':o:', ':osi', ':tk'])
    for (const d of ['2024-05-01', '2024-05-02', '2024-05-03']) expect(Object.keys(v1).some((k) => k.includes(`${d}${kind}`))).toBe(true);
  const { from, to } = await projector.rebuild({ graceMs: 100 });
  expect([from, to]).toEqual([1, 2]);
  expectEqual(await viewContents(pipe.redis, prefix, FLOW_AGGREGATES_VIEW, 2), v1);
  expect(await pipe.redis.get(`${prefix}:${FLOW_AGGREGATES_VIEW}:current`)).toBe('2');
  await projector.stop();
}, 300_000);

it('a projector killed with SIGKILL mid-stream and restarted ends equal, key for key, to a clean build', async () => {
  const prefix = `${config.keyPrefix}-kill`;
  // The broker's shortest session: the killed member's partitions move on in 6 s, not 30.
  const env = { ...configEnv({ ...config, keyPrefix: prefix }), MDQ_PROJECTOR_CHUNK: '25', MDQ_PROJECTOR_SESSION_TIMEOUT_MS: '6000' };
  const topic = topicName(PRINTS_SPEC, config.topicPrefix);
  const applied = () => appliedCount(pipe.redis, prefix, FLOW_AGGREGATES_VIEW, 1, topic);
  const first = spawnTs('projections/main.ts', [FLOW_AGGREGATES_VIEW], env);
  await waitFor('part of the stream to be applied', async () => (await applied()) >= 1_500, 120_000, 5);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  expect(await applied()).toBeLessThan(fixture.prints.length);

  // The restart takes larger chunks: small ones only slow the first process enough to be killed.
  const second = spawnTs('projections/main.ts', [FLOW_AGGREGATES_VIEW], { ...env, MDQ_PROJECTOR_CHUNK: '500' });
  try {
    await pipe.waitCaughtUp(1, prefix, 180_000, flowAggregatesProjection);
  } finally {
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  }
  expect(await applied()).toBe(fixture.prints.length);
  const recovered = await viewContents(pipe.redis, prefix, FLOW_AGGREGATES_VIEW, 1);
  expectEqual(recovered, await cleanBuild(`${config.keyPrefix}-clean`));
}, 400_000);

it('with older sessions warm, a projector killed mid-stream and restarted ends, once settled, key for key a clean build', async () => {
  const prefix = `${config.keyPrefix}-kill-warm`;
  // One hot session; a session moves once 1,000 offsets quiet (at least every chunk size used here).
  const tiers = { MDQ_HOT_SESSIONS: '1', MDQ_WARM_QUIET_MESSAGES: '1000' };
  // Chunks of 100: small enough for the kill to land mid-stream, four times fewer transactions than 25.
  const env = { ...configEnv({ ...config, keyPrefix: prefix }), ...tiers, MDQ_PROJECTOR_CHUNK: '100', MDQ_PROJECTOR_SESSION_TIMEOUT_MS: '6000' };
  const topic = topicName(PRINTS_SPEC, config.topicPrefix);
  const applied = () => appliedCount(pipe.redis, prefix, FLOW_AGGREGATES_VIEW, 1, topic);
  const first = spawnTs('projections/main.ts', [FLOW_AGGREGATES_VIEW], env);
  // Past the first session of most partitions, so moves may have happened before the kill.
  await waitFor('part of the stream to be applied', async () => (await applied()) >= 7_000, 180_000, 5);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  expect(await applied()).toBeLessThan(fixture.prints.length);
  const second = spawnTs('projections/main.ts', [FLOW_AGGREGATES_VIEW], { ...env, MDQ_PROJECTOR_CHUNK: '500' });
  try {
    await pipe.waitCaughtUp(1, prefix, 180_000, flowAggregatesProjection);
  } finally {
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  }
  expect(await applied()).toBe(fixture.prints.length);
  await settle(prefix);
  const recovered = await viewContents(pipe.redis, prefix, FLOW_AGGREGATES_VIEW, 1);
  expect(Object.keys(recovered).some((k) => k.includes('2024-05-01:wc'))).toBe(true);
  expect(Object.keys(recovered).some((k) => k.includes('2024-05-01:cm:'))).toBe(false);
  const clean = await withTierEnv(1, () => cleanBuild(`${config.keyPrefix}-clean-warm`, true), 1_000);
  expectEqual(recovered, clean);
}, 400_000);
