/**
 * The news question and its PostgreSQL twin: a week of the simulated news feed (what `npm start`
 * backfills) projected into the news view with the projection's own logic, and the same articles
 * in a PostgreSQL table indexed by publication order. Used by endpoints.ts.
 */
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { MARKET_PARTITIONS, topicFor } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys, pointerKey } from '../../../services/views/keys';
import { NEWS_VIEW } from '../../../services/views/news';
import { newsBetween } from '../../../ingest/sources/news-simulator';
import { newsProjection } from '../../../projections/news/projection';
import { applyAtomically } from '../../../projections/runtime/atomic-apply';
import { copyRows } from '../postgres';
import { samePage, type SideBySideQuery } from '../side-by-side';

const MINUTE = 60_000;

export interface NewsData {
  table: string;
  articles: number;
  from: string;
  to: string;
}

/**
 * `days` days of the feed (seed 42) ending at `endMs`, into the news view under `prefix` (version 1,
 * articles keyed by id as the feed publishes them) and into PostgreSQL table `table`.
 */
export async function loadNews(redis: Redis, prefix: string, pool: Pool, table: string, endMs: number, days = 7): Promise<NewsData> {
  const toMinute = Math.floor(endMs / MINUTE);
  const articles = newsBetween(42, toMinute - days * 24 * 60, toMinute);
  const topic = topicFor('news')!.name;
  const byPartition = new Map<number, typeof articles>();
  for (const a of articles) {
    const p = partitionOf(String(a.id), MARKET_PARTITIONS);
    (byPartition.get(p) ?? byPartition.set(p, []).get(p)!).push(a);
  }
  for (const [p, list] of byPartition) {
    const keys = new PartitionKeys(prefix, NEWS_VIEW, 1, p);
    for (let i = 0; i < list.length; i += 500) {
      const chunk = list
        .slice(i, i + 500)
        .map((a, n) => ({ topic, partition: p, offset: i + n, key: String(a.id), value: a as unknown as Record<string, unknown> }));
      const ops = await newsProjection.project(chunk, keys, redis);
      const res = await applyAtomically(redis, keys.offsets, topic, i - 1, chunk[chunk.length - 1].offset, ops, []);
      if (!res.applied) throw new Error('news chunk not applied');
    }
  }
  await redis.set(pointerKey(prefix, NEWS_VIEW), '1');
  await pool.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, published_time bigint NOT NULL, title text NOT NULL, body text,
    topics text[] NOT NULL, tickers jsonb NOT NULL, ticker_list text[] NOT NULL)`);
  await copyRows(
    pool,
    table,
    ['id', 'published_time', 'title', 'body', 'topics', 'tickers', 'ticker_list'],
    articles.map((a) => [
      a.id,
      a.publishedTime,
      a.title,
      a.body,
      `{${a.topics.map((t) => JSON.stringify(t)).join(',')}}`,
      JSON.stringify(a.tickers),
      `{${a.tickers.map((t) => JSON.stringify(t.ticker)).join(',')}}`,
    ]),
  );
  // Newest first is the only order; a ticker's articles through a GIN index on the tag list.
  await pool.query(`CREATE INDEX ON ${table} (published_time DESC, id DESC)`);
  await pool.query(`CREATE INDEX ON ${table} USING gin (ticker_list)`);
  await pool.query(`VACUUM ANALYZE ${table}`);
  return {
    table,
    articles: articles.length,
    from: new Date((toMinute - days * 24 * 60) * MINUTE).toISOString(),
    to: new Date(toMinute * MINUTE).toISOString(),
  };
}

/** The newest page of 50 articles, each with its title; checked id by id and title by title. */
export function newsQueries(d: NewsData): SideBySideQuery[] {
  return [
    {
      name: 'news-articles first page of 50',
      role: 'typical',
      path: '/v1/news/tool/news-articles',
      body: { size: 50 },
      sql: `SELECT id, published_time, title, topics, tickers FROM ${d.table} ORDER BY published_time DESC, id DESC LIMIT 51`,
      params: [],
      same: (api, rows) =>
        samePage(api, rows) && api.data.every((r: any, i: number) => r.title === rows[i].title && r.publishedTime === Number(rows[i].published_time)),
    },
  ];
}
