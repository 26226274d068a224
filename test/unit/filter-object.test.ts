import { NEWS_FIELDS } from '../../api/endpoints/news/news-articles';
import { FieldSet } from '../../api/request/fields';
import { FilterParam, filterPredicate, otherNumber, parseFilterObject } from '../../api/request/filter-object';
import { withFilterSpellings } from '../../api/request/filter-schema';
import { TICKER_FILTER } from '../../api/request/required-ticker';
import type { NewsDoc } from '../../api/fields/news';
import { expectInvalid } from '../support/problems';

const NEWS_FILTERS: FilterParam[] = [
  { key: 'tickers', aliases: ['ticker'], kind: 'in', field: 'TICKER' },
  { key: 'topics', aliases: ['topic'], kind: 'in', field: 'TOPICS' },
];

interface Opt {
  strike: number;
  expiry: string;
  unusual: boolean;
}
const OPT_FIELDS = new FieldSet<Opt>([
  { name: 'STRIKE_PRICE', type: 'number', filterable: true, projectable: true, get: (r) => r.strike },
  { name: 'EXPIRATION_DATE', type: 'date', filterable: true, projectable: true, get: (r) => r.expiry },
  { name: 'IS_UNUSUAL', type: 'boolean', filterable: true, projectable: true, get: (r) => r.unusual },
]);
const OPT_FILTERS: FilterParam[] = [
  { key: 'strikePrices', aliases: ['strikePrice'], kind: 'in', field: 'STRIKE_PRICE' },
  { key: 'strikePriceRange', kind: 'range', field: 'STRIKE_PRICE' },
  { key: 'expirationDateRange', kind: 'dateRange', field: 'EXPIRATION_DATE' },
  { key: 'isUnusual', kind: 'bool', field: 'IS_UNUSUAL' },
];
const EXCLUSIVE = [['strikePrices', 'strikePriceRange']] as const;

const article = { id: 1, publishedTime: 0, title: 't', topics: ['M_AND_A'], tickers: [{ ticker: 'AAPL', sentiment: 'NEUTRAL' }], body: null } as NewsDoc;

describe('filter object', () => {
  it('accepts singular and plural names with a scalar or an array', () => {
    for (const f of [{ ticker: 'aapl' }, { tickers: 'AAPL' }, { ticker: ['AAPL'] }, { TICKERS: ['msft', 'aapl'] }, { 'Ticker ': 'AAPL' }]) {
      const parsed = parseFilterObject(f, NEWS_FILTERS, NEWS_FIELDS);
      expect(filterPredicate(parsed)(article)).toBe(true);
    }
    const parsed = parseFilterObject({ tickers: ['MSFT', 'msft'] }, NEWS_FILTERS, NEWS_FIELDS);
    expect(parsed.values.get('tickers')).toEqual(['MSFT']);
    expect(filterPredicate(parsed)(article)).toBe(false);
  });

  it('ANDs across keys and ORs within one', () => {
    expect(filterPredicate(parseFilterObject({ tickers: ['TSLA', 'AAPL'], topics: 'M&A' }, NEWS_FILTERS, NEWS_FIELDS))(article)).toBe(true);
    expect(filterPredicate(parseFilterObject({ tickers: 'AAPL', topics: 'IPOS' }, NEWS_FILTERS, NEWS_FIELDS))(article)).toBe(false);
  });

  it('rejects a filter named twice under two spellings', () => {
    expectInvalid(() => parseFilterObject({ ticker: 'A', tickers: ['B'] }, NEWS_FILTERS, NEWS_FIELDS), 'filter.tickers', /same filter/);
  });

  it('rejects unknown filters and empty lists', () => {
    expectInvalid(() => parseFilterObject({ sector: 'TECHNOLOGY' }, NEWS_FILTERS, NEWS_FIELDS), 'filter.sector', /not a filter of this endpoint/);
    expectInvalid(() => parseFilterObject({ tickers: [] }, NEWS_FILTERS, NEWS_FIELDS), 'filter.tickers', /empty/);
    expectInvalid(() => parseFilterObject({ topics: ['EARNINGS', 'nope'] }, NEWS_FILTERS, NEWS_FIELDS), 'filter.topics[1]', /news topic/);
    expectInvalid(() => parseFilterObject([], NEWS_FILTERS, NEWS_FIELDS), 'filter');
  });

  it('treats null as absent', () => {
    const parsed = parseFilterObject({ tickers: null }, NEWS_FILTERS, NEWS_FIELDS);
    expect(parsed.terms.size).toBe(0);
  });
});

describe('ranges', () => {
  const row = { strike: 100, expiry: '2024-06-21', unusual: true };
  const pred = (f: unknown) => filterPredicate(parseFilterObject(f, OPT_FILTERS, OPT_FIELDS, EXCLUSIVE))(row);

  it('are inclusive and take null or absent bounds', () => {
    expect(pred({ strikePriceRange: { min: 100, max: 100 } })).toBe(true);
    expect(pred({ strikePriceRange: { min: 100.01, max: null } })).toBe(false);
    expect(pred({ strikePriceRange: { max: 99.99 } })).toBe(false);
    expect(pred({ strikePriceRange: { min: null, max: null } })).toBe(true);
    expect(pred({ expirationDateRange: { startDate: '2024-06-21' } })).toBe(true);
    expect(pred({ expirationDateRange: { startDate: '2024-06-01', endDate: '2024-06-20' } })).toBe(false);
    expect(pred({ isUnusual: false })).toBe(false);
  });

  it('reject inverted, mistyped or unknown bounds', () => {
    expectInvalid(() => pred({ strikePriceRange: { min: 5, max: 1 } }), 'filter.strikePriceRange', /greater/);
    expectInvalid(() => pred({ strikePriceRange: { min: '5' } }), 'filter.strikePriceRange.min', /number/);
    expectInvalid(() => pred({ strikePriceRange: { low: 5 } }), 'filter.strikePriceRange.low');
    expectInvalid(() => pred({ expirationDateRange: { startDate: '2024-13-01' } }), 'filter.expirationDateRange.startDate', /yyyy-MM-dd/);
  });

  it('a single value and its range are mutually exclusive', () => {
    expectInvalid(() => pred({ strikePrice: 100, strikePriceRange: { min: 1 } }), 'filter.strikePriceRange', /mutually exclusive/);
  });
});

describe('the alias rule, decided once', () => {
  it('derives the other number of every value filter name', () => {
    expect(['ticker', 'tickers', 'industry', 'industries', 'strikePrice', 'expirationDates', 'osi'].map(otherNumber)).toEqual([
      'tickers',
      'ticker',
      'industries',
      'industry',
      'strikePrices',
      'expirationDate',
      'osis',
    ]);
  });

  it('a filter declared under one spelling answers to all four', () => {
    const single: FilterParam[] = [{ key: 'ticker', kind: 'eq', field: 'TICKER' }];
    for (const f of [{ ticker: 'AAPL' }, { ticker: ['AAPL'] }, { tickers: 'AAPL' }, { tickers: ['aapl'] }]) {
      expect(parseFilterObject(f, single, NEWS_FIELDS).values.get('ticker')).toEqual(['AAPL']);
      expect(parseFilterObject(f, [TICKER_FILTER], NEWS_FIELDS).values.get('tickers')).toEqual(['AAPL']);
    }
    expectInvalid(() => parseFilterObject({ tickers: ['A', 'B'] }, single, NEWS_FIELDS), 'filter.tickers', /single value, got 2/);
  });

  it('the request schemas accept a list wherever a filter takes one value', () => {
    const schema = withFilterSpellings({
      type: 'object',
      properties: {
        filter: {
          type: 'object',
          additionalProperties: false,
          required: ['ticker'],
          properties: {
            ticker: { type: 'string', description: 'd' },
            expirationDate: { type: ['string', 'null'], format: 'date' },
            isUnusual: { type: 'boolean' },
            strikePriceRange: { type: 'object' },
          },
        },
      },
    });
    expect((schema.properties as Record<string, unknown>).filter).toEqual({
      type: 'object',
      properties: {
        ticker: { type: ['string', 'array'], items: { type: 'string' }, description: 'd' },
        expirationDate: { type: ['string', 'null', 'array'], items: { type: 'string', format: 'date' } },
        isUnusual: { type: 'boolean' },
        strikePriceRange: { type: 'object' },
      },
    });
  });
});
