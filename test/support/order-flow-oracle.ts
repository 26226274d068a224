import fc from 'fast-check';
import { TRADE_SIDE_ALIASES } from '../../services/domain/order-flow';
import { asServed } from './served';

/**
 * A brute-force evaluation of order-flow requests over rows held in memory, written independently
 * of the API's request layer: filters, expressions, sorts and projections are applied with plain
 * code straight from the spec, so the property test compares two implementations.
 *
 * Rows are response-shaped objects plus `rowKey` (tie-break) and `comprisingTrades` (consolidated).
 */

export type OracleRow = Record<string, any> & { rowKey: string };
type Body = Record<string, any>;

/** The fifteen greeks of a row, spelled out here rather than taken from the code under test. */
export const GREEKS = ['charm', 'color', 'delta', 'gamma', 'omega', 'rho', 'sigma', 'speed', 'theta', 'ultima', 'vanna', 'vega', 'veta', 'vomma', 'zomma'];

/** Field name (UPPER_SNAKE) -> how to read it from a row. */
const READ: Record<string, (r: OracleRow) => unknown> = {
  ID: (r) => r.id,
  TICKER: (r) => r.ticker,
  OSI: (r) => r.osi,
  CONTRACT_TYPE: (r) => r.contractType,
  EXPIRATION_DATE: (r) => r.expirationDate,
  DTE: (r) => r.dte,
  STRIKE_PRICE: (r) => r.strikePrice,
  SECTOR: (r) => r.sector,
  INDUSTRY: (r) => r.industry,
  EXCHANGE: (r) => r.exchange,
  PREMIUM: (r) => r.premium,
  SIZE: (r) => r.size,
  VOLUME: (r) => r.volume,
  OPEN_INTEREST: (r) => r.openInterest,
  OPTION_PRICE: (r) => r.optionPrice,
  ASK_PRICE: (r) => r.askPrice,
  BID_PRICE: (r) => r.bidPrice,
  BID_ASK_SPREAD: (r) => r.bidAskSpread,
  STOCK_PRICE: (r) => r.stockPrice,
  IMPLIED_VOLATILITY: (r) => r.impliedVolatility,
  TRADE_SIDE_CODE: (r) => r.tradeSideCode,
  TRADE_TYPE: (r) => r.tradeType,
  SENTIMENT_TYPE: (r) => r.sentimentType,
  TRADE_CONSOLIDATION_TYPE: (r) => r.tradeConsolidationType,
  IS_GOLDEN_SWEEP: (r) => r.isGoldenSweep,
  IS_UNUSUAL: (r) => r.isUnusual,
  IS_OPENING_POSITION: (r) => r.isOpeningPosition,
  IS_VOLUME_GREATER_THAN_OPEN_INTEREST: (r) => r.isVolumeGreaterThanOpenInterest,
  IS_ETF: (r) => r.isETF,
  IS_INDEX: (r) => r.isIndex,
  ...Object.fromEntries(GREEKS.map((g) => [g.toUpperCase(), (r: OracleRow) => r.greeks?.[g] ?? null])),
  MONEY_TYPE: (r) => r.moneyness.moneyType,
  DEGREE: (r) => r.moneyness.degree,
  DEGREE_IN_PERCENT: (r) => r.moneyness.degreeInPercent,
  TRADE_TIME: (r) => r.tradeTime,
};

/** Filter-object key -> [field, kind]. */
const FILTERS: Record<string, [string, 'in' | 'range' | 'dateRange' | 'bool' | 'eq']> = {
  tickers: ['TICKER', 'in'],
  sectors: ['SECTOR', 'in'],
  industries: ['INDUSTRY', 'in'],
  contractTypes: ['CONTRACT_TYPE', 'in'],
  moneyTypes: ['MONEY_TYPE', 'in'],
  strikePrices: ['STRIKE_PRICE', 'in'],
  strikePriceRange: ['STRIKE_PRICE', 'range'],
  expirationDates: ['EXPIRATION_DATE', 'in'],
  expirationDateRange: ['EXPIRATION_DATE', 'dateRange'],
  tradeSideCodes: ['TRADE_SIDE_CODE', 'in'],
  tradeTypes: ['TRADE_TYPE', 'in'],
  sentimentTypes: ['SENTIMENT_TYPE', 'in'],
  exchanges: ['EXCHANGE', 'in'],
  premiumRange: ['PREMIUM', 'range'],
  volumeRange: ['VOLUME', 'range'],
  moneynessInDollarsRange: ['DEGREE', 'range'],
  moneynessInPercentRange: ['DEGREE_IN_PERCENT', 'range'],
  ...Object.fromEntries(GREEKS.map((g): [string, [string, 'range']] => [`${g}Range`, [g.toUpperCase(), 'range']])),
  sizeRange: ['SIZE', 'range'],
  isUnusual: ['IS_UNUSUAL', 'bool'],
  isOpeningPosition: ['IS_OPENING_POSITION', 'bool'],
  isVolumeGreaterThanOpenInterest: ['IS_VOLUME_GREATER_THAN_OPEN_INTEREST', 'bool'],
  tradeConsolidationTypes: ['TRADE_CONSOLIDATION_TYPE', 'in'],
  isGoldenSweep: ['IS_GOLDEN_SWEEP', 'bool'],
  osi: ['OSI', 'eq'],
  dteRange: ['DTE', 'range'],
};

/** How the generator spells values: canonical upper case, short codes for trade sides. */
function canon(field: string, v: unknown): unknown {
  if (field === 'TRADE_SIDE_CODE' && typeof v === 'string') return TRADE_SIDE_ALIASES[v.toUpperCase()] ?? v.toUpperCase();
  if (field === 'SECTOR' && typeof v === 'string') return v.toUpperCase().replace(/ /g, '_');
  if (field === 'OSI' && typeof v === 'string') return v.toUpperCase();
  return v;
}

/**
 * The filter object as one predicate. Each condition is read from the body once, not once per
 * row: the conformance walks and the property test evaluate thousands of rows per request.
 */
function filterPredicate(filter: Body): (r: OracleRow) => boolean {
  const tests: ((r: OracleRow) => boolean)[] = [];
  for (const [key, raw] of Object.entries(filter)) {
    if (raw === null || raw === undefined) continue;
    const [field, kind] = FILTERS[key];
    const read = READ[field];
    switch (kind) {
      case 'in':
      case 'eq': {
        const wanted = (Array.isArray(raw) ? raw : [raw]).map((x) => canon(field, x));
        tests.push((r) => wanted.includes(read(r)));
        break;
      }
      case 'bool':
        tests.push((r) => read(r) === raw);
        break;
      case 'range': {
        const min = raw.min ?? null;
        const max = raw.max ?? null;
        tests.push((r) => {
          const v = read(r) as number | null;
          return v !== null && !(min !== null && v < min) && !(max !== null && v > max);
        });
        break;
      }
      case 'dateRange':
        tests.push((r) => {
          const v = read(r) as string;
          return !(raw.startDate && v < raw.startDate) && !(raw.endDate && v > raw.endDate);
        });
        break;
    }
  }
  return (r) => tests.every((t) => t(r));
}

/** A filterExpression node as one predicate (values canonicalized once). */
function expressionPredicate(node: Body): (r: OracleRow) => boolean {
  if ('conjunction' in node) {
    const parts = (node.filters as Body[]).map(expressionPredicate);
    return node.conjunction === 'AND' ? (r) => parts.every((p) => p(r)) : (r) => parts.some((p) => p(r));
  }
  const read = READ[node.field];
  const values: unknown[] = ('values' in node ? node.values : [node.value]).map((x: unknown) => canon(node.field, x));
  const test = (v: unknown): boolean => {
    switch (node.operation) {
      case '=':
        return values.includes(v);
      case '!=':
        return !values.includes(v);
      case '<':
        return (v as number) < (values[0] as number);
      case '<=':
        return (v as number) <= (values[0] as number);
      case '>':
        return (v as number) > (values[0] as number);
      case '>=':
        return (v as number) >= (values[0] as number);
    }
    throw new Error(`oracle: unknown operation ${node.operation}`);
  };
  return (r) => {
    const v = read(r);
    if (v === null || v === undefined) return node.operation === '!=';
    return test(v);
  };
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1; // null sorts lowest
  if (b === null || b === undefined) return 1;
  if (typeof a === 'boolean') return (a ? 1 : 0) - ((b as boolean) ? 1 : 0);
  if (typeof a === 'number') return a - (b as number);
  return (a as string) < (b as string) ? -1 : 1;
}

type Window = { startMs: number; endMs: number };

/** Whether a row is in the request's window and matches its filter and filterExpression, as one predicate. */
export function matcher(body: Body, window?: Window): (r: OracleRow) => boolean {
  const filter = filterPredicate(body.filter ?? {});
  const expression = body.filterExpression ? expressionPredicate(body.filterExpression) : () => true;
  return (r) => (!window || (r.tradeTime >= window.startMs && r.tradeTime < window.endMs)) && filter(r) && expression(r);
}

/** Every row the request matches, in the order the API must return them. */
export function evaluate(rows: readonly OracleRow[], body: Body, window?: Window): OracleRow[] {
  const read = READ[body.sort?.field ?? 'TRADE_TIME'];
  const desc = (body.sort?.direction ?? 'DESCENDING') === 'DESCENDING';
  const match = matcher(body, window);
  // Each row's sort value read once, then sorted with the row key as the tie-break.
  const out = rows.filter(match).map((r) => ({ r, v: read(r) }));
  out.sort((a, b) => {
    const c = compareValues(a.v, b.v) || (a.r.rowKey < b.r.rowKey ? -1 : a.r.rowKey > b.r.rowKey ? 1 : 0);
    return desc ? -c : c;
  });
  return out.map((x) => x.r);
}

const keyOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
    .replace(/^isEtf$/, 'isETF');

/** The response keys a body keeps, worked out once per body and key list (a page maps many rows with one body). */
const projections = new WeakMap<Body, Map<readonly string[], string[]>>();
function projectedKeys(body: Body, responseKeys: readonly string[]): string[] {
  let byKeys = projections.get(body);
  if (!byKeys) projections.set(body, (byKeys = new Map()));
  let keys = byKeys.get(responseKeys);
  if (!keys) {
    keys = [...responseKeys];
    if (body.includes?.length) keys = keys.filter((k) => body.includes.map(keyOf).includes(k));
    if (body.excludes?.length) keys = keys.filter((k) => !body.excludes.map(keyOf).includes(k));
    if (!body.includeComprisingTrades) keys = keys.filter((k) => k !== 'comprisingTrades');
    byKeys.set(responseKeys, keys);
  }
  return keys;
}

/** The response form of a row after includes/excludes. */
export function projectRow(r: OracleRow, body: Body, responseKeys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of projectedKeys(body, responseKeys)) out[k] = r[k];
  return asServed(out);
}

// --- request generator -----------------------------------------------------------------------

export interface Vocabulary {
  tickers: string[];
  osis: string[];
  sectors: string[];
  premiums: number[];
  sizes: number[];
  volumes: number[];
  strikes: number[];
  expirations: string[];
  exchanges: string[];
  consolidated: boolean;
}

const SORTS = [
  'TRADE_TIME',
  'PREMIUM',
  'SIZE',
  'VOLUME',
  'DTE',
  'STRIKE_PRICE',
  'IMPLIED_VOLATILITY',
  'TICKER',
  'EXPIRATION_DATE',
  'TRADE_SIDE_CODE',
  'DELTA',
  'OMEGA',
  'VOMMA',
  'ULTIMA',
  'COLOR',
  'DEGREE',
  'IS_UNUSUAL',
  'OPEN_INTEREST',
];
const PROJECTABLE = [
  'ID',
  'TICKER',
  'CONTRACT_TYPE',
  'EXPIRATION_DATE',
  'DTE',
  'STRIKE_PRICE',
  'SECTOR',
  'PREMIUM',
  'SIZE',
  'VOLUME',
  'OPEN_INTEREST',
  'IMPLIED_VOLATILITY',
  'TRADE_SIDE_CODE',
  'IS_UNUSUAL',
  'GREEKS',
  'MONEYNESS',
  'TRADE_TIME',
];

export function requestArbitrary(v: Vocabulary, maxSize: number): fc.Arbitrary<Body> {
  const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
  const some = <T>(xs: readonly T[]) => fc.uniqueArray(pick(xs), { minLength: 1, maxLength: 3 });
  const range = (xs: number[]) =>
    fc
      .record({ min: fc.option(pick(xs), { nil: null }), max: fc.option(pick(xs), { nil: null }) })
      .map((r) => (r.min !== null && r.max !== null && r.min > r.max ? { min: r.max, max: r.min } : r));
  const filterFields: Record<string, fc.Arbitrary<unknown>> = {
    tickers: some(v.tickers),
    contractTypes: some(['CALL', 'PUT']),
    tradeSideCodes: some(['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID', 'AA', 'A', 'M', 'B', 'BB']),
    sectors: some(v.sectors),
    moneyTypes: some(['ATM', 'ITM', 'OTM']),
    sentimentTypes: some(['BULLISH', 'BEARISH', 'NEUTRAL']),
    exchanges: some(v.exchanges),
    premiumRange: range(v.premiums),
    sizeRange: range(v.sizes),
    volumeRange: range(v.volumes),
    strikePriceRange: range(v.strikes),
    moneynessInDollarsRange: range([0, 0.5, 3, 10, 40]),
    moneynessInPercentRange: range([0, 0.4, 2.5, 9, 30]),
    // Bounds on the scale of the fixture's greeks (order-flow-data.ts), several on tie values.
    deltaRange: range([0, 0.25, 0.5, 0.9]),
    omegaRange: range([-12, -5.5, 0, 2, 12]),
    vommaRange: range([0, 0.01, 0.02]),
    colorRange: range([-0.002, 0, 0.001]),
    thetaRange: range([-0.8, -0.3, 0]),
    zommaRange: range([-0.01, -0.005, 0]),
    sigmaRange: range([0.25, 0.4, 0.6]),
    expirationDateRange: fc
      .record({ startDate: fc.option(pick(v.expirations), { nil: null }), endDate: fc.option(pick(v.expirations), { nil: null }) })
      .map((r) => (r.startDate !== null && r.endDate !== null && r.startDate > r.endDate ? { startDate: r.endDate, endDate: r.startDate } : r)),
    isUnusual: fc.boolean(),
    isOpeningPosition: fc.boolean(),
    isVolumeGreaterThanOpenInterest: fc.boolean(),
    ...(v.consolidated ? { tradeConsolidationTypes: some(['SWEEP', 'BLOCK', 'SPLIT']), isGoldenSweep: fc.boolean() } : { osi: pick(v.osis) }),
  };
  const filter = fc.record(filterFields, { requiredKeys: [] });
  const term = fc.oneof(
    fc.record({
      field: pick(['PREMIUM', 'DTE', 'STRIKE_PRICE', 'DELTA', 'IMPLIED_VOLATILITY', 'VEGA', 'SPEED', 'VETA', 'ULTIMA', 'DEGREE_IN_PERCENT']),
      operation: pick(['<', '<=', '>', '>=']),
      value: pick([...v.premiums.slice(0, 3), 0.5, -0.5, 0.25, 0, -1e-5, 0.01, 1, 5, 30, 100]),
    }),
    fc.record({ field: pick(['SIZE', 'VOLUME']), operation: pick(['<', '<=', '>', '>=']), value: pick([...v.sizes, ...v.volumes]) }),
    fc.record({ field: pick(['TICKER']), operation: pick(['=', '!=']), values: some(v.tickers) }),
    fc.record({ field: pick(['TRADE_SIDE_CODE']), operation: pick(['=', '!=']), values: some(['A', 'AA', 'BID', 'MID_MARKET']) }),
    fc.record({ field: pick(['IS_UNUSUAL', 'IS_OPENING_POSITION']), operation: pick(['=', '!=']), value: fc.boolean() }),
  );
  const expression = fc.oneof(term, fc.record({ conjunction: pick(['AND', 'OR']), filters: fc.array(term, { minLength: 1, maxLength: 3 }) }));
  return fc
    .record(
      {
        size: fc.integer({ min: 1, max: maxSize }),
        sort: fc.record({ field: pick(SORTS), direction: pick(['ASCENDING', 'DESCENDING']) }),
        filter,
        filterExpression: expression,
        includes: fc.uniqueArray(pick(PROJECTABLE), { minLength: 1, maxLength: 5 }),
        excludes: fc.uniqueArray(pick(PROJECTABLE), { minLength: 1, maxLength: 5 }),
      },
      { requiredKeys: ['size'] },
    )
    .map((b) => {
      // includes and excludes are mutually exclusive: keep one.
      if (b.includes && b.excludes) delete (b as Body).excludes;
      return b as Body;
    });
}
