import { testConfig } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { expectProblem } from '../support/problem';

/**
 * Every request rule of the two order-flow tapes that can be broken: each bad input is a 400
 * ValidationFailure naming the field at fault. Every accepted spelling (aliases, short codes,
 * normalized names) is a 200. No data is needed: requests are validated before the view is read.
 */

const C = '/v1/options/tool/order-flow/consolidated';
const U = '/v1/options/tool/order-flow/unconsolidated';
const OSI = 'SPY   261218C00450000';
let api: TestApi;

beforeAll(async () => {
  api = await startApi(testConfig('of-validation'));
});
afterAll(async () => {
  await api.close();
});

type Case = [path: string, body: Record<string, unknown>, field: string, detail?: RegExp];
const both = (cases: [Record<string, unknown>, string, RegExp?][]): Case[] =>
  cases.flatMap(([b, f, d]): Case[] => [
    [C, b, f, d],
    [U, b, f, d],
  ]);

describe('bad input is a 400 naming the field', () => {
  it.each(
    [
      ...both([
        [{ size: 0 }, 'size'],
        [{ size: 2.5 }, 'size'],
        [{ size: '10' }, 'size'],
        [{ sessionDate: '2026-11-20', timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T15:30:00Z' } }, 'timeRange', /mutually exclusive/],
        [{ sessionDate: '2026-11-21' }, 'sessionDate', /not an NYSE trading session/],
        [{ sessionDate: '2026-11-26' }, 'sessionDate', /not an NYSE trading session/],
        [{ sessionDate: '20261120' }, 'sessionDate'],
        [{ sessionDate: '2026-02-30' }, 'sessionDate'],
        [{ timeRange: { startTime: '2026-11-20T15:00:00Z', endTime: '2026-11-20T15:00:00Z' } }, 'timeRange', /strictly before/],
        [{ timeRange: { startTime: '2026-11-20T15:00:00Z' } }, 'timeRange.endTime', /required/],
        [{ snapshotTime: '2026-11-20T15:00:00Z' }, 'snapshotTime', /not accepted/],
        [{ aggregationPeriod: '1m' }, 'aggregationPeriod', /not accepted/],
        [{ includes: ['ID'], excludes: ['PREMIUM'] }, 'includes', /mutually exclusive/],
        [{ includes: ['DELTA'] }, 'includes[0]', /not projectable/],
        [{ excludes: ['NOPE'] }, 'excludes[0]', /not a projection name/],
        [{ sort: { field: 'NOPE' } }, 'sort.field', /not a filterable field/],
        [{ sort: { field: 'GREEKS' } }, 'sort.field', /not a filterable field/],
        [{ sort: { field: 'PREMIUM', direction: 'UP' } }, 'sort.direction', /ASCENDING or DESCENDING/],
        [{ sort: { field: 'PREMIUM', order: 'ASCENDING' } }, 'sort.order'],
        [{ searchAfter: ['1'] }, 'searchAfter'],
        [{ searchAfter: [1, 2] }, 'searchAfter[0]'],
        [{ searchAfter: ['n8000000000000000', 'not-a-row'] }, 'searchAfter', /not a cursor/],
        // A cursor of a numeric sort handed to a string sort (or the reverse) is not this request's cursor.
        [{ sort: { field: 'TICKER' }, searchAfter: ['n8000000000000000', '0000000001'] }, 'searchAfter', /not a cursor/],
        [{ searchAfter: ['sSPY', '0000000001'] }, 'searchAfter', /not a cursor/],
        [{ filter: { nope: 1 } }, 'filter.nope', /not a filter/],
        [{ filter: { ticker: 'SPY', tickers: ['QQQ'] } }, 'filter.tickers', /same filter/],
        [{ filter: { tickers: [] } }, 'filter.tickers', /empty/],
        [{ filter: { strikePrices: [450], strikePriceRange: { min: 400 } } }, 'filter.strikePriceRange', /mutually exclusive/],
        [{ filter: { expirationDate: '2026-12-18', expirationDateRange: { startDate: '2026-12-01' } } }, 'filter.expirationDateRange', /mutually exclusive/],
        [{ filter: { premiumRange: { min: 10, max: 5 } } }, 'filter.premiumRange', /greater than/],
        [{ filter: { premiumRange: { min: '10' } } }, 'filter.premiumRange.min'],
        [{ filter: { premiumRange: { low: 10 } } }, 'filter.premiumRange.low'],
        [{ filter: { expirationDateRange: { startDate: '2026-13-01' } } }, 'filter.expirationDateRange.startDate'],
        [{ filter: { sector: 'SPACE_TRAVEL' } }, 'filter.sector', /not a valid sector/],
        [{ filter: { industry: 'WIDGETS' } }, 'filter.industry', /not a valid industry/],
        [{ filter: { tradeSideCodes: ['XX'] } }, 'filter.tradeSideCodes[0]', /not a valid trade side/],
        [{ filter: { contractType: 'STRADDLE' } }, 'filter.contractType', /not a valid contract type/],
        [{ filter: { exchange: 'NOPE' } }, 'filter.exchange', /not a valid options exchange/],
        [{ filter: { moneyTypes: 'DEEP' } }, 'filter.moneyTypes', /not a valid money type/],
        [{ filter: { isUnusual: 'yes' } }, 'filter.isUnusual'],
        [{ filterExpression: { field: 'NOPE', operation: '=', value: 1 } }, 'filterExpression.field', /not a filterable field/],
        [{ filterExpression: { field: 'PREMIUM', operation: 'LIKE', value: 1 } }, 'filterExpression.operation', /not an operation/],
        [{ filterExpression: { field: 'SECTOR', operation: '<', value: 'TECHNOLOGY' } }, 'filterExpression', /only = and !=/],
        [{ filterExpression: { conjunction: 'XOR', filters: [{ field: 'SIZE', operation: '>', value: 1 }] } }, 'filterExpression.conjunction'],
        [{ filterExpression: { field: 'SIZE', operation: '>', value: 1, values: [2] } }, 'filterExpression', /exactly one/],
        [{ filter: { zommaRange: { min: 'high' } } }, 'filter.zommaRange.min'],
        [{ filter: { vommaRange: [0, 1] } }, 'filter.vommaRange'],
        [{ filter: { thetaRange: { min: 0, max: -1 } } }, 'filter.thetaRange', /greater than/],
        [{ filter: { gammaRange: { min: 0 }, epsilonRange: { min: 0 } } }, 'filter.epsilonRange', /not a filter/],
        [{ filter: { moneynessInPercentRange: { max: '5%' } } }, 'filter.moneynessInPercentRange.max'],
        [{ filterExpression: { field: 'ULTIMA', operation: '>', value: 'x' } }, 'filterExpression.value'],
        [{ filter: { tradeTypes: ['ELECTRONIC'] } }, 'filter.tradeTypes[0]', /trade type/],
      ]),
      ...([
        [C, { size: 101 }, 'size', /100/],
        [U, { size: 1001 }, 'size', /1000/],
        [C, { filter: { osi: OSI } }, 'filter.osi', /not a filter/],
        [C, { includes: ['OSI'] }, 'includes[0]', /not a projection name/],
        [U, { filter: { osi: 'SPY261218C00450000' } }, 'filter.osi', /21-character/],
        [U, { filter: { osi: [OSI, 'SPY   261218P00450000'] } }, 'filter.osi', /single value, got 2/],
        [U, { filter: { tradeConsolidationTypes: 'SWEEP' } }, 'filter.tradeConsolidationTypes', /not a filter/],
        [U, { filter: { isGoldenSweep: true } }, 'filter.isGoldenSweep', /not a filter/],
        [U, { includeComprisingTrades: true }, 'includeComprisingTrades', /not accepted/],
        [U, { includes: ['COMPRISING_TRADES'] }, 'includes[0]', /not a projection name/],
        [C, { filter: { tradeConsolidationTypes: ['SWEEP', 'ICEBERG'] } }, 'filter.tradeConsolidationTypes[1]', /consolidation type/],
        // A lone small print is no consolidated trade: SINGLE is not a value of the field.
        [C, { filter: { tradeConsolidationTypes: ['BLOCK', 'SINGLE'] } }, 'filter.tradeConsolidationTypes[1]', /consolidation type/],
        [C, { filterExpression: { field: 'TRADE_CONSOLIDATION_TYPE', operation: '=', value: 'SINGLE' } }, 'filterExpression.value', /consolidation type/],
        [C, { includeComprisingTrades: 'yes' }, 'includeComprisingTrades'],
        [C, { includeStatistics: 1 }, 'includeStatistics'],
      ] as Case[]),
    ].map(([p, b, f, d]) => [p, b, f, d ?? null] as const),
  )('%s %j is a 400 naming %s', async (path, body, field, detail) => {
    expectProblem(await api.post(path, body), 400, field, detail ?? undefined);
  });
});

describe('accepted spellings', () => {
  it.each(
    [
      ...both([
        [{ size: 100, sort: { field: 'premium', direction: 'ascending' } }, ''],
        [{ sort: { field: 'strike-price' } }, ''],
        [{ sort: { field: 'Implied Volatility', direction: 'DESCENDING' } }, ''],
        [{ sort: { field: 'delta' } }, ''],
        [{ sort: { field: 'Vomma', direction: 'ASCENDING' } }, ''],
        [{ sort: { field: 'degree_in_percent' } }, ''],
        [{ filter: { deltaRange: { min: 0.3, max: 0.7 }, sigmaRange: { max: 0.5 }, ultimaRange: { min: null } } }, ''],
        [{ filter: { moneynessInDollarsRange: { max: 5 }, tradeTypes: ['AUTO', 'ISO', 'auct_iso', 'MULTI_FLR'] } }, ''],
        [{ filterExpression: { field: 'color', operation: '<', value: 0 } }, ''],
        [{ filter: { ticker: 'spy' } }, ''],
        [{ filter: { TICKERS: ['SPY', 'qqq'] } }, ''],
        [{ filter: { tradeSideCodes: ['AA', 'a', 'M', 'B', 'BB', 'MID_MARKET'] } }, ''],
        [{ filter: { tradeSideCode: 'aa' } }, ''],
        [{ filter: { sector: 'financial services' } }, ''],
        [{ filter: { sectors: ['financialServices', 'FINANCIAL_SERVICES', 'Technology'] } }, ''],
        [{ filter: { industry: 'software application' } }, ''],
        [{ filter: { industries: ['SOFTWARE__APPLICATION', 'software_application', 'Banks - Regional'] } }, ''],
        [{ filter: { strikePriceRange: { min: null, max: 500 } } }, ''],
        [{ filter: { premiumRange: { min: 500000 } } }, ''],
        [{ filter: { expirationDateRange: { startDate: '2026-12-01', endDate: null } } }, ''],
        [{ filter: { strikePrice: 450, expirationDates: ['2026-12-18'] } }, ''],
        [
          {
            filterExpression: {
              conjunction: 'AND',
              filters: [
                { field: 'trade side code', operation: 'EQUALS', values: ['A', 'AA'] },
                { field: 'DTE', operation: 'LESS_THAN', value: 7 },
              ],
            },
          },
          '',
        ],
        [{ searchAfter: null, includeStatistics: true }, ''],
        [{ sessionDate: '2026-11-20' }, ''],
        [{ timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T21:00:00Z' } }, ''],
        [{ includes: ['id', 'greeks', 'moneyness', 'trade time'] }, ''],
      ]),
      [U, { size: 1000, filter: { osi: OSI.toLowerCase() } }, ''] as Case,
      // The alias rule: a single-value filter takes a one-element list, under either number.
      [U, { filter: { osis: [OSI] } }, ''] as Case,
      [C, { includeComprisingTrades: true, filter: { tradeConsolidationType: 'sweep', isGoldenSweep: true } }, ''] as Case,
    ].map(([p, b]) => [p, b] as const),
  )('%s %j is accepted', async (path, body) => {
    const res = await api.post(path, body);
    expect({ status: res.status, body: res.status === 200 ? null : res.json }).toEqual({ status: 200, body: null });
  });

  it('an unbuilt view answers an empty page, with zero statistics when asked', async () => {
    const res = await api.post(U, { includeStatistics: true });
    expect(res.json.data).toEqual([]);
    expect(res.json.nextSearchAfter).toBeUndefined();
    expect(res.json.statistics.CALL.ASK).toEqual({ premium: 0, tradeCount: 0, volume: 0 });
    expect(Object.keys(res.json.statistics.PUT)).toEqual(['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID']);
  });
});
