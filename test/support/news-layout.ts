import type { PartitionKeys } from '../../services/views/keys';
import { NEWS_LAYOUT, idField, newsBodyKey } from '../../services/views/news';
import { encodeSortKey, indexMember as member } from '../../services/views/sort-keys';
import { TableKeys } from '../../services/views/table';

/** Where the news view keeps things (services/views/news.ts), for tests that look at the stored view. */
export const DOC_SUFFIX = ':r';
export const ALL_SUFFIX = ':x:time';

export function newsKeys(p: PartitionKeys) {
  const k = new TableKeys(p);
  return {
    doc: k.rows(''),
    body: newsBodyKey(k),
    all: k.sorted('', NEWS_LAYOUT.sorts[0].suffix),
    ticker: (t: string) => k.index('', 'tk', t),
  };
}

/** An article's member in the news indexes. */
export function indexMember(publishedTime: number, id: number): string {
  return member(encodeSortKey(publishedTime), idField(id));
}
