import { compileExpression, parseOp } from '../../api/request/filter-expression';
import { NEWS_FIELDS } from '../../api/endpoints/news/news-articles';
import type { NewsDoc } from '../../api/fields/news';
import { expectInvalid } from '../support/problems';

const doc = (over: Partial<NewsDoc>): NewsDoc => ({
  id: 1,
  publishedTime: Date.UTC(2024, 0, 2, 15),
  title: 'Apple Beats Expectations',
  topics: ['EARNINGS', 'EARNINGS_BEATS'],
  tickers: [
    { ticker: 'AAPL', sentiment: 'MODERATELY_BULLISH' },
    { ticker: 'MSFT', sentiment: 'NEUTRAL' },
  ],
  body: 'Apple reported record services revenue.',
  ...over,
});

const run = (expr: unknown, d: NewsDoc) => compileExpression(expr, NEWS_FIELDS).predicate(d);

describe('operations', () => {
  it.each([
    ['=', 'EQ'],
    ['EQ', 'EQ'],
    ['EQUALS', 'EQ'],
    ['!=', 'NEQ'],
    ['NEQ', 'NEQ'],
    ['DOES_NOT_EQUAL', 'NEQ'],
    ['<', 'LT'],
    ['LT', 'LT'],
    ['LESS_THAN', 'LT'],
    ['<=', 'LTE'],
    ['LTE', 'LTE'],
    ['LESS_THAN_OR_EQUAL_TO', 'LTE'],
    ['>', 'GT'],
    ['GT', 'GT'],
    ['GREATER_THAN', 'GT'],
    ['>=', 'GTE'],
    ['GTE', 'GTE'],
    ['GREATER_THAN_OR_EQUAL_TO', 'GTE'],
    ['greater than or equal to', 'GTE'],
    ['equals', 'EQ'],
  ])('%s is %s', (spelling, op) => {
    expect(parseOp(spelling, 'x')).toBe(op);
  });

  it('rejects unknown operations naming the path', () => {
    expectInvalid(() => compileExpression({ field: 'ID', operation: 'LIKE', value: 1 }, NEWS_FIELDS), 'filterExpression.operation', /LIKE/);
  });
});

describe('terms', () => {
  it('compares numbers and times with every operation', () => {
    const d = doc({ id: 10 });
    expect(run({ field: 'id', operation: '=', value: 10 }, d)).toBe(true);
    expect(run({ field: 'id', operation: '!=', value: 10 }, d)).toBe(false);
    expect(run({ field: 'id', operation: '<', value: 10 }, d)).toBe(false);
    expect(run({ field: 'id', operation: '<=', value: 10 }, d)).toBe(true);
    expect(run({ field: 'id', operation: '>', value: 9 }, d)).toBe(true);
    expect(run({ field: 'id', operation: '>=', value: 11 }, d)).toBe(false);
    expect(run({ field: 'PUBLISHED_TIME', operation: 'GTE', value: '2024-01-02T15:00:00Z' }, d)).toBe(true);
    expect(run({ field: 'published-time', operation: 'GT', value: Date.UTC(2024, 0, 2, 15) }, d)).toBe(false);
  });

  it('matches a multi-valued field when any element matches; != when none does', () => {
    const d = doc({});
    expect(run({ field: 'TICKER', operation: '=', value: 'msft' }, d)).toBe(true);
    expect(run({ field: 'tickers', operation: 'EQ', values: ['TSLA', 'AAPL'] }, d)).toBe(true);
    expect(run({ field: 'ticker', operation: '!=', value: 'AAPL' }, d)).toBe(false);
    expect(run({ field: 'ticker', operation: 'NEQ', values: ['TSLA', 'NVDA'] }, d)).toBe(true);
    expect(run({ field: 'topic', operation: '=', value: 'Earnings Beats' }, d)).toBe(true);
  });

  it('orders sentiment by score', () => {
    const d = doc({});
    expect(run({ field: 'SENTIMENT', operation: '>=', value: 'MODERATELY_BULLISH' }, d)).toBe(true);
    expect(run({ field: 'SENTIMENT', operation: '>', value: 'MODERATELY_BULLISH' }, d)).toBe(false);
    expect(run({ field: 'SENTIMENT', operation: '<', value: 'SLIGHTLY_BULLISH' }, d)).toBe(true); // MSFT is NEUTRAL
    expect(run({ field: 'sentiments', operation: '=', value: 'neutral' }, d)).toBe(true);
  });

  it('treats = on text as a case-insensitive contains', () => {
    const d = doc({});
    expect(run({ field: 'BODY', operation: '=', value: 'SERVICES revenue' }, d)).toBe(true);
    expect(run({ field: 'TITLE', operation: '!=', value: 'beats' }, d)).toBe(false);
    expect(run({ field: 'BODY', operation: '=', value: 'x' }, doc({ body: null }))).toBe(false);
  });

  it('rejects ordering on fields without an order', () => {
    expectInvalid(() => compileExpression({ field: 'TICKER', operation: '>', value: 'A' }, NEWS_FIELDS), 'filterExpression', /only = and !=/);
    expectInvalid(() => compileExpression({ field: 'TITLE', operation: '<=', value: 'A' }, NEWS_FIELDS), 'filterExpression', /only = and !=/);
  });

  it('rejects values with an ordering operation', () => {
    expectInvalid(() => compileExpression({ field: 'ID', operation: '>', values: [1, 2] }, NEWS_FIELDS), 'filterExpression', /one value/);
  });

  it('needs exactly one of value and values', () => {
    expectInvalid(() => compileExpression({ field: 'ID', operation: '=' }, NEWS_FIELDS), 'filterExpression', /exactly one/);
    expectInvalid(() => compileExpression({ field: 'ID', operation: '=', value: 1, values: [1] }, NEWS_FIELDS), 'filterExpression', /exactly one/);
    expectInvalid(() => compileExpression({ field: 'ID', operation: '=', values: [] }, NEWS_FIELDS), 'filterExpression.values', /non-empty/);
  });

  it('rejects values of the wrong type naming their position', () => {
    expectInvalid(() => compileExpression({ field: 'ID', operation: '=', values: [1, 'two'] }, NEWS_FIELDS), 'filterExpression.values[1]', /integer/);
    expectInvalid(
      () => compileExpression({ field: 'TOPICS', operation: '=', value: 'stonks' }, NEWS_FIELDS),
      'filterExpression.value',
      /not a valid news topic/,
    );
    expectInvalid(() => compileExpression({ field: 'SENTIMENT', operation: '=', value: 'HAPPY' }, NEWS_FIELDS), 'filterExpression.value', /EXTREMELY_BEARISH/);
    expectInvalid(() => compileExpression({ field: 'PUBLISHED_TIME', operation: '>', value: 'noon' }, NEWS_FIELDS), 'filterExpression.value', /ISO 8601/);
  });

  it('rejects unknown fields and listing the filterable ones', () => {
    expectInvalid(
      () => compileExpression({ field: 'PRICE', operation: '=', value: 1 }, NEWS_FIELDS),
      'filterExpression.field',
      /filterable: ID, PUBLISHED_TIME/,
    );
  });
});

describe('groups', () => {
  it('combines with AND and OR, nested', () => {
    const d = doc({ id: 5 });
    const expr = {
      conjunction: 'AND',
      filters: [
        { field: 'TICKER', operation: '=', value: 'AAPL' },
        {
          conjunction: 'or',
          filters: [
            { field: 'ID', operation: '=', value: 4 },
            { field: 'TOPICS', operation: '=', value: 'EARNINGS' },
          ],
        },
      ],
    };
    expect(run(expr, d)).toBe(true);
    expect(run({ ...expr, filters: [...expr.filters, { field: 'ID', operation: '>', value: 5 }] }, d)).toBe(false);
    expect(
      run(
        {
          conjunction: 'OR',
          filters: [
            { field: 'ID', operation: '=', value: 4 },
            { field: 'ID', operation: '=', value: 6 },
          ],
        },
        d,
      ),
    ).toBe(false);
  });

  it('reports faults with their path in the tree', () => {
    expectInvalid(
      () =>
        compileExpression(
          {
            conjunction: 'AND',
            filters: [
              { field: 'ID', operation: '=', value: 1 },
              { conjunction: 'OR', filters: [{ field: 'NOPE', operation: '=', value: 1 }] },
            ],
          },
          NEWS_FIELDS,
        ),
      'filterExpression.filters[1].filters[0].field',
    );
    expectInvalid(() => compileExpression({ conjunction: 'XOR', filters: [] }, NEWS_FIELDS), 'filterExpression.conjunction', /AND or OR/);
    expectInvalid(() => compileExpression({ conjunction: 'AND', filters: [] }, NEWS_FIELDS), 'filterExpression.filters', /non-empty/);
    expectInvalid(
      () => compileExpression({ conjunction: 'AND', filters: [{ field: 'ID', operation: '=', value: 1 }], extra: 1 }, NEWS_FIELDS),
      'filterExpression.extra',
    );
    expectInvalid(() => compileExpression({ operation: '=' }, NEWS_FIELDS), 'filterExpression', /group/);
    expectInvalid(() => compileExpression([1], NEWS_FIELDS), 'filterExpression', /object/);
  });

  it('bounds depth and size', () => {
    let deep: unknown = { field: 'ID', operation: '=', value: 1 };
    for (let i = 0; i < 10; i++) deep = { conjunction: 'AND', filters: [deep] };
    expectInvalid(() => compileExpression(deep, NEWS_FIELDS), `filterExpression${'.filters[0]'.repeat(8)}`, /deeper than 8/);
    const wide = { conjunction: 'OR', filters: Array.from({ length: 300 }, (_, i) => ({ field: 'ID', operation: '=', value: i })) };
    expectInvalid(() => compileExpression(wide, NEWS_FIELDS), 'filterExpression', /more than 256 nodes/);
  });

  it('reports the fields an expression reads', () => {
    const c = compileExpression(
      {
        conjunction: 'AND',
        filters: [
          { field: 'body', operation: '=', value: 'x' },
          { field: 'Ticker', operation: '=', value: 'A' },
        ],
      },
      NEWS_FIELDS,
    );
    expect([...c.fields].sort()).toEqual(['BODY', 'TICKER']);
  });
});

describe('form B (Market Map)', () => {
  it('uses operator/operands and comparator', () => {
    const d = doc({ id: 3 });
    const c = compileExpression({ operator: 'AND', operands: [{ field: 'ID', comparator: '>=', value: 3 }] }, NEWS_FIELDS, 'B');
    expect(c.predicate(d)).toBe(true);
    expectInvalid(() => compileExpression({ field: 'ID', comparator: '=', values: [3] }, NEWS_FIELDS, 'B'), 'filterExpression.values');
  });
});
