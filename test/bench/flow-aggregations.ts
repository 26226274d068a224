/**
 * Latency and throughput of the six flow-aggregation endpoints over HTTP:
 * `npx tsx test/bench/flow-aggregations.ts [prints] [seconds]`.
 *
 * A reduced form of the issue's benchmark: the API alone, no PostgreSQL beside it, one session.
 * Starts its own redis-server, projects the first N option prints (default 50,000) of a simulated
 * `full` session (every 8th symbol, test/support/order-flow-sample.ts) into the prints view and the
 * cube with the projections' own logic (no Kafka), starts the API in this process with the
 * response cache off, and drives each case with wrk, 32 connections (test/bench/load-drivers.ts).
 * Results go to test/bench/results/flow-aggregations.json.
 */
import fs from 'fs';
import path from 'path';
import { topicFor } from '../../schemas/catalog';
import { loadConfig } from '../../services/config';
import { FLOW_AGGREGATES_VIEW } from '../../services/views/flow-aggregates';
import { ORDER_FLOW_PRINTS_VIEW } from '../../services/views/order-flow';
import { pointerKey } from '../../services/views/keys';
import { flowAggregatesProjection } from '../../projections/flow-aggregates/projection';
import { orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import { privateRedisServer, projectInChunks } from '../support/bench-redis';
import { startApi } from '../support/http';
import { orderFlowSample } from '../support/order-flow-sample';
import { wrkLoad, type LoadResult } from './load-drivers';

const N = Number(process.argv[2] ?? 50_000);
const SECONDS = Number(process.argv[3] ?? 5);
const DATE = '2024-05-01';
const CLIENTS = 32;

async function main(): Promise<void> {
  const { redis, server } = await privateRedisServer();
  const port = Number(redis.options.port);
  try {
    const { prints, openInterest } = orderFlowSample(N, DATE);
    await projectInChunks(redis, orderFlowPrintsProjection, topicFor('open-interest')!.name, openInterest);
    await projectInChunks(redis, orderFlowPrintsProjection, topicFor('enriched-print')!.name, prints);
    await projectInChunks(redis, flowAggregatesProjection, topicFor('enriched-print')!.name, prints);
    for (const view of [ORDER_FLOW_PRINTS_VIEW, FLOW_AGGREGATES_VIEW]) await redis.set(pointerKey('mdq', view), '1');
    const counts = new Map<string, number>();
    for (const p of prints) counts.set(p.ticker, (counts.get(p.ticker) ?? 0) + 1);
    const ticker = [...counts].sort((a, b) => b[1] - a[1])[0][0];
    const osi = [...prints.filter((p) => p.ticker === ticker).reduce((m, p) => m.set(p.osi, (m.get(p.osi) ?? 0) + 1), new Map<string, number>())].sort(
      (a, b) => b[1] - a[1],
    )[0][0];

    const url = `redis://127.0.0.1:${port}`;
    const api = await startApi(
      {
        ...loadConfig({ ...process.env, KAFKA_BROKERS: 'unused:9092', SCHEMA_REGISTRY_URL: 'http://unused', REDIS_URL: url }),
        redisUrl: url,
        viewsRedisUrl: url,
        keyPrefix: 'mdq',
      },
      { responseCacheBytes: 0 },
    );
    const P = (name: string) => `${api.url}/v1/options/tool/${name}`;
    const one = { sessionDate: DATE, filter: { tickers: ticker } };
    const cases: [string, string, Record<string, unknown>][] = [
      ['contract-trade-side-statistics, one ticker', 'contract-trade-side-statistics', { ...one, dataMode: 'PREMIUM' }],
      ['contract-trade-side-statistics, whole market', 'contract-trade-side-statistics', { sessionDate: DATE, dataMode: 'PREMIUM' }],
      ['market-share, one ticker', 'market-share', one],
      ['market-share, whole market', 'market-share', { sessionDate: DATE }],
      ['gainers-losers, one ticker', 'gainers-losers', one],
      ['gainers-losers, whole market', 'gainers-losers', { sessionDate: DATE }],
      ['net-flow, one ticker, 1m buckets', 'net-flow', { ...one, dataMode: 'NET_PREMIUM', aggregationPeriod: '1m' }],
      ['net-flow, whole market, 5m buckets', 'net-flow', { sessionDate: DATE, dataMode: 'NET_PREMIUM', aggregationPeriod: '5m' }],
      ['net-drift, one ticker, 15m buckets', 'net-drift', { ...one, aggregationPeriod: '15m' }],
      ['option-price-over-time, busiest contract, 1m buckets', 'option-price-over-time', { sessionDate: DATE, aggregationPeriod: '1m', filter: { osi } }],
      [
        'scan: contract-trade-side-statistics, premiumRange',
        'contract-trade-side-statistics',
        { sessionDate: DATE, dataMode: 'PREMIUM', filter: { premiumRange: { min: 50_000 } } },
      ],
      ['tape: unconsolidated, premiumRange, first page', 'order-flow/unconsolidated', { sessionDate: DATE, filter: { premiumRange: { min: 50_000 } } }],
    ];
    const results: Record<string, unknown> = {
      prints: prints.length,
      tickers: counts.size,
      ticker,
      osi,
      clients: CLIENTS,
      seconds: SECONDS,
      responseCache: 'off',
    };
    const measured: Record<string, LoadResult> = {};
    for (const [name, path_, body] of cases) {
      const check = await api.post(`/v1/options/tool/${path_}`, body);
      if (check.status !== 200) throw new Error(`${name}: ${check.status} ${JSON.stringify(check.json)}`);
      measured[name] = await wrkLoad({
        urls: [P(path_)],
        headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        clients: CLIENTS,
        seconds: SECONDS,
        warmupSeconds: 1,
      });
      console.log(name, JSON.stringify(measured[name]));
    }
    results.cases = measured;
    await api.close();
    const out = path.join(__dirname, 'results', 'flow-aggregations.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
