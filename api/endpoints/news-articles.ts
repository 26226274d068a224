import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { NEWS_TOPICS, SENTIMENTS, sentimentScore } from '../../services/domain/news';
import { NEWS_VIEW } from '../../services/views/news';
import type { EndpointDef } from '../request/endpoint';
import { FieldSet } from '../request/fields';
import { FilterParam, filterPredicate, parseFilterObject } from '../request/filter-object';
import { Predicate, and, compileExpression } from '../request/filter-expression';
import { EnumLookup } from '../request/names';
import { decodeCursor, encodeCursor, parseSize } from '../request/paging';
import { parseProjection, project } from '../request/projection';
import { parseTimeRange } from '../request/time';
import { fragments } from '../request/validate';
import { NewsDoc, readNewsPage } from '../views/news-reader';

const topicLookup = new EnumLookup('news topic', NEWS_TOPICS);
const sentimentLookup = new EnumLookup('sentiment', SENTIMENTS);

export const NEWS_FIELDS = new FieldSet<NewsDoc>([
  { name: 'ID', type: 'integer', filterable: true, projectable: true, responseKey: 'id', get: (r) => r.id },
  { name: 'PUBLISHED_TIME', type: 'time', filterable: true, projectable: true, responseKey: 'publishedTime', get: (r) => r.publishedTime },
  { name: 'TITLE', type: 'text', filterable: true, projectable: true, responseKey: 'title', get: (r) => r.title },
  {
    name: 'TICKER',
    aliases: ['TICKERS'],
    type: 'symbol',
    multi: true,
    filterable: true,
    projectable: true,
    responseKey: 'tickers',
    get: (r) => r.tickers.map((t) => t.ticker),
  },
  {
    name: 'TOPICS',
    aliases: ['TOPIC'],
    type: 'enum',
    enumLookup: topicLookup,
    multi: true,
    filterable: true,
    projectable: true,
    responseKey: 'topics',
    get: (r) => r.topics,
  },
  // Filterable, not projectable (spec): body travels only with includeBody, sentiment only inside tickers.
  { name: 'BODY', type: 'text', filterable: true, projectable: false, get: (r) => r.body },
  {
    name: 'SENTIMENT',
    aliases: ['SENTIMENTS'],
    type: 'enum',
    enumLookup: sentimentLookup,
    enumRank: sentimentScore,
    multi: true,
    filterable: true,
    projectable: false,
    get: (r) => r.tickers.map((t) => t.sentiment),
  },
]);

const FILTERS: FilterParam[] = [
  { key: 'tickers', aliases: ['ticker'], kind: 'in', field: 'TICKER' },
  { key: 'topics', aliases: ['topic'], kind: 'in', field: 'TOPICS' },
  { key: 'sentiments', aliases: ['sentiment'], kind: 'in', field: 'SENTIMENT' },
];

const MAX_SIZE = 100;

export const newsArticles: EndpointDef = {
  path: '/news/tool/news-articles',
  summary: 'Ticker-tagged news articles, newest first, cursor-paged.',
  kind: 'table',
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      timeRange: fragments.timeRange,
      size: fragments.size(MAX_SIZE),
      searchAfter: fragments.searchAfter,
      includeBody: { type: 'boolean', default: false },
      includes: fragments.projectionList,
      excludes: fragments.projectionList,
      filter: fragments.filter,
      filterExpression: fragments.filterExpression,
    },
  },

  async handle(body, ctx) {
    const window = body.timeRange === undefined ? null : parseTimeRange(body.timeRange);
    const size = parseSize(body.size, MAX_SIZE);
    const after = decodeCursor(
      body.searchAfter,
      (s) => (/^\d{1,13}$/.test(s) ? Number(s) : null),
      (s) => (/^\d{1,16}$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : null),
    );
    const drop = parseProjection(body.includes, body.excludes, NEWS_FIELDS);
    const filter = parseFilterObject(body.filter, FILTERS, NEWS_FIELDS);
    const expr = body.filterExpression == null ? null : compileExpression(body.filterExpression, NEWS_FIELDS, 'A');

    const tickers = filter.values.get('tickers') as string[] | undefined;
    const topics = filter.values.get('topics') as string[] | undefined;
    const sentiments = filter.values.get('sentiments') as string[] | undefined;
    const parts: Predicate<NewsDoc>[] = [];
    if (tickers && sentiments) {
      // Sentiment is scoped to a ticker: both filters together match an article in which one of
      // the tickers carries one of the sentiments.
      const T = new Set(tickers);
      const S = new Set(sentiments);
      parts.push((r) => r.tickers.some((t) => T.has(t.ticker) && S.has(t.sentiment)));
      parts.push(filterPredicate(filter, ['tickers', 'sentiments']));
    } else {
      parts.push(filterPredicate(filter));
    }
    if (expr) parts.push(expr.predicate);

    const version = await ctx.views.version(NEWS_VIEW);
    if (version === null) return { data: [] };
    const { rows, more } = await readNewsPage(ctx.redis, ctx.keyPrefix, {
      version,
      partitions: MARKET_PARTITIONS,
      window,
      after: after && { publishedTime: after.sort, id: after.id },
      // The most selective convenience filter picks the index; the predicate checks the rest.
      sources: (k) => (tickers ? tickers.map(k.ticker) : topics ? topics.map(k.topic) : sentiments ? sentiments.map(k.sentiment) : [k.all]),
      predicate: and(parts),
      predicateNeedsBody: !!expr?.fields.has('BODY'),
      includeBody: body.includeBody === true,
      size,
    });
    const data = rows.map((r) =>
      project({ id: r.id, publishedTime: r.publishedTime, title: r.title, topics: r.topics, tickers: r.tickers, body: r.body }, drop),
    );
    const last = rows[rows.length - 1];
    return more ? { data, nextSearchAfter: encodeCursor(last.publishedTime, last.id) } : { data };
  },
};
