import { topicFor } from '../../schemas/catalog';
import { EQUITY_PRINT_FIELDS } from '../../api/fields/equity-prints';
import { equityPrintsProjection } from '../../projections/equities/equity-prints';
import { walkApi } from '../support/cursor-walk';
import { equityPrints } from '../../api/endpoints/equities/equity-prints';
import { expectDocumentedResponse } from '../support/response-schema';
import { testConfig } from '../support/env';
import { equityPrintData, expectedPrintRow, PRINT_TICKERS, type PrintRow } from '../support/equity-print-data';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline } from '../support/pipeline';
import { expectProblem } from '../support/problem';
import { describeTableConformance } from '../support/table-conformance';
import { compare, orderRows, projectRow, rand } from '../support/table-oracle';

/**
 * POST /v1/equities/tool/equity-prints over HTTP, against the tape projected from real Kafka
 * events: the conformance suite, a property test of random filters (every convenience filter and
 * its aliases), expressions, sorts and projections against a brute-force oracle, and every
 * validation rule.
 */

const PATH = '/v1/equities/tool/equity-prints';
const config = testConfig('eqprints');
const SPEC = topicFor('equity-print')!;
const SESSIONS = [
  { date: '2024-05-01', open: Date.UTC(2024, 4, 1, 13, 30) },
  { date: '2024-05-02', open: Date.UTC(2024, 4, 2, 13, 30) },
];
const events = equityPrintData(SESSIONS, 450);
const ROWS: PrintRow[] = events.map(expectedPrintRow);

let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(SPEC, events as never);
  await pipe.projectAll([equityPrintsProjection]);
  api = await startApi(config);
});

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

// --- the oracle -----------------------------------------------------------------------------

const KEY_OF: Record<string, keyof PrintRow> = {
  TICKER: 'ticker',
  PRICE: 'price',
  SIZE: 'size',
  NOTIONAL_VALUE: 'notionalValue',
  PRINT_TYPE: 'printType',
  TRADE_SIDE: 'tradeSide',
  ASK_PRICE: 'askPrice',
  BID_PRICE: 'bidPrice',
  ASK_SIZE: 'askSize',
  BID_SIZE: 'bidSize',
  IS_DELAYED_PRINT: 'isDelayedPrint',
  TRADE_TIME: 'tradeTime',
};
const RANGES: Record<string, keyof PrintRow> = {
  priceRange: 'price',
  sizeRange: 'size',
  askPriceRange: 'askPrice',
  askSizeRange: 'askSize',
  bidPriceRange: 'bidPrice',
  bidSizeRange: 'bidSize',
  notionalValueRange: 'notionalValue',
};
const SHORT: Record<string, string> = { AA: 'ABOVE_ASK', A: 'ASK', M: 'MID_MARKET', B: 'BID', BB: 'BELOW_BID' };
const ny = (ms: number) => new Date(ms - 4 * 3_600_000).toISOString().slice(0, 10); // May: EDT

interface Term {
  field: string;
  operation: string;
  value?: unknown;
  values?: unknown[];
}
interface Group {
  conjunction: 'AND' | 'OR';
  filters: (Group | Term)[];
}
function evalNode(n: Group | Term, r: PrintRow): boolean {
  if ('conjunction' in n) return n.conjunction === 'AND' ? n.filters.every((c) => evalNode(c, r)) : n.filters.some((c) => evalNode(c, r));
  const actual = r[KEY_OF[n.field]];
  const vals = (n.values ?? [n.value]).map((v) => (v === 'true' ? true : v === 'false' ? false : typeof v === 'string' ? (SHORT[v] ?? v) : v));
  if (n.operation === '=') return vals.includes(actual);
  if (n.operation === '!=') return !vals.includes(actual);
  return compare(n.operation, actual, vals[0] as number);
}

/** One value or a list, under any of a filter's spellings. */
const list = (f: Record<string, unknown>, ...names: string[]): string[] | undefined => {
  for (const n of names) if (f[n] !== undefined) return ([] as unknown[]).concat(f[n]).map((x) => String(x).toUpperCase().replace(/ /g, '_'));
  return undefined;
};

function oracle(body: Record<string, unknown>): Record<string, unknown>[] {
  let rows = ROWS;
  if (body.sessionDate) rows = rows.filter((r) => ny(r.tradeTime) === body.sessionDate);
  else if (body.timeRange) {
    const tr = body.timeRange as { startTime: string; endTime: string };
    rows = rows.filter((r) => r.tradeTime >= Date.parse(tr.startTime) && r.tradeTime < Date.parse(tr.endTime));
  } else rows = rows.filter((r) => ny(r.tradeTime) === SESSIONS[SESSIONS.length - 1].date);
  const f = (body.filter ?? {}) as Record<string, unknown>;
  const tickers = list(f, 'tickers', 'ticker');
  if (tickers) rows = rows.filter((r) => tickers.includes(r.ticker));
  const types = list(f, 'equityPrintTypes', 'equityPrintType', 'printType', 'printTypes', 'type', 'types');
  if (types) rows = rows.filter((r) => types.includes(r.printType));
  const sides = list(f, 'tradeSideCodes', 'tradeSideCode', 'tradeSide', 'tradeSides')?.map((s) => SHORT[s] ?? s);
  if (sides) rows = rows.filter((r) => sides.includes(r.tradeSide));
  for (const [key, field] of Object.entries(RANGES)) {
    const rg = f[key] as { min?: number | null; max?: number | null } | undefined;
    if (rg) rows = rows.filter((r) => (rg.min == null || (r[field] as number) >= rg.min) && (rg.max == null || (r[field] as number) <= rg.max));
  }
  if (f.isDelayedPrint !== undefined) rows = rows.filter((r) => r.isDelayedPrint === (f.isDelayedPrint === true || f.isDelayedPrint === 'true'));
  if (body.filterExpression) rows = rows.filter((r) => evalNode(body.filterExpression as Group, r));
  const sort = (body.sort ?? { field: 'TRADE_TIME', direction: 'DESCENDING' }) as { field: string; direction?: string };
  return orderRows(
    rows,
    (r) => r[KEY_OF[sort.field]],
    (r) => r.id,
    sort.direction !== 'ASCENDING',
  ).map((r) => projectRow(r, body));
}

const walk = (body: Record<string, unknown>) => walkApi(api, PATH, body);

// --- tests ----------------------------------------------------------------------------------

describeTableConformance('equity-prints', () => ({
  path: PATH,
  api: () => api,
  fields: EQUITY_PRINT_FIELDS,
  maxSize: 100,
  base: { sessionDate: SESSIONS[0].date },
  sortBase: { sessionDate: SESSIONS[0].date, filter: { tickers: ['AAPL', 'BRK.B', 'SPY'] } },
  oracle,
  sortable: true,
}));

describe('equity-prints', () => {
  it('rows: notional is price x size, trade side is the price against the NBBO; cursor [tradeTime, id]', async () => {
    const res = await api.post(PATH, { size: 4 });
    expect(res.status).toBe(200);
    const want = oracle({});
    expect(res.json.data).toEqual(want.slice(0, 4));
    expectDocumentedResponse(equityPrints, res.json);
    expect(res.json.nextSearchAfter).toEqual([String(want[3].tradeTime), want[3].id]);
    // Every trade side and both print types occur in the data set.
    expect(new Set(ROWS.map((r) => r.tradeSide)).size).toBe(5);
    expect(ROWS.some((r) => r.notionalValue >= 10_000_000)).toBe(true);
  });

  it('the named index queries: one ticker, DARK_POOL, notional and size thresholds, sorted by notional, size, price', async () => {
    const bodies = [
      { filter: { ticker: 'NVDA' } },
      { filter: { equityPrintTypes: 'DARK_POOL' }, sort: { field: 'NOTIONAL_VALUE', direction: 'DESCENDING' } },
      { filter: { equityPrintTypes: ['DARK_POOL'], notionalValueRange: { min: 1_000_000 } } },
      { filter: { sizeRange: { min: 10_000, max: 100_000 } }, sort: { field: 'SIZE', direction: 'ASCENDING' } },
      { filter: { priceRange: { min: 400, max: 420 } }, sort: { field: 'PRICE', direction: 'DESCENDING' } },
      { filter: { notionalValueRange: { min: 2_000_000 } }, sort: { field: 'TRADE_TIME', direction: 'ASCENDING' } },
    ];
    for (const b of bodies) {
      const body = { sessionDate: SESSIONS[1].date, size: 11, ...b };
      const want = oracle(body);
      expect(want.length).toBeGreaterThan(11);
      expect({ body, rows: (await walk(body)).rows }).toEqual({ body, rows: want });
    }
  });

  it('property: random filters (every key, any alias), expressions, sorts and projections walk to the oracle answer', async () => {
    const rnd = rand(2929);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const some = <T>(xs: readonly T[]) => [...xs.filter(() => rnd() < 0.4), pick(xs)];
    const bound = (field: keyof PrintRow) => (rnd() < 0.3 ? null : (pick(ROWS)[field] as number));
    for (let i = 0; i < 30; i++) {
      const body: Record<string, unknown> = { size: 5 + Math.floor(rnd() * 60) };
      const sel = rnd();
      if (sel < 0.4) body.sessionDate = pick(SESSIONS).date;
      else if (sel < 0.8) {
        const a = SESSIONS[0].open + Math.floor(rnd() * 150_000);
        const b = SESSIONS[1].open + Math.floor(rnd() * 150_000);
        body.timeRange = { startTime: new Date(a).toISOString(), endTime: new Date(b).toISOString() };
      }
      const filter: Record<string, unknown> = {};
      if (rnd() < 0.3) filter[pick(['tickers', 'ticker'])] = some(PRINT_TICKERS);
      if (rnd() < 0.3)
        filter[pick(['equityPrintTypes', 'equityPrintType', 'printType', 'printTypes', 'type', 'types'])] = pick(['DARK_POOL', 'LIT', ['lit', 'dark pool']]);
      if (rnd() < 0.3) filter[pick(['tradeSideCodes', 'tradeSideCode'])] = some(['AA', 'A', 'M', 'B', 'BB', 'MID_MARKET', 'ask']);
      for (const [key, field] of Object.entries(RANGES)) {
        if (rnd() < 0.12) {
          const [a, b] = [bound(field), bound(field)];
          filter[key] = a !== null && b !== null && a > b ? { min: b, max: a } : { min: a, max: b };
        }
      }
      if (rnd() < 0.15) filter.isDelayedPrint = pick([true, false, 'true']);
      if (Object.keys(filter).length) body.filter = filter;
      if (rnd() < 0.4) {
        const terms: Term[] = [
          { field: pick(['SIZE', 'PRICE', 'NOTIONAL_VALUE', 'ASK_SIZE', 'TRADE_TIME']), operation: pick(['<', '<=', '>', '>=']), value: 0 },
          { field: pick(['TICKER', 'PRINT_TYPE', 'TRADE_SIDE']), operation: pick(['=', '!=']), values: [] },
        ];
        terms[0].value = pick(ROWS)[KEY_OF[terms[0].field]];
        terms[1].values =
          terms[1].field === 'TICKER' ? some(PRINT_TICKERS) : terms[1].field === 'PRINT_TYPE' ? [pick(['LIT', 'DARK_POOL'])] : some(['AA', 'ASK', 'M', 'BID']);
        body.filterExpression = { conjunction: pick(['AND', 'OR']), filters: terms };
      }
      if (rnd() < 0.7) body.sort = { field: pick(Object.keys(KEY_OF)), direction: pick(['ASCENDING', 'DESCENDING']) };
      const names = ['ID', ...Object.keys(KEY_OF)];
      const proj = rnd();
      if (proj < 0.25) body.includes = some(names);
      else if (proj < 0.5) body.excludes = some(names);
      const { rows } = await walk(body);
      expect({ body, rows }).toEqual({ body, rows: oracle(body) });
    }
  });

  it('an empty result has no cursor; a session without prints is empty', async () => {
    expect((await api.post(PATH, { sessionDate: '2024-05-03' })).json).toEqual({ data: [] });
    expect((await api.post(PATH, { sessionDate: SESSIONS[0].date, filter: { ticker: 'ZZZZ' } })).json).toEqual({ data: [] });
  });

  it.each([
    [{ snapshotTime: '2024-05-01T15:00:00Z' }, 'snapshotTime', /not accepted/],
    [{ aggregationPeriod: '1m' }, 'aggregationPeriod', /not accepted/],
    [{ sessionDate: '2024-05-01', timeRange: { startTime: '2024-05-01T13:00:00Z', endTime: '2024-05-01T14:00:00Z' } }, 'timeRange', /mutually exclusive/],
    [{ sessionDate: '2024-05-05' }, 'sessionDate', /not an NYSE trading session/],
    [{ timeRange: { startTime: '2024-05-01T14:00:00Z', endTime: '2024-05-01T14:00:00Z' } }, 'timeRange', /strictly before/],
    [{ filter: { equityPrintTypes: ['LIT', 'BLOCK'] } }, 'filter.equityPrintTypes[1]', /not a valid print type/],
    [{ filter: { printType: 'DARK_POOL', types: 'LIT' } }, 'filter.types', /same filter/],
    [{ filter: { tradeSideCodes: ['X'] } }, 'filter.tradeSideCodes[0]', /not a valid trade side/],
    [{ filter: { priceRange: { min: 10, max: 5 } } }, 'filter.priceRange', /greater than/],
    [{ filter: { sizeRange: { min: '10' } } }, 'filter.sizeRange.min', /number/],
    [{ filter: { notionalValueRange: { low: 1 } } }, 'filter.notionalValueRange.low', /not accepted/],
    [{ filter: { askSizeRange: 5 } }, 'filter.askSizeRange', /object/],
    [{ filter: { isDelayedPrint: 'yes' } }, 'filter.isDelayedPrint', /true or false/],
    [{ filter: { sectors: 'TECHNOLOGY' } }, 'filter.sectors', /not a filter/],
    [{ filterExpression: { field: 'ID', operation: '=', value: 'E-1' } }, 'filterExpression.field', /not a filterable field/],
    [{ filterExpression: { field: 'PRINT_TYPE', operation: '>', value: 'LIT' } }, 'filterExpression', /only = and !=/],
    [{ filterExpression: { field: 'SIZE', operation: 'ABOUT', value: 1 } }, 'filterExpression.operation', undefined],
    [{ sort: { field: 'ID' } }, 'sort.field', /not a filterable field/],
    [{ includes: ['VENUE'] }, 'includes[0]', /not a projection name/],
  ])('%j is a 400 naming %s', async (body, field, detail) => {
    expectProblem(await api.post(PATH, body), 400, field, detail);
  });
});
