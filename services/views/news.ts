import { PartitionKeys } from './keys';

/**
 * The news view: per partition, article rows and lexicographic indexes.
 *
 *   doc            hash  id16 -> row JSON without body
 *   body           hash  id16 -> body text (only for articles that have one)
 *   t              zset  every article
 *   tk:<TICKER>    zset  articles tagged with the ticker
 *   tp:<TOPIC>     zset  articles with the topic
 *   se:<SENTIMENT> zset  articles with at least one ticker of that sentiment
 *
 * Every index zset has all scores 0 and members `<publishedTime:13 digits>:<id:16 digits>`, so
 * ZRANGE BYLEX walks (publishedTime, id) in order: keyset paging with an exact id tie-break and
 * no duplicate or skipped rows, whatever the number of articles sharing one millisecond.
 */

export const NEWS_VIEW = 'news';

export interface NewsRow {
  id: number;
  publishedTime: number;
  title: string;
  topics: string[];
  tickers: { ticker: string; sentiment: string }[];
}

export interface NewsArticleEvent extends NewsRow {
  body: string | null;
}

export function newsKeys(p: PartitionKeys) {
  return {
    doc: p.key('doc'),
    body: p.key('body'),
    all: p.key('t'),
    ticker: (t: string) => p.key('tk', t),
    topic: (t: string) => p.key('tp', t),
    sentiment: (s: string) => p.key('se', s),
  };
}

export function idField(id: number): string {
  return String(id).padStart(16, '0');
}

export function indexMember(publishedTime: number, id: number): string {
  return `${String(publishedTime).padStart(13, '0')}:${idField(id)}`;
}

export function parseMember(member: string): { publishedTime: number; id: number } {
  const i = member.indexOf(':');
  return { publishedTime: Number(member.slice(0, i)), id: Number(member.slice(i + 1)) };
}

/** Every index key an article is a member of. */
export function indexKeysOf(k: ReturnType<typeof newsKeys>, row: NewsRow): string[] {
  const keys = new Set<string>([k.all]);
  for (const t of row.tickers) {
    keys.add(k.ticker(t.ticker));
    keys.add(k.sentiment(t.sentiment));
  }
  for (const t of row.topics) keys.add(k.topic(t));
  return [...keys];
}
