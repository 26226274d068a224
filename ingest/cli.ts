import { loadConfig } from '../services/config';
import { createKafka, createRegistry } from '../services/kafka/clients';
import { EventProducer } from '../services/kafka/producer';
import { createLogger } from '../services/log';
import { createRedis } from '../services/redis/client';
import { importFile } from './sources/file-import';
import { NewsFeed } from './sources/news-feed';

/**
 * `npm run ingest -- file <path.jsonl>`   validate and produce a JSONL file of events
 * `npm run ingest -- news-live`           the simulated live news feed (what `npm start` runs)
 */
async function main(): Promise<number> {
  const [cmd, arg] = process.argv.slice(2);
  const config = loadConfig();
  const log = createLogger('ingest', config.logLevel);
  const kafka = createKafka(config, 'mdq-ingest', log);
  const producer = new EventProducer(kafka, createRegistry(config), config.topicPrefix);

  if (cmd === 'file') {
    if (!arg) throw new Error('usage: npm run ingest -- file <path.jsonl>');
    await producer.connect();
    try {
      const r = await importFile(arg, producer);
      for (const b of r.bad) console.error(`line ${b.line}: ${b.reason}`);
      console.log(`${arg}: ${r.lines} lines, ${r.produced} events produced, ${r.bad.length} bad lines`);
      return r.bad.length ? 1 : 0;
    } finally {
      await producer.disconnect();
    }
  }
  if (cmd === 'news-live') {
    const redis = createRedis(config.redisUrl, log);
    await producer.connect();
    const feed = new NewsFeed({
      producer,
      redis,
      keyPrefix: config.keyPrefix,
      log,
      seed: Number(process.env.MDQ_SEED ?? 42),
      backfillDays: Number(process.env.MDQ_NEWS_BACKFILL_DAYS ?? 7),
    });
    feed.start();
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
    await feed.stop();
    await producer.disconnect();
    await redis.quit().catch(() => {});
    return 0;
  }
  console.error('usage: npm run ingest -- file <path.jsonl> | news-live');
  return 2;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
