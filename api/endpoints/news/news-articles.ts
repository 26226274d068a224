import { partitionOf } from '../../../services/kafka/partition';
import { NEWS_TOPICS, SENTIMENTS } from '../../../services/domain/news';
import { PartitionKeys } from '../../../services/views/keys';
import { NEWS_LAYOUT, NEWS_VIEW, idField, newsBodyKey } from '../../../services/views/news';
import { encodeSortKey } from '../../../services/views/sort-keys';
import type { TableLayout } from '../../../services/views/table';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import type { EndpointDef } from '../../request/endpoint';
import { NEWS_FIELDS, NEWS_FILTERS, type NewsDoc } from '../../fields/news';
import { filterPredicate } from '../../request/filter-object';
import { type Predicate, and } from '../../request/filter-expression';
import { fragments } from '../../request/validate';
import { tableEndpoint, type CursorCodec } from '../../tables/table-endpoint';

export { NEWS_FIELDS } from '../../fields/news';

const MAX_SIZE = 100;

/** The news view as the engine reads it: rows with their body, filled in only when asked for. */
const LAYOUT: TableLayout<NewsDoc> = {
  ...NEWS_LAYOUT,
  warm: undefined,
  decode: (stored, rowKey, seg) => ({ ...NEWS_LAYOUT.decode(stored, rowKey, seg), body: null }),
};

/** News cursors are readable, as the vendor's: [publishedTime, id]. */
const NEWS_CURSOR: CursorCodec = {
  encode: (_sortKey, rowKey, publishedTime) => [String(publishedTime), String(Number(rowKey))],
  decode: ([t, id]) =>
    /^\d{1,13}$/.test(t) && /^\d{1,16}$/.test(id) && Number.isSafeInteger(Number(id))
      ? { sortKey: encodeSortKey(Number(t)), rowKey: idField(Number(id)) }
      : null,
};

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

export const newsArticles: EndpointDef = tableEndpoint<NewsDoc>({
  path: '/news/tool/news-articles',
  summary: 'Ticker-tagged news articles, newest first, cursor-paged.',
  description:
    'News articles ordered by publishedTime descending (article id descending on ties). Filter by tickers, topics (canonical or display form: `M&A`, `Econ #s`) and sentiments, or with a filterExpression over ID, PUBLISHED_TIME, TITLE, TICKER, TOPICS, BODY (contains, ignoring case) and SENTIMENT (ordered by score). Page with `searchAfter` = the previous `nextSearchAfter`; its absence marks the last page.',
  layout: LAYOUT,
  fields: NEWS_FIELDS,
  filters: NEWS_FILTERS,
  maxSize: MAX_SIZE,
  selectors: ['timeRange'],
  defaultSort: { field: 'PUBLISHED_TIME', descending: true },
  sortable: false,
  rowKeyPattern: /^\d{16}$/,
  cursor: NEWS_CURSOR,
  rowSchema: NEWS_ROW_SCHEMA,
  streamable: true,
  projectionNote: 'Keep only these fields: ID, PUBLISHED_TIME, TITLE, TICKER, TOPICS (names ignore case and separators). Mutually exclusive with excludes.',
  filterSchema: {
    ...fragments.filter,
    properties: {
      tickers: fragments.stringOrList('Ticker or tickers (alias ticker); OR-combined.'),
      topics: fragments.stringOrList('Topics (alias topic), canonical (M_AND_A) or display form (M&A); OR-combined.'),
      sentiments: fragments.stringOrList(
        'Sentiments (alias sentiment), e.g. SLIGHTLY_BULLISH; OR-combined. With tickers: one of the tickers carries one of the sentiments.',
      ),
    },
  },
  requestExtras: { includeBody: { type: 'boolean', default: false, description: 'Populate body on every row.' } },
  predicate: (filter, expression) => {
    const tickers = filter.values.get('tickers') as string[] | undefined;
    const sentiments = filter.values.get('sentiments') as string[] | undefined;
    const parts: Predicate<NewsDoc>[] = [];
    if (tickers && sentiments) {
      // Sentiment is scoped to a ticker: both filters together match an article in which one of
      // the tickers carries one of the sentiments.
      const T = new Set(tickers);
      const S = new Set(sentiments);
      parts.push((r) => r.tickers.some((t) => T.has(t.ticker) && S.has(t.sentiment)));
      parts.push(filterPredicate(filter, ['tickers', 'sentiments']));
    } else parts.push(filterPredicate(filter));
    if (expression) parts.push(expression.predicate);
    return and(parts);
  },
  // Each convenience filter has its index; the engine reads the smallest (the predicate checks the rest).
  families: (plan, { filter }) => {
    const out = [];
    for (const [key, index] of [
      ['tickers', 'tk'],
      ['topics', 'tp'],
      ['sentiments', 'se'],
    ] as const) {
      const values = filter.values.get(key) as string[] | undefined;
      if (values) out.push(plan.indexFamily(index, index, values));
    }
    return out;
  },
  // A predicate on BODY reads each candidate's body with it.
  companions: ({ expression }) =>
    expression?.fields.has('BODY') ? [{ hash: (k) => newsBodyKey(k), attach: (row, v) => (row.body = v === null ? null : v.toString('utf8')) }] : undefined,
  decorate: async (rows, req, ctx) => {
    if (req.body.includeBody !== true || req.expression?.fields.has('BODY')) return;
    const pipe = ctx.redis.pipeline();
    for (const r of rows)
      pipe.hget(newsBodyKey(new PartitionKeys(ctx.keyPrefix, NEWS_VIEW, req.version, partitionOf(String(r.id), MARKET_PARTITIONS))), idField(r.id));
    const res = (await pipe.exec())!;
    rows.forEach((r, i) => {
      const [err, body] = res[i];
      if (err) throw err;
      r.body = (body as string | null) ?? null;
    });
  },
  toResponse: (r, req) => ({
    id: r.id,
    publishedTime: r.publishedTime,
    title: r.title,
    topics: r.topics,
    tickers: r.tickers,
    body: req.body.includeBody === true ? r.body : null,
  }),
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
});
