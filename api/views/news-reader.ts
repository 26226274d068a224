import type Redis from 'ioredis';
import { PartitionKeys } from '../../services/views/keys';
import { NEWS_VIEW, NewsRow, idField, indexMember, newsKeys, parseMember } from '../../services/views/news';
import type { TimeWindow } from '../request/time';
import { DescendingLexMerge } from './lex-merge';

export interface NewsDoc extends NewsRow {
  body: string | null;
}

export interface NewsPageQuery {
  version: number;
  partitions: number;
  window: TimeWindow | null;
  /** The last row of the previous page: (publishedTime, id). */
  after: { publishedTime: number; id: number } | null;
  /** Index keys to draw candidates from, per partition (their union is a superset of matches). */
  sources: (keys: ReturnType<typeof newsKeys>) => string[];
  predicate: (doc: NewsDoc) => boolean;
  /** The predicate reads the body, so bodies are fetched for candidates. */
  predicateNeedsBody: boolean;
  includeBody: boolean;
  size: number;
}

/**
 * One page of news, newest first with the id as tie-break: candidates stream from the partitions'
 * index zsets through a k-way merge, rows are fetched in pipelined batches and tested with the
 * compiled predicate until size + 1 rows match (the extra row proves there is a next page).
 */
export async function readNewsPage(redis: Redis, keyPrefix: string, q: NewsPageQuery): Promise<{ rows: NewsDoc[]; more: boolean }> {
  const keysOf = (p: number) => newsKeys(new PartitionKeys(keyPrefix, NEWS_VIEW, q.version, p));
  const sources = [];
  for (let p = 0; p < q.partitions; p++) for (const key of q.sources(keysOf(p))) sources.push({ partition: p, key });

  let upper = '+';
  if (q.window) upper = `(${String(q.window.endMs).padStart(13, '0')}:`;
  if (q.after) {
    const c = `(${indexMember(q.after.publishedTime, q.after.id)}`;
    if (upper === '+' || c < upper) upper = c;
  }
  const lower = q.window && q.window.startMs > 0 ? `[${String(q.window.startMs).padStart(13, '0')}:` : '-';
  const want = q.size + 1;
  const merge = new DescendingLexMerge(redis, sources, upper, lower, Math.min(want, 1000));

  const rows: NewsDoc[] = [];
  const partitionOf: number[] = [];
  while (rows.length < want) {
    const hits = await merge.next(Math.max(want - rows.length, 64));
    if (!hits.length) break;
    const pipe = redis.pipeline();
    for (const h of hits) {
      const k = keysOf(h.partition);
      const id = idField(parseMember(h.member).id);
      pipe.hget(k.doc, id);
      if (q.predicateNeedsBody) pipe.hget(k.body, id);
    }
    const res = (await pipe.exec())!;
    const per = q.predicateNeedsBody ? 2 : 1;
    for (let i = 0; i < hits.length && rows.length < want; i++) {
      const [err, json] = res[i * per];
      if (err) throw err;
      if (!json) continue; // removed between the index read and now (a correction moved it)
      const doc = { ...(JSON.parse(json as string) as NewsRow), body: null } as NewsDoc;
      if (q.predicateNeedsBody) doc.body = (res[i * per + 1][1] as string | null) ?? null;
      if (q.predicate(doc)) {
        rows.push(doc);
        partitionOf.push(hits[i].partition);
      }
    }
  }
  const more = rows.length > q.size;
  if (more) rows.length = q.size;

  if (q.includeBody && !q.predicateNeedsBody && rows.length) {
    const pipe = redis.pipeline();
    rows.forEach((r, i) => pipe.hget(keysOf(partitionOf[i]).body, idField(r.id)));
    const res = (await pipe.exec())!;
    rows.forEach((r, i) => {
      r.body = (res[i][1] as string | null) ?? null;
    });
  }
  if (!q.includeBody) for (const r of rows) r.body = null;
  return { rows, more };
}
