import { NEWS_FIELDS } from '../../api/endpoints/news/news-articles';
import { decodeCursor, encodeCursor, parseSize } from '../../api/request/paging';
import { parseProjection, project } from '../../api/request/projection';
import { expectInvalid } from '../support/problems';

const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : null);

describe('cursor', () => {
  it('is exactly two strings: the sort value and the row id', () => {
    const c = encodeCursor(1714570200000, 42);
    expect(c).toEqual(['1714570200000', '42']);
    expect(decodeCursor(c, num, num)).toEqual({ sort: 1714570200000, id: 42 });
  });

  it('null or absent is the first page', () => {
    expect(decodeCursor(null, num, num)).toBeNull();
    expect(decodeCursor(undefined, num, num)).toBeNull();
  });

  it.each([[['1']], [['1', '2', '3']], [[1, 2]], ['1,2'], [{}]])('rejects %j', (raw) => {
    expectInvalid(() => decodeCursor(raw, num, num), 'searchAfter', /nextSearchAfter/);
  });

  it('rejects an edited cursor', () => {
    expectInvalid(() => decodeCursor(['abc', '2'], num, num), 'searchAfter', /not a cursor issued by this endpoint/);
  });
});

describe('size', () => {
  it('defaults to 50 and accepts 1 to max', () => {
    expect(parseSize(undefined, 100)).toBe(50);
    expect(parseSize(1, 100)).toBe(1);
    expect(parseSize(1000, 1000)).toBe(1000);
  });

  it.each([0, 101, 10.5, '10', -1])('rejects %j naming the field', (v) => {
    expectInvalid(() => parseSize(v, 100), 'size', /1 to 100/);
  });
});

describe('projection', () => {
  const row = { id: 1, publishedTime: 2, title: 't', topics: [], tickers: [], body: null };

  it('includes keep only the named fields (and body, which includeBody controls)', () => {
    const drop = parseProjection(['ID', 'published_time'], undefined, NEWS_FIELDS);
    expect(project(row, drop)).toEqual({ id: 1, publishedTime: 2, body: null });
  });

  it('excludes drop the named fields', () => {
    const drop = parseProjection(undefined, ['tickers', 'Topics'], NEWS_FIELDS);
    expect(project(row, drop)).toEqual({ id: 1, publishedTime: 2, title: 't', body: null });
  });

  it('includes and excludes are mutually exclusive', () => {
    expectInvalid(() => parseProjection(['ID'], ['TITLE'], NEWS_FIELDS), 'includes', /mutually exclusive/);
  });

  it('rejects BODY and SENTIMENT (filterable, not projectable) and unknown names', () => {
    expectInvalid(() => parseProjection(['ID', 'BODY'], undefined, NEWS_FIELDS), 'includes[1]', /not projectable/);
    expectInvalid(() => parseProjection(undefined, ['sentiment'], NEWS_FIELDS), 'excludes[0]', /not projectable/);
    expectInvalid(() => parseProjection(['PRICE'], undefined, NEWS_FIELDS), 'includes[0]', /not a projection name/);
    expectInvalid(() => parseProjection('ID', undefined, NEWS_FIELDS), 'includes', /array/);
  });
});
