import { topicFor } from '../../schemas/catalog';
import { darkPoolLevelsProjection } from '../../projections/equities/dark-pool-levels';
import { equityPrintsProjection } from '../../projections/equities/equity-prints';
import { exchangeNotificationsProjection } from '../../projections/equities/exchange-notifications';
import { instrumentsProjection } from '../../projections/equities/instruments';
import { stockPricesProjection } from '../../projections/equities/stock-prices';
import { ViewProjector } from '../../projections/runtime/view-projector';
import { HISTORY_SAMPLE_CONDITION } from '../../services/domain/equity-prints';
import { loadUniverse } from '../../services/domain/universe';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { createLogger } from '../../services/log';
import { testConfig } from '../support/env';
import { equityPrintData } from '../support/equity-print-data';
import { TestPipeline, openPipeline, snapshotView } from '../support/pipeline';

/**
 * The equities projections on the exactly-once runtime, over real Kafka and Redis: two projectors
 * of each view, applying different chunk sizes into two key prefixes, build byte-identical views
 * (deterministic, rebuildable from the topics); every key carries its partition's hash tag.
 */

const config = testConfig('eqviews');
const SESSIONS = [
  { date: '2024-05-01', open: Date.UTC(2024, 4, 1, 13, 30) },
  { date: '2024-05-02', open: Date.UTC(2024, 4, 2, 13, 30) },
];
const prints = equityPrintData(SESSIONS, 400, 3);
const sample = prints
  .filter((p) => p.printType === 'DARK_POOL' && p.time < SESSIONS[1].open)
  .map((p) => ({ ...p, conditions: [...p.conditions, HISTORY_SAMPLE_CONDITION] }));
const notices = Array.from({ length: 120 }, (_, i) => ({
  id: `N-${i}`,
  ticker: ['AAPL', 'SPY', 'TSLA'][i % 3],
  type: ['LUDP', 'T1', 'T3', 'REG_SHO'][i % 4],
  time: SESSIONS[i % 2].open + i * 1000,
  message: null,
}));
// Prices over several minutes, arriving out of time order (every tenth event late): the price bars
// keep the first and last by time whatever the order and chunking.
const inOrder = SESSIONS.flatMap(({ date, open }) =>
  ['AAPL', 'SPY', 'TSLA', 'BRK.B'].flatMap((ticker, i) =>
    Array.from({ length: 40 }, (_, k) => ({
      ticker,
      sessionDate: date,
      time: open + k * 9_000,
      price: 100 + i + ((k * 7) % 13) / 10,
      kind: k ? 'TICK' : 'OPEN',
    })),
  ),
);
const late = (_: unknown, n: number) => n % 10 === 3;
const prices = [...inOrder.filter((e, n) => !late(e, n)), ...inOrder.filter(late)];
const instruments = loadUniverse().slice(0, 20);
const PROJECTIONS = [equityPrintsProjection, darkPoolLevelsProjection, exchangeNotificationsProjection, stockPricesProjection, instrumentsProjection];

let pipe: TestPipeline;
const projectors: ViewProjector[] = [];

beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(topicFor('equity-print')!, [...prints, ...sample] as never);
  await pipe.producer.send(topicFor('exchange-notification')!, notices as never);
  await pipe.producer.send(topicFor('underlying-price')!, prices as never);
  await pipe.producer.send(topicFor('instrument')!, instruments as never);
  const kafka = createKafka(config, 'mdq-test-eqviews');
  const registry = createRegistry(config);
  const log = createLogger('test', 'silent');
  for (const [prefix, chunkSize] of [
    [`${config.keyPrefix}a`, 1000],
    [`${config.keyPrefix}b`, 7],
  ] as const) {
    for (const projection of PROJECTIONS) {
      const p = new ViewProjector({ kafka, registry, redis: pipe.redis, projection, topicPrefix: config.topicPrefix, keyPrefix: prefix, log, chunkSize });
      projectors.push(p);
      await p.start();
    }
  }
  for (const prefix of [`${config.keyPrefix}a`, `${config.keyPrefix}b`])
    for (const projection of PROJECTIONS) await pipe.waitCaughtUp(1, prefix, 90_000, projection);
});

afterAll(async () => {
  for (const p of projectors) await p.stop();
  await pipe?.close();
});

describe('equities views', () => {
  it.each(PROJECTIONS.map((p) => [p.view]))(
    '%s: two projectors with different chunkings build byte-identical views, every key partition-tagged',
    async (view) => {
      const a = await snapshotView(pipe.redis, `${config.keyPrefix}a`, view, 1);
      const b = await snapshotView(pipe.redis, `${config.keyPrefix}b`, view, 1);
      const data = Object.keys(a).filter((k) => !k.endsWith(':offsets') && k !== 'format' && k !== 'hot-sessions');
      expect(data.length).toBeGreaterThan(0);
      for (const k of data) expect(k).toMatch(/^\{p\d{2}\}:/);
      const strip = (s: Record<string, unknown>) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.endsWith(':offsets')));
      expect(strip(b)).toEqual(strip(a));
    },
  );
});
