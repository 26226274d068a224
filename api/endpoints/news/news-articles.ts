import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { NEWS_TOPICS, SENTIMENTS } from '../../../services/domain/news';
import { NEWS_VIEW } from '../../../services/views/news';
import type { EndpointDef } from '../../request/endpoint';
import { NEWS_FIELDS, NEWS_FILTERS } from '../../fields/news';
import { filterPredicate, parseFilterObject } from '../../request/filter-object';
import { Predicate, and, compileExpression } from '../../request/filter-expression';
import { decodeCursor, encodeCursor, parseSize } from '../../request/paging';
import { parseProjection, project } from '../../request/projection';
export { NEWS_FIELDS } from '../../fields/news';
import { parseTimeRange } from '../../request/time';
import { fragments } from '../../request/validate';
import { type NewsDoc, readNewsPage } from '../../views/news-reader';

const MAX_SIZE = 100;

/** One row of the response; fields dropped by includes/excludes are absent, body is always there. */
const NEWS_ROW_SCHEMA = {
  type: 'object',
  description:
    'A news article (spec "News article row"). Fields dropped by includes/excludes are absent; body is always present, null unless includeBody is true.',
  required: ['body'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', description: 'Unique article id.' },
    publishedTime: { type: 'integer', description: 'Publication time, epoch-ms (UTC).' },
    title: { type: 'string', description: 'Headline.' },
    topics: { type: 'array', items: { enum: [...NEWS_TOPICS] }, description: 'Canonical topic names.' },
    tickers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['ticker', 'sentiment'],
        additionalProperties: false,
        properties: { ticker: { type: 'string' }, sentiment: { enum: [...SENTIMENTS], description: 'Sentiment of the article for this ticker.' } },
      },
    },
    body: { type: ['string', 'null'], description: 'Article text when includeBody is true; null otherwise (or when the article has none).' },
  },
};

const stringOrList = (description: string) => ({ type: ['string', 'array'], items: { type: 'string' }, description });

export const newsArticles: EndpointDef = {
  path: '/news/tool/news-articles',
  summary: 'Ticker-tagged news articles, newest first, cursor-paged.',
  description:
    'News articles ordered by publishedTime descending (article id descending on ties). Filter by tickers, topics (canonical or display form: `M&A`, `Econ #s`) and sentiments, or with a filterExpression over ID, PUBLISHED_TIME, TITLE, TICKER, TOPICS, BODY (contains, ignoring case) and SENTIMENT (ordered by score). Page with `searchAfter` = the previous `nextSearchAfter`; its absence marks the last page.',
  kind: 'table',
  views: [NEWS_VIEW],
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      timeRange: fragments.timeRange,
      size: fragments.size(MAX_SIZE),
      searchAfter: fragments.searchAfter,
      includeBody: { type: 'boolean', default: false, description: 'Populate body on every row.' },
      includes: {
        ...fragments.projectionList,
        description: 'Keep only these fields: ID, PUBLISHED_TIME, TITLE, TICKER, TOPICS (names ignore case and separators). Mutually exclusive with excludes.',
      },
      excludes: { ...fragments.projectionList, description: 'Drop these fields (same names as includes).' },
      filter: {
        ...fragments.filter,
        properties: {
          tickers: stringOrList('Ticker or tickers (alias ticker); OR-combined.'),
          topics: stringOrList('Topics (alias topic), canonical (M_AND_A) or display form (M&A); OR-combined.'),
          sentiments: stringOrList(
            'Sentiments (alias sentiment), e.g. SLIGHTLY_BULLISH; OR-combined. With tickers: one of the tickers carries one of the sentiments.',
          ),
        },
      },
      filterExpression: fragments.filterExpression,
    },
  },
  responseSchema: {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: NEWS_ROW_SCHEMA },
      nextSearchAfter: fragments.nextSearchAfter('Cursor of the next page: pass it back unchanged as searchAfter. Absent on the last page.'),
    },
  },
  examples: {
    latest: { summary: 'The three newest articles', request: { size: 3 } },
    filtered: {
      summary: 'Earnings or M&A news on AAPL or MSFT in one day, with bodies',
      request: {
        size: 2,
        timeRange: { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' },
        filter: { tickers: ['AAPL', 'MSFT'], topics: ['Earnings', 'M&A'] },
        includeBody: true,
      },
      response: {
        data: [
          {
            id: 90412,
            publishedTime: 1714581000000,
            title: 'Apple beats on services revenue',
            topics: ['EARNINGS', 'EARNINGS_BEATS'],
            tickers: [{ ticker: 'AAPL', sentiment: 'MODERATELY_BULLISH' }],
            body: 'Apple reported quarterly revenue above estimates...',
          },
          {
            id: 90377,
            publishedTime: 1714572000000,
            title: 'Microsoft to acquire a gaming studio',
            topics: ['M_AND_A'],
            tickers: [{ ticker: 'MSFT', sentiment: 'SLIGHTLY_BULLISH' }],
            body: 'Microsoft agreed to buy...',
          },
        ],
        nextSearchAfter: ['1714572000000', '90377'],
      },
    },
    expression: {
      summary: 'Bullish articles whose body mentions guidance, four fields only',
      request: {
        includes: ['ID', 'PUBLISHED_TIME', 'TITLE', 'TICKER'],
        filterExpression: {
          conjunction: 'AND',
          filters: [
            { field: 'SENTIMENT', operation: '>=', value: 'SLIGHTLY_BULLISH' },
            { field: 'BODY', operation: 'EQUALS', value: 'guidance' },
          ],
        },
      },
    },
    nextPage: { summary: 'The page after a cursor', request: { size: 2, searchAfter: ['1714572000000', '90377'] }, response: { data: [] } },
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
    const filter = parseFilterObject(body.filter, NEWS_FILTERS, NEWS_FIELDS);
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
