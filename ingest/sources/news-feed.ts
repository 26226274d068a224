import type { RedisClient as Redis } from '../../services/redis/client';
import { topicFor } from '../../schemas/catalog';
import type { EventProducer } from '../../services/kafka/producer';
import type { Logger } from '../../services/log';
import { newsBetween } from './news-simulator';

const MINUTE = 60_000;

export interface NewsFeedOptions {
  producer: EventProducer;
  redis: Redis;
  keyPrefix: string;
  log: Logger;
  seed: number;
  /** How far back the first run starts. */
  backfillDays: number;
  now?: () => number;
}

/**
 * Runs the simulated news feed: on start it catches up from where it last stopped (or from
 * backfillDays ago), then publishes each minute's articles once the minute has passed. The last
 * minute produced is kept in Redis after the broker acknowledged it, so a restart neither skips
 * nor repeats a minute; if it dies between the two, the minute is sent again and the view, keyed
 * by article id, stays the same.
 */
export class NewsFeed {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly markerKey: string;

  constructor(private readonly o: NewsFeedOptions) {
    this.markerKey = `${o.keyPrefix}:ingest:news:through-minute`;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** Produces every complete minute not yet produced; returns the number of articles sent. */
  async catchUp(): Promise<number> {
    const spec = topicFor('news')!;
    const through = await this.o.redis.get(this.markerKey);
    let from = through === null ? Math.floor((this.now() - this.o.backfillDays * 86_400_000) / MINUTE) : Number(through) + 1;
    const until = Math.floor(this.now() / MINUTE); // the current minute is not complete yet
    let sent = 0;
    while (from < until) {
      const to = Math.min(from + 720, until); // half a day of minutes per batch
      const articles = newsBetween(this.o.seed, from, to);
      await this.o.producer.send(spec, articles as unknown as Record<string, unknown>[]);
      await this.o.redis.set(this.markerKey, String(to - 1));
      sent += articles.length;
      from = to;
    }
    return sent;
  }

  start(intervalMs = 5_000): void {
    const tick = async () => {
      try {
        const n = await this.catchUp();
        if (n) this.o.log.info({ articles: n }, 'news published');
      } catch (err) {
        this.o.log.warn({ err: (err as Error).message }, 'news feed tick failed; will retry');
      }
    };
    this.running = tick();
    this.timer = setInterval(() => {
      this.running = (this.running ?? Promise.resolve()).then(tick);
    }, intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
