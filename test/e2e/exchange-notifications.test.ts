import { topicFor } from '../../schemas/catalog';
import { NOTIFICATION_TYPE_CODES } from '../../services/domain/notifications';
import { EXCHANGE_NOTIFICATION_FIELDS } from '../../api/fields/exchange-notifications';
import { exchangeNotificationsProjection } from '../../projections/equities/exchange-notifications';
import { walkApi } from '../support/cursor-walk';
import { exchangeNotifications } from '../../api/endpoints/equities/exchange-notifications';
import { expectDocumentedResponse } from '../support/response-schema';
import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { TestPipeline, openPipeline } from '../support/pipeline';
import { expectProblem } from '../support/problem';
import { describeTableConformance } from '../support/table-conformance';
import { compare, orderRows, projectRow, rand } from '../support/table-oracle';

/**
 * POST /v1/equities/tool/exchange-notifications over HTTP, against the tape projected from real
 * Kafka events: the conformance suite, a property test of random filters, sorts and projections
 * against a brute-force oracle over the same events, and every validation rule.
 */

const PATH = '/v1/equities/tool/exchange-notifications';
const config = testConfig('notices');
const SPEC = topicFor('exchange-notification')!;
const TICKERS = ['AAPL', 'MSFT', 'TSLA', 'SPY', 'NVDA', 'BRK.B'];
const SESSIONS = [
  { date: '2024-05-01', open: Date.UTC(2024, 4, 1, 13, 30) },
  { date: '2024-05-02', open: Date.UTC(2024, 4, 2, 13, 30) },
];

interface Notice {
  id: string;
  ticker: string;
  type: string;
  time: number;
  message: string | null;
}

/** 180 notices per session; groups of three share a millisecond so ties are exercised; every type occurs. */
const notices: Notice[] = SESSIONS.flatMap(({ date, open }, s) =>
  Array.from({ length: 180 }, (_, i) => ({
    id: `N-${date.replace(/-/g, '')}-${TICKERS[(i * 7 + s) % TICKERS.length]}-${i}`,
    ticker: TICKERS[(i * 7 + s) % TICKERS.length],
    type: NOTIFICATION_TYPE_CODES[(i + s * 5) % NOTIFICATION_TYPE_CODES.length],
    time: open + Math.floor(i / 3) * 61_000,
    message: i % 4 ? null : `notice ${i}`,
  })),
);

let pipe: TestPipeline;
let api: TestApi;

beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(SPEC, notices as never);
  await pipe.projectAll([exchangeNotificationsProjection]);
  api = await startApi(config);
});

afterAll(async () => {
  await api?.close();
  await pipe?.close();
});

// --- the oracle -----------------------------------------------------------------------------

type Row = { id: string; ticker: string; type: string; createdTime: number };
const ROWS: Row[] = notices.map((n) => ({ id: n.id, ticker: n.ticker, type: n.type, createdTime: n.time }));
const GET: Record<string, (r: Row) => number | string> = { CREATED_TIME: (r) => r.createdTime, TICKER: (r) => r.ticker, TYPE: (r) => r.type };
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

function evalNode(n: Group | Term, r: Row): boolean {
  if ('conjunction' in n) return n.conjunction === 'AND' ? n.filters.every((c) => evalNode(c, r)) : n.filters.some((c) => evalNode(c, r));
  const actual = GET[n.field](r);
  const vals = (n.values ?? [n.value]).map((v) => (typeof v === 'string' && n.field !== 'CREATED_TIME' ? v.toUpperCase() : v)) as (string | number)[];
  if (n.operation === '=') return vals.includes(actual);
  if (n.operation === '!=') return !vals.includes(actual);
  return compare(n.operation, actual, vals[0]);
}

function oracle(body: Record<string, unknown>): Record<string, unknown>[] {
  let rows = ROWS;
  if (body.sessionDate) rows = rows.filter((r) => ny(r.createdTime) === body.sessionDate);
  else if (body.timeRange) {
    const tr = body.timeRange as { startTime: string; endTime: string };
    rows = rows.filter((r) => r.createdTime >= Date.parse(tr.startTime) && r.createdTime < Date.parse(tr.endTime));
  } else rows = rows.filter((r) => ny(r.createdTime) === SESSIONS[SESSIONS.length - 1].date);
  const f = (body.filter ?? {}) as { tickers?: string[]; types?: string[] };
  if (f.tickers) rows = rows.filter((r) => f.tickers!.map((t) => t.toUpperCase()).includes(r.ticker));
  if (f.types) rows = rows.filter((r) => f.types!.includes(r.type));
  if (body.filterExpression) rows = rows.filter((r) => evalNode(body.filterExpression as Group, r));
  const sort = (body.sort ?? { field: 'CREATED_TIME', direction: 'DESCENDING' }) as { field: string; direction?: string };
  return orderRows(rows, GET[sort.field], (r) => r.id, sort.direction !== 'ASCENDING').map((r) => projectRow(r, body));
}

const walk = (body: Record<string, unknown>) => walkApi(api, PATH, body);

// --- tests ----------------------------------------------------------------------------------

describeTableConformance('exchange-notifications', () => ({
  path: PATH,
  api: () => api,
  fields: EXCHANGE_NOTIFICATION_FIELDS,
  maxSize: 100,
  base: { sessionDate: SESSIONS[0].date },
  oracle,
  sortable: true,
}));

describe('exchange-notifications', () => {
  it('with no selector, serves the latest session, newest first, cursor [createdTime, id]', async () => {
    const res = await api.post(PATH, { size: 5 });
    expect(res.status).toBe(200);
    const want = oracle({});
    expect(res.json.data).toEqual(want.slice(0, 5));
    expectDocumentedResponse(exchangeNotifications, res.json);
    expect(res.json.nextSearchAfter).toEqual([String(want[4].createdTime), want[4].id]);
  });

  it('a timeRange spanning both sessions merges them; the end is exclusive', async () => {
    const timeRange = { startTime: new Date(SESSIONS[0].open + 30 * 61_000).toISOString(), endTime: new Date(SESSIONS[1].open + 20 * 61_000).toISOString() };
    const body = { timeRange, size: 9 };
    const want = oracle(body);
    expect(want.some((r) => ny(r.createdTime as number) === SESSIONS[0].date) && want.some((r) => ny(r.createdTime as number) === SESSIONS[1].date)).toBe(true);
    expect(want.some((r) => r.createdTime === SESSIONS[1].open + 19 * 61_000)).toBe(true);
    expect(want.some((r) => r.createdTime === SESSIONS[1].open + 20 * 61_000)).toBe(false);
    expect((await walk(body)).rows).toEqual(want);
  });

  it('property: random filters, expressions, sorts and projections walk to the oracle answer', async () => {
    const rnd = rand(29);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const some = <T>(xs: readonly T[]) => xs.filter(() => rnd() < 0.35).slice(0, 6);
    for (let i = 0; i < 25; i++) {
      const body: Record<string, unknown> = { size: 1 + Math.floor(rnd() * 30) };
      const sel = rnd();
      if (sel < 0.4) body.sessionDate = pick(SESSIONS).date;
      else if (sel < 0.8) {
        const a = SESSIONS[0].open + Math.floor(rnd() * 60) * 61_000;
        const b = SESSIONS[1].open + Math.floor(rnd() * 60) * 61_000;
        body.timeRange = { startTime: new Date(a).toISOString(), endTime: new Date(b).toISOString() };
      }
      const filter: Record<string, unknown> = {};
      if (rnd() < 0.4) filter.tickers = some(TICKERS).map((t) => (rnd() < 0.5 ? t.toLowerCase() : t));
      if (rnd() < 0.4) filter.types = some(NOTIFICATION_TYPE_CODES);
      for (const k of Object.keys(filter)) if ((filter[k] as unknown[]).length === 0) delete filter[k];
      if (Object.keys(filter).length) body.filter = filter;
      if (rnd() < 0.5) {
        const terms: Term[] = [];
        if (rnd() < 0.6) terms.push({ field: 'TICKER', operation: pick(['=', '!=']), values: some(TICKERS).concat(pick(TICKERS)) });
        if (rnd() < 0.6)
          terms.push({ field: 'TYPE', operation: pick(['=', '!=']), values: some(NOTIFICATION_TYPE_CODES).concat(pick(NOTIFICATION_TYPE_CODES)) });
        terms.push({ field: 'CREATED_TIME', operation: pick(['<', '<=', '>', '>=']), value: pick(ROWS).createdTime });
        body.filterExpression = { conjunction: pick(['AND', 'OR']), filters: terms };
      }
      if (rnd() < 0.6) body.sort = { field: pick(['CREATED_TIME', 'TICKER', 'TYPE']), direction: pick(['ASCENDING', 'DESCENDING']) };
      const proj = rnd();
      if (proj < 0.25) body.includes = some(['ID', 'TICKER', 'TYPE', 'CREATED_TIME']);
      else if (proj < 0.5) body.excludes = some(['ID', 'TICKER', 'TYPE', 'CREATED_TIME']);
      const { rows } = await walk(body);
      expect({ body, rows }).toEqual({ body, rows: oracle(body) });
    }
  });

  it('filters: tickers and types, singular or plural, scalar or list; names normalized', async () => {
    const want = oracle({ sessionDate: SESSIONS[1].date, filter: { tickers: ['TSLA'], types: ['LUDP', 'T1', 'REG_SHO'] } });
    expect(want.length).toBeGreaterThan(0);
    for (const filter of [
      { ticker: 'tsla', type: ['LUDP', 'T1', 'REG_SHO'] },
      { TICKERS: ['TSLA'], types: ['ludp', 't1', 'reg sho'] },
    ]) {
      const { rows } = await walk({ sessionDate: SESSIONS[1].date, filter, size: 100 });
      expect(rows).toEqual(want);
    }
  });

  it('an empty result has no cursor; a session without notices is empty', async () => {
    expect((await api.post(PATH, { sessionDate: '2024-05-03' })).json).toEqual({ data: [] });
    expect((await api.post(PATH, { sessionDate: SESSIONS[0].date, filter: { ticker: 'ZZZZ' } })).json).toEqual({ data: [] });
  });

  it.each([
    [{ snapshotTime: '2024-05-01T15:00:00Z' }, 'snapshotTime', /not accepted/],
    [{ aggregationPeriod: '1h' }, 'aggregationPeriod', /not accepted/],
    [{ sessionDateRange: { startDate: '2024-05-01' } }, 'sessionDateRange', /not accepted/],
    [{ sessionDate: '2024-05-01', timeRange: { startTime: '2024-05-01T13:00:00Z', endTime: '2024-05-01T14:00:00Z' } }, 'timeRange', /mutually exclusive/],
    [{ sessionDate: '2024-05-04' }, 'sessionDate', /not an NYSE trading session/],
    [{ sessionDate: '2024-13-01' }, 'sessionDate', undefined],
    [{ timeRange: { startTime: '2024-05-02T00:00:00Z', endTime: '2024-05-01T00:00:00Z' } }, 'timeRange', /strictly before/],
    [{ timeRange: { startTime: '2024-05-01T00:00:00Z' } }, 'timeRange.endTime', /required/],
    [{ filter: { types: ['LUDP', 'XYZ'] } }, 'filter.types[1]', /not a valid notification type/],
    [{ filter: { type: 'H12' } }, 'filter.type', /not a valid notification type/],
    [{ filter: { tickers: [] } }, 'filter.tickers', /empty/],
    [{ filter: { ticker: 'AAPL', tickers: 'MSFT' } }, 'filter.tickers', /same filter/],
    [{ filter: { id: 'N-1' } }, 'filter.id', /not a filter/],
    [{ filter: { sectors: ['TECHNOLOGY'] } }, 'filter.sectors', /not a filter/],
    [{ filterExpression: { field: 'ID', operation: '=', value: 'N-1' } }, 'filterExpression.field', /not a filterable field/],
    [{ filterExpression: { field: 'TYPE', operation: '=', value: 'NOPE' } }, 'filterExpression.value', /not a valid notification type/],
    [{ filterExpression: { field: 'TYPE', operation: '>', value: 'T1' } }, 'filterExpression', /only = and !=/],
    [{ filterExpression: { conjunction: 'XOR', filters: [{ field: 'TICKER', operation: '=', value: 'A' }] } }, 'filterExpression.conjunction', /AND or OR/],
    [{ sort: { field: 'ID', direction: 'ASCENDING' } }, 'sort.field', /not a filterable field/],
    [{ sort: { field: 'TYPE', direction: 'UP' } }, 'sort.direction', undefined],
    [{ includes: ['MESSAGE'] }, 'includes[0]', /not a projection name/],
  ])('%j is a 400 naming %s', async (body, field, detail) => {
    expectProblem(await api.post(PATH, body), 400, field, detail);
  });
});
