import { PartitionKeys } from './keys';
import { TableKeys, type TableLayout } from './table';

/**
 * The news view: a table view (table.ts) of articles without segments, plus their bodies. Per
 * partition:
 *
 *   r              hash  rowKey -> row JSON without body (rowKey: the id in 16 digits)
 *   body           hash  rowKey -> body text (only for articles that have one)
 *   x:time         zset  every article, by publishedTime
 *   tk:<TICKER>    zset  articles tagged with the ticker, by publishedTime
 *   tp:<TOPIC>     zset  articles with the topic
 *   se:<SENTIMENT> zset  articles with at least one ticker of that sentiment
 *
 * The rowKey is the id zero-padded to 16 digits, so articles published in the same millisecond
 * are ordered by id.
 */

export const NEWS_VIEW = 'news';

/** Version of the layout above: a view stored under another layout is rebuilt when the projector starts. */
export const NEWS_LAYOUT_FORMAT = 2;

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

export function idField(id: number): string {
  return String(id).padStart(16, '0');
}

export const NEWS_LAYOUT: TableLayout<NewsRow> = {
  view: NEWS_VIEW,
  segmented: false,
  segmentOf: () => '',
  rowKeyOf: (r) => idField(r.id),
  encode: (r) => JSON.stringify(r),
  decode: (stored) => JSON.parse(stored.toString()) as NewsRow,
  sorts: [{ field: 'PUBLISHED_TIME', suffix: 'time', value: (r) => r.publishedTime }],
  indexes: [
    { name: 'tk', values: (r) => r.tickers.map((t) => t.ticker) },
    { name: 'tp', values: (r) => r.topics },
    { name: 'se', values: (r) => r.tickers.map((t) => t.sentiment) },
  ],
};

/** The hash of article bodies of a partition. */
export function newsBodyKey(k: TableKeys | PartitionKeys): string {
  return (k instanceof TableKeys ? k.p : k).key('body');
}
