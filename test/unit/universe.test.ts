import rawUniverse from '../../seeds/universe.json';
import { INDUSTRIES, SECTORS, isIndustry, isSector } from '../../services/domain/enums';
import { EXCHANGES, type Instrument, UniverseValidationError, instrument, loadUniverse, validateUniverse } from '../../services/domain/universe';

const universe = loadUniverse();
const bySymbol = new Map(universe.map((i) => [i.symbol, i]));
const get = (s: string): Instrument => {
  const i = bySymbol.get(s);
  if (!i) throw new Error(`missing ${s}`);
  return i;
};

describe('enumerations', () => {
  it('SECTORS has the 12 contract values, unique and in spec order', () => {
    expect(SECTORS).toHaveLength(12);
    expect(new Set(SECTORS).size).toBe(12);
    expect([...SECTORS]).toEqual([...SECTORS].sort());
    expect(SECTORS).toContain('NOT_APPLICABLE');
    expect(SECTORS).toContain('FINANCIAL_SERVICES');
  });

  it('INDUSTRIES has the 160 contract values, unique and in spec order', () => {
    expect(INDUSTRIES).toHaveLength(160);
    expect(new Set(INDUSTRIES).size).toBe(160);
    expect([...INDUSTRIES]).toEqual([...INDUSTRIES].sort());
    expect(INDUSTRIES[0]).toBe('ADVERTISING_AGENCIES');
    expect(INDUSTRIES[159]).toBe('WASTE_MANAGEMENT');
    for (const sub of ['AGRICULTURAL__COMMODITIES_MILLING', 'BANKS__REGIONAL', 'REIT__MORTGAGE', 'SOFTWARE__INFRASTRUCTURE']) {
      expect(INDUSTRIES).toContain(sub);
    }
  });

  it('type guards accept only exact constants', () => {
    expect(isSector('TECHNOLOGY')).toBe(true);
    expect(isSector('technology')).toBe(false);
    expect(isIndustry('BANKS_REGIONAL')).toBe(false);
    expect(isIndustry(42)).toBe(false);
  });
});

describe('seed universe', () => {
  it('has at least 150 instruments and no duplicate symbols in the raw seed', () => {
    expect(universe.length).toBeGreaterThanOrEqual(150);
    const symbols = (rawUniverse as Array<{ symbol: string }>).map((r) => r.symbol);
    expect(new Set(symbols).size).toBe(symbols.length);
  });

  it('uses only contract enumerations and known exchanges', () => {
    for (const i of universe) {
      expect([i.symbol, SECTORS.includes(i.sector)]).toEqual([i.symbol, true]);
      expect([i.symbol, INDUSTRIES.includes(i.industry)]).toEqual([i.symbol, true]);
      expect([i.symbol, EXCHANGES.includes(i.exchange)]).toEqual([i.symbol, true]);
    }
  });

  it('contains the required symbols', () => {
    const required = [
      'SPY',
      'QQQ',
      'IWM',
      'DIA',
      'XLK',
      'XLF',
      'XLE',
      'XLV',
      'XLY',
      'XLP',
      'XLI',
      'XLB',
      'XLU',
      'XLRE',
      'XLC',
      'GLD',
      'TLT',
      'HYG',
      'EEM',
      'ARKK',
      'SMH',
      'KRE',
      'XBI',
      'SPX',
      'NDX',
      'RUT',
      'VIX',
      'AAPL',
      'MSFT',
      'NVDA',
      'AMZN',
      'GOOGL',
      'GOOG',
      'META',
      'TSLA',
      'AVGO',
      'BRK.B',
      'JPM',
      'LLY',
      'V',
      'UNH',
      'XOM',
      'MA',
      'JNJ',
      'PG',
      'HD',
      'COST',
    ];
    expect(required.filter((s) => !bySymbol.has(s))).toEqual([]);
  });

  it('flags exactly the cash indexes as indexes, on CBOE with no sector', () => {
    const indexes = universe
      .filter((i) => i.isIndex)
      .map((i) => i.symbol)
      .sort();
    expect(indexes).toEqual(['NDX', 'RUT', 'SPX', 'VIX']);
    for (const s of indexes) {
      expect(get(s)).toMatchObject({ isETF: false, sector: 'NOT_APPLICABLE', industry: 'NOT_APPLICABLE', exchange: 'CBOE' });
    }
  });

  it('classifies ETFs by holdings', () => {
    for (const s of ['SPY', 'QQQ', 'IWM', 'DIA', 'EEM', 'ARKK']) {
      expect(get(s)).toMatchObject({ isETF: true, isIndex: false, sector: 'NOT_APPLICABLE', industry: 'NOT_APPLICABLE' });
    }
    const sectorEtfs: Record<string, string> = {
      XLK: 'TECHNOLOGY',
      XLF: 'FINANCIAL_SERVICES',
      XLE: 'ENERGY',
      XLV: 'HEALTHCARE',
      XLY: 'CONSUMER_CYCLICAL',
      XLP: 'CONSUMER_DEFENSIVE',
      XLI: 'INDUSTRIALS',
      XLB: 'BASIC_MATERIALS',
      XLU: 'UTILITIES',
      XLRE: 'REAL_ESTATE',
      XLC: 'COMMUNICATION_SERVICES',
    };
    for (const [s, sector] of Object.entries(sectorEtfs)) expect(get(s)).toMatchObject({ isETF: true, sector });
    expect(get('SMH').industry).toBe('SEMICONDUCTORS');
    expect(get('KRE').industry).toBe('BANKS__REGIONAL');
    expect(get('XBI').industry).toBe('BIOTECHNOLOGY');
    expect(get('TLT').industry).toBe('ASSET_MANAGEMENT__BONDS');
    expect(get('AAPL')).toMatchObject({ isETF: false, isIndex: false, exchange: 'NASDAQ', sector: 'TECHNOLOGY' });
    expect(get('JPM').exchange).toBe('NYSE');
  });

  it('covers every real sector with several operating companies', () => {
    const stocks = universe.filter((i) => !i.isETF && !i.isIndex);
    for (const sector of SECTORS.filter((s) => s !== 'NOT_APPLICABLE')) {
      expect([sector, stocks.filter((i) => i.sector === sector).length >= 5]).toEqual([sector, true]);
    }
  });

  it('spans mega, mid and small caps', () => {
    const stocks = universe.filter((i) => !i.isETF && !i.isIndex);
    expect(stocks.filter((i) => i.marketCap >= 1e12).length).toBeGreaterThanOrEqual(8);
    expect(stocks.filter((i) => i.marketCap >= 2e9 && i.marketCap < 10e9).length).toBeGreaterThanOrEqual(10);
    expect(stocks.filter((i) => i.marketCap < 2e9).length).toBeGreaterThanOrEqual(1);
  });

  it('has roughly consistent numbers', () => {
    for (const i of universe) {
      // Multi-class issuers carry the whole company's cap, so allow up to ~2.5x one class.
      const ratio = i.marketCap / (i.typicalPrice * i.sharesOutstanding);
      expect([i.symbol, ratio > 0.95 && ratio < 2.5]).toEqual([i.symbol, true]);
      expect([i.symbol, i.annualVolatility > 0.03 && i.annualVolatility <= 1.5]).toEqual([i.symbol, true]);
    }
    expect(get('SPY').optionsActivityWeight).toBeGreaterThan(get('JOE').optionsActivityWeight);
  });
});

describe('lookup', () => {
  it('finds instruments case-insensitively', () => {
    expect(instrument('AAPL')?.companyName).toBe('Apple Inc.');
    expect(instrument(' brk.b ')?.symbol).toBe('BRK.B');
    expect(instrument('NOPE')).toBeUndefined();
  });

  it('hands out frozen instruments and a fresh array', () => {
    const a = loadUniverse();
    a.pop();
    expect(loadUniverse()).toHaveLength(universe.length);
    expect(Object.isFrozen(a[0])).toBe(true);
  });
});

describe('validation', () => {
  const good = (): Record<string, unknown> => ({ ...get('AAPL') });
  const expectReject = (entries: unknown[], symbol: string, reason: RegExp): void => {
    let error: unknown;
    try {
      validateUniverse(entries);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UniverseValidationError);
    expect((error as UniverseValidationError).symbol).toBe(symbol);
    expect((error as Error).message).toContain(symbol);
    expect((error as Error).message).toMatch(reason);
  };

  it('accepts the seed shape', () => {
    expect(validateUniverse([good()])).toHaveLength(1);
  });

  it('rejects off-contract sector and industry values', () => {
    expectReject([{ ...good(), sector: 'Technology' }], 'AAPL', /sector/);
    expectReject([{ ...good(), industry: 'CONSUMER_ELECTRONICS_X' }], 'AAPL', /industry/);
    expectReject([{ ...good(), exchange: 'LSE' }], 'AAPL', /exchange/);
  });

  it('rejects duplicates', () => {
    expectReject([good(), { ...good(), companyName: 'Apple again' }], 'AAPL', /duplicate/);
  });

  it('rejects non-positive or implausible numbers', () => {
    expectReject([{ ...good(), typicalPrice: 0 }], 'AAPL', /typicalPrice/);
    expectReject([{ ...good(), marketCap: -1 }], 'AAPL', /marketCap/);
    expectReject([{ ...good(), optionsActivityWeight: Number.NaN }], 'AAPL', /optionsActivityWeight/);
    expectReject([{ ...good(), sharesOutstanding: '100' }], 'AAPL', /sharesOutstanding/);
    expectReject([{ ...good(), annualVolatility: 28 }], 'AAPL', /fractional/);
  });

  it('rejects missing, misspelt and inconsistent fields', () => {
    const { companyName: _drop, ...missing } = good();
    expectReject([missing], 'AAPL', /missing field companyName/);
    expectReject([{ ...good(), marketcap: 1 }], 'AAPL', /unknown field marketcap/);
    expectReject([{ ...good(), isIndex: true }], 'AAPL', /index/);
    expectReject([{ ...good(), isETF: true, isIndex: true }], 'AAPL', /both/);
    expectReject([{ ...good(), sector: 'NOT_APPLICABLE' }], 'AAPL', /industry set without a sector/);
    expectReject([{ ...good(), industry: 'NOT_APPLICABLE' }], 'AAPL', /operating company/);
    expectReject([{ ...good(), symbol: 'aapl' }], 'aapl', /bad symbol/);
  });

  it('rejects a non-array', () => {
    expect(() => validateUniverse({})).toThrow(UniverseValidationError);
  });
});
