import { createKafka, createRegistry } from '../../services/kafka/clients';
import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { ProgressTracker } from '../../ingest/produce/progress';
import { backfillWriterId, produceSession, streamName, type SessionRequest } from '../../ingest/produce/session-producer';
import { PROFILES } from '../../ingest/simulator/profiles';
import { SimulatedMarket } from '../../ingest/simulator/session';
import { testConfig } from '../support/env';
import { generatedCounts, marketTopics } from '../support/generated-counts';
import { readCommitted } from '../support/kafka-count';
import { provisionTestTopics } from '../support/pipeline';

/**
 * A producer fences every earlier writer of a session's streams before it reads their progress:
 * otherwise a writer of an earlier run (a job handed on after its lock expired, a commit that timed
 * out but went through) could commit a chunk after the positions were read, and the chunk would be
 * written twice. Real Kafka and registry.
 */
const config = testConfig('fence');
const kafka = createKafka(config, 'mdq-test-fence');
const registry = createRegistry(config);
const market = new SimulatedMarket(42, PROFILES.mini);
const req: SessionRequest = { seed: 42, profile: 'mini', date: '2026-11-16', level: 'daily' };

beforeAll(() => provisionTestTopics(config), 120_000);

it('an earlier writer that commits right after the positions were read is fenced: every event once', async () => {
  // The earlier writer: the daily tier's, its first chunk sent in a transaction not yet committed.
  const earlier = new ChunkWriter(kafka, registry, config.topicPrefix, backfillWriterId(req, -1));
  await earlier.connect();
  const gen = market.session(req.date, 'daily', undefined, { withTicks: false });
  const events = [...gen.chunk(0)];
  const tx = await earlier.open(events, [{ stream: streamName(req, 'daily'), chunk: 0, chunks: gen.chunks, events: events.length }]);

  const progress = new ProgressTracker(kafka, registry, config.topicPrefix);
  await progress.start();
  // It commits at the worst moment: just after the producer has read the positions.
  let earlierCommit = '';
  const caughtUp = progress.caughtUp.bind(progress);
  progress.caughtUp = async (timeoutMs?: number) => {
    await caughtUp(timeoutMs);
    earlierCommit = await tx.commit().then(
      () => 'committed',
      (err: Error) => err.message,
    );
  };
  try {
    await produceSession({ config, kafka, registry, topicPrefix: config.topicPrefix, progress }, req);
  } finally {
    await progress.stop();
    await earlier.disconnect();
  }
  expect(earlierCommit).not.toBe('committed');
  expect(earlierCommit).not.toBe('');
  const counts = await readCommitted(kafka, marketTopics(config.topicPrefix));
  expect(counts).toEqual(generatedCounts(market, config.topicPrefix, [[req.date, ['daily']]]));
}, 180_000);
