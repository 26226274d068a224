import { NEWS_TOPICS, SENTIMENTS, sentimentScore } from '../../services/domain/news';
import { FieldSet } from '../request/fields';
import type { FilterParam } from '../request/filter-object';
import { EnumLookup } from '../request/names';
import type { NewsRow } from '../../services/views/news';
import { TICKER_FILTER } from '../request/required-ticker';

/** A news row as endpoints read it: the stored row and its body (null unless read). */
export interface NewsDoc extends NewsRow {
  body: string | null;
}

/** The news field reference (spec "News article row") and the filter object's keys. */

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

export const NEWS_FILTERS: FilterParam[] = [
  TICKER_FILTER,
  { key: 'topics', aliases: ['topic'], kind: 'in', field: 'TOPICS' },
  { key: 'sentiments', aliases: ['sentiment'], kind: 'in', field: 'SENTIMENT' },
];
