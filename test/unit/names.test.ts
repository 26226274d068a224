import { EnumLookup, normalizeEnumText, normalizeName } from '../../api/request/names';
import { NEWS_TOPICS, SENTIMENTS } from '../../services/domain/news';
import { INDUSTRIES, SECTORS } from '../../services/domain/enums';

describe('name normalization', () => {
  it('ignores case, separators and whitespace', () => {
    const forms = ['STRIKE_PRICE', 'strikePrice', 'strike_price', 'strike-price', 'strike price', ' Strike  Price '];
    for (const f of forms) expect(normalizeName(f)).toBe('STRIKEPRICE');
  });

  it('keeps digits', () => {
    expect(normalizeName('mwc_1')).toBe('MWC1');
  });
});

describe('news topics', () => {
  const topics = new EnumLookup('news topic', NEWS_TOPICS);

  it('has the 121 topics of the spec, none normalizing like another', () => {
    expect(NEWS_TOPICS).toHaveLength(121);
    expect(new Set(NEWS_TOPICS.map(normalizeEnumText)).size).toBe(121);
  });

  it.each([
    ['EARNINGS_BEATS', 'EARNINGS_BEATS'],
    ['Earnings Beats', 'EARNINGS_BEATS'],
    ['earnings-beats', 'EARNINGS_BEATS'],
    ['M&A', 'M_AND_A'],
    ['m & a', 'M_AND_A'],
    ['M_AND_A', 'M_AND_A'],
    ['Econ #s', 'ECON_NUMBERS'],
    ['econ numbers', 'ECON_NUMBERS'],
    ['Movers & Shakers', 'MOVERS_AND_SHAKERS'],
    ['movers and shakers', 'MOVERS_AND_SHAKERS'],
    ['Movers', 'MOVERS'],
  ])('%s resolves to %s', (input, canonical) => {
    expect(topics.resolve(input)).toBe(canonical);
  });

  it('rejects unknown topics', () => {
    expect(topics.resolve('stonks')).toBeUndefined();
    expect(topics.resolve('')).toBeUndefined();
  });
});

describe('sectors, industries and sentiments', () => {
  it('sector input ignores case, separators and whitespace', () => {
    const sectors = new EnumLookup('sector', SECTORS);
    for (const f of ['FINANCIAL_SERVICES', 'financialServices', 'financial services']) expect(sectors.resolve(f)).toBe('FINANCIAL_SERVICES');
  });

  it('a double and a single underscore in an industry resolve to the same constant', () => {
    const industries = new EnumLookup('industry', INDUSTRIES);
    expect(industries.resolve('BANKS__REGIONAL')).toBe('BANKS__REGIONAL');
    expect(industries.resolve('BANKS_REGIONAL')).toBe('BANKS__REGIONAL');
    expect(industries.resolve('banks regional')).toBe('BANKS__REGIONAL');
  });

  it('sentiments resolve in any spelling', () => {
    const s = new EnumLookup('sentiment', SENTIMENTS);
    expect(s.resolve('moderately bullish')).toBe('MODERATELY_BULLISH');
    expect(s.resolve('ExtremelyBearish')).toBe('EXTREMELY_BEARISH');
  });

  it('refuses a value set in which two values normalize alike', () => {
    expect(() => new EnumLookup('x', ['A_B', 'AB'])).toThrow(/normalize alike/);
  });
});
