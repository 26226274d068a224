/**
 * Ingest throughput benchmark (a script, not a test): `npm run bench:ingest -- [options]`
 *
 *   --profile full        profile of the tick session produced into Kafka (default full)
 *   --date 2026-11-19     the session
 *   --daily-sessions 400  daily-level sessions backfilled with --daily-profile (default dev)
 *   --full-daily 5        daily-level full-profile sessions timed (extrapolated to 400)
 *
 * It uses the local dev stack (`npm run stack -- up`), under a fresh topic prefix that it deletes
 * at the end. Reports generation-only speed, produce speed (events/s into Kafka, committed in
 * transactions), bytes per event on the wire and on disk, and daily backfill time. Results are
 * printed and written to test/bench/results/ingest.json.
 */
import fs from 'fs';
import os from 'os';
import path from 'path';
import { parseArgs } from 'util';
import { loadConfig } from '../../services/config';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { WireEncoder } from '../../services/kafka/encoding';
import { provisionTopicsAndSchemas } from '../../services/kafka/provision';
import { defaultDataDir } from '../../services/stack/paths';
import { stackUp } from '../../services/stack/stack';
import { TOPICS, topicFor, topicName } from '../../schemas/catalog';
import { ProgressTracker } from '../../ingest/produce/progress';
import { marketFor, produceSession } from '../../ingest/produce/session-producer';
import { TRADING_DAYS, dayIndex } from '../../ingest/simulator/market';
import { profileNamed } from '../../ingest/simulator/profiles';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      profile: { type: 'string', default: 'full' },
      date: { type: 'string', default: '2026-11-19' },
      'daily-sessions': { type: 'string', default: '400' },
      'daily-profile': { type: 'string', default: 'dev' },
      'full-daily': { type: 'string', default: '5' },
    },
  });
  const profile = profileNamed(values.profile!).name;
  const date = values.date!;
  const dataDir = defaultDataDir();
  const env = { ...process.env, ...(await stackUp({ dataDir, log: () => {} })) };
  const prefix = `bench${Date.now().toString(36)}.`;
  const config = { ...loadConfig(env), topicPrefix: prefix, logLevel: 'warn' };
  await provisionTopicsAndSchemas(config);
  const kafka = createKafka(config, 'mdq-bench');
  const registry = createRegistry(config);
  const progress = new ProgressTracker(kafka, registry, prefix);
  await progress.start();
  const deps = { config, kafka, registry, topicPrefix: prefix, progress };
  const results: Record<string, unknown> = {
    date,
    profile,
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    node: process.version,
  };
  const log = (k: string, v: unknown) => {
    results[k] = v;
    console.log(`${k}: ${typeof v === 'number' ? v.toLocaleString('en-US') : JSON.stringify(v)}`);
  };

  // 1. Generation alone (no Kafka): build the tick tier, walk every 10th chunk, encode its events
  //    (a sample: the whole session is walked once, by the produce step below).
  const encoder = new WireEncoder(registry, prefix);
  await encoder.prepare(TOPICS);
  const market = marketFor(42, profile);
  let t0 = Date.now();
  const daily = market.session(date, 'daily');
  const tick = market.session(date, 'tick');
  log('tickTierSetupSeconds', (Date.now() - t0) / 1000);
  const counts: Record<string, number> = {};
  let wireBytes = 0;
  let events = 0;
  t0 = Date.now();
  for (const gen of [daily, tick]) {
    for (let k = 0; k < gen.chunks; k += gen === tick ? 10 : 1) {
      for (const e of gen.chunk(k)) {
        counts[e.type] = (counts[e.type] ?? 0) + 1;
        const spec = topicFor(e.type)!;
        wireBytes += encoder.encode(spec, e.data).length + Buffer.byteLength(spec.key(e.data));
        events++;
      }
    }
  }
  const genSeconds = (Date.now() - t0) / 1000;
  log('sampledEvents', events);
  log('generateAndEncodeEventsPerSecond', Math.round(events / genSeconds));
  log('wireBytesPerEvent', Math.round((wireBytes / events) * 10) / 10);

  // 2. Produce the session into Kafka, committed in transactions with its progress.
  const admin0 = kafka.admin();
  await admin0.connect();
  t0 = Date.now();
  const p = await produceSession(deps, { seed: 42, profile, date, level: 'tick' });
  const produceSeconds = (Date.now() - t0) / 1000;
  log('producedEvents', p.events);
  const perType: Record<string, number> = {};
  for (const t of TOPICS.filter((x) => !x.internal && !x.derived)) {
    const offs = await admin0.fetchTopicOffsets(topicName(t, prefix));
    perType[t.eventType] = offs.reduce((a, o) => a + Number(o.high), 0);
  }
  log('offsetsPerTopicIncludingTransactionMarkers', perType);
  log('produceSeconds', produceSeconds);
  log('produceEventsPerSecond', Math.round(p.events / produceSeconds));

  // 3. Bytes on disk: the broker's log segments of the bench topics.
  const logs = path.join(dataDir, 'kafka', 'logs');
  let disk = 0;
  for (const d of fs.readdirSync(logs).filter((n) => n.startsWith(prefix.replace(/\.$/, '.')) && !n.includes('progress'))) {
    for (const f of fs.readdirSync(path.join(logs, d))) if (f.endsWith('.log')) disk += fs.statSync(path.join(logs, d, f)).size;
  }
  log('diskBytesPerEvent', Math.round((disk / p.events) * 10) / 10);

  // 4. Daily-level backfill: N sessions of the daily profile, and a few full-profile ones.
  const end = dayIndex(date) - 1;
  const dailyProfile = profileNamed(values['daily-profile']!).name;
  const n = Number(values['daily-sessions']);
  t0 = Date.now();
  let dailyEvents = 0;
  for (let i = end; i > end - n; i--)
    dailyEvents += (await produceSession(deps, { seed: 42, profile: dailyProfile, date: TRADING_DAYS[i], level: 'daily' })).events;
  const dailySeconds = (Date.now() - t0) / 1000;
  log(`daily_${dailyProfile}_${n}SessionsSeconds`, dailySeconds);
  log(`daily_${dailyProfile}_events`, dailyEvents);
  const nf = Number(values['full-daily']);
  if (nf > 0) {
    t0 = Date.now();
    let fe = 0;
    for (let i = end; i > end - nf; i--) fe += (await produceSession(deps, { seed: 42, profile: 'full', date: TRADING_DAYS[i], level: 'daily' })).events;
    const s = (Date.now() - t0) / 1000;
    log('daily_full_eventsPerSession', Math.round(fe / nf));
    log('daily_full_secondsPerSession', s / nf);
    log('daily_full_400SessionsSecondsExtrapolated', Math.round((s / nf) * 400));
  }

  await progress.stop();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: TOPICS.map((t) => topicName(t, prefix)) }).catch(() => {});
  await admin.disconnect();
  const out = path.join(__dirname, 'results', 'ingest.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ measuredAt: new Date().toISOString(), ...results }, null, 2) + '\n');
  console.log(`written to ${path.relative(process.cwd(), out)}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
