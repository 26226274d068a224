/**
 * `npm run bench:streams -- [--streams 200] [--seconds 20] [--rate 200]`: delivery lag of the push
 * streams. Against the stack of `npm start` (or KAFKA_BROKERS / SCHEMA_REGISTRY_URL / REDIS_URL /
 * VIEWS_REDIS_URL), in a namespace of its own: runs the equity-prints projector (a process) and an
 * API (in this process), opens N streams on /v1/stream/equities/tool/equity-prints, then writes
 * equity prints stamped with the wall clock as their trade time through the ingest's
 * transactional writer, `rate` a second in 10 commits a second. Lag = arrival of the event at the
 * client - the print's trade time: Kafka commit, projector apply, the API's feed poll and the
 * write to the socket, all on this machine.
 */
import crypto from 'crypto';
import { parseArgs } from 'util';
import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { loadConfig } from '../../services/config';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { configEnv, provisionTestTopics, spawnTs } from '../support/pipeline';
import { startApi } from '../support/http';
import { openSse, type SseConnection } from '../support/sse-client';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { streams: { type: 'string', default: '200' }, seconds: { type: 'string', default: '20' }, rate: { type: 'string', default: '200' } },
  });
  const streams = Number(values.streams);
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  const ns = `bench${crypto.randomBytes(3).toString('hex')}`;
  const config = { ...loadConfig(), topicPrefix: `${ns}.`, keyPrefix: ns, logLevel: 'silent' as const };
  await provisionTestTopics(config);
  const projector = spawnTs('projections/main.ts', ['equity-prints'], configEnv(config));
  const api = await startApi(config, { streams: { perUser: streams + 10 } });
  const writer = new ChunkWriter(createKafka(config, 'bench-streams'), createRegistry(config), config.topicPrefix, `${ns}-prints`);
  await writer.connect();
  const lags: number[] = [];
  let events = 0;
  const conns: SseConnection[] = [];
  try {
    // A first print makes the view (the streams wait for it to exist).
    let n = 0;
    const print = (t: number) => ({
      type: 'equity-print' as const,
      time: t,
      data: {
        id: `B-${ns}-${n++}`,
        ticker: ['AAPL', 'MSFT', 'SPY', 'NVDA'][n % 4],
        time: t,
        reportTime: t,
        price: 100 + (n % 50) / 100,
        size: 100,
        venue: 'XNAS',
        printType: 'LIT',
        bidPrice: 100,
        askPrice: 100.5,
        bidSize: 100,
        askSize: 100,
        isDelayedPrint: false,
        conditions: [],
      },
    });
    await writer.commit([print(Date.now())], []);
    let measuring = false;
    for (let i = 0; i < streams; i++) {
      const c = await openSse(`${api.url}/v1/stream/equities/tool/equity-prints`, {
        key: api.key,
        body: {},
        onEvent: (e) => {
          if (e.event !== 'row') return;
          const at = Date.now();
          events++;
          if (measuring) lags.push(at - (JSON.parse(e.data) as { tradeTime: number }).tradeTime);
        },
      });
      if (c.status !== 200) throw new Error(`stream ${i} refused: ${c.status} ${JSON.stringify(c.refusal)}`);
      conns.push(c);
    }
    // A warm-up second, then the measured ones.
    const perCommit = Math.max(1, Math.round(rate / 10));
    const end = Date.now() + (seconds + 1) * 1000;
    setTimeout(() => (measuring = true), 1000);
    while (Date.now() < end) {
      const t0 = Date.now();
      await writer.commit(
        Array.from({ length: perCommit }, () => print(Date.now())),
        [],
      );
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - t0))));
    }
    await new Promise((r) => setTimeout(r, 3000));
    lags.sort((a, b) => a - b);
    const q = (p: number) => lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))];
    console.log(
      JSON.stringify({
        streams,
        seconds,
        printsPerSecond: rate,
        eventsDelivered: events,
        measured: lags.length,
        lagMs: { p50: q(50), p90: q(90), p99: q(99), max: lags[lags.length - 1] },
      }),
    );
  } finally {
    for (const c of conns) c.close();
    await writer.disconnect();
    await api.close();
    projector.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
