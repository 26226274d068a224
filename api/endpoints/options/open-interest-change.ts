import { CHANGE_ROW_KEY, CHANGE_SESSIONS, OI_CHANGE_LAYOUT, type OiChangeRow } from '../../../services/views/open-interest';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import type { EndpointDef } from '../../request/endpoint';
import { Problem } from '../../request/problem';
import { viewSegments } from '../../tables/view-state';
import { OI_CHANGE_EXCLUSIVE, OI_CHANGE_FIELDS, OI_CHANGE_FILTERS } from '../../fields/open-interest';
import { fragments } from '../../request/validate';
import { tableEndpoint } from '../../tables/table-endpoint';

const ROW_SCHEMA = {
  type: 'object',
  description: 'One contract\'s open interest against the previous session (spec "Open interest change row"). Fields dropped by includes/excludes are absent.',
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'Row id: the OSI symbol without padding, a dash, the session as yyyymmdd.' },
    ticker: { type: 'string' },
    contractType: { enum: ['CALL', 'PUT'] },
    strikePrice: { type: 'number', description: 'Dollars.' },
    expirationDate: { type: 'string', format: 'date' },
    previousOpenInterest: { type: 'integer', description: 'Contracts at the start of the previous session with open interest (0 for a new listing).' },
    currentOpenInterest: { type: 'integer', description: 'Contracts at the start of sessionDate (the T+1 figure: positions after the previous session).' },
    changeInOpenInterest: { type: 'integer', description: 'current - previous, contracts.' },
    percentChangeInOpenInterest: { type: ['number', 'null'], description: 'Fractional change (0.05 = 5 %); null when previousOpenInterest is 0.' },
    sessionDate: { type: 'string', format: 'date' },
    createdTime: { type: 'integer', description: 'Publication time of the current open interest, epoch-ms.' },
  },
};

const table: EndpointDef = tableEndpoint<OiChangeRow>({
  path: '/options/tool/open-interest-change',
  summary: 'Per-contract change in open interest between a session and the one before it, cursor-paged.',
  description: [
    'Rows of one session: each contract listed in it, with its open interest at the start of the session and at the start of the previous session that has open interest.',
    'Open interest is the T+1 figure published before the open, so the default session is the latest one published: before the open that is the prior session.',
    `Sort by any field (default createdTime descending; ties by row). Change rows are kept for the ${CHANGE_SESSIONS} newest sessions; an older sessionDate is a 422 OpenInterestChangesNotKept (open-interest-over-time and max-pain cover every session).`,
    'A contract not listed in the previous session has previousOpenInterest 0 and percentChangeInOpenInterest null; an expired contract has no row.',
  ].join(' '),
  problems: ['OpenInterestChangesNotKept'],
  layout: OI_CHANGE_LAYOUT,
  fields: OI_CHANGE_FIELDS,
  filters: OI_CHANGE_FILTERS,
  exclusive: OI_CHANGE_EXCLUSIVE,
  maxSize: 100,
  selectors: ['sessionDate'],
  selectorNote: 'Default: the latest session whose open interest is published (before the open, the prior session).',
  defaultSort: { field: 'CREATED_TIME', descending: true },
  rowKeyPattern: CHANGE_ROW_KEY,
  rowSchema: ROW_SCHEMA,
  filterSchema: {
    ...fragments.filter,
    properties: {
      tickers: fragments.stringOrList('Underlying ticker(s) (alias ticker); OR-combined.'),
      contractTypes: fragments.stringOrList('CALL and/or PUT (alias contractType).'),
      strikePrices: {
        type: ['number', 'string', 'array'],
        items: { type: ['number', 'string'] },
        description: 'Strike(s) in dollars (alias strikePrice); exclusive with strikePriceRange.',
      },
      strikePriceRange: fragments.range('Strike in dollars'),
      expirationDates: fragments.stringOrList('Expiration date(s) yyyy-MM-dd (alias expirationDate); exclusive with expirationDateRange.'),
      expirationDateRange: {
        type: 'object',
        additionalProperties: false,
        properties: { startDate: { type: ['string', 'null'] }, endDate: { type: ['string', 'null'] } },
        description: 'Expirations {startDate, endDate}, inclusive.',
      },
      previousOpenInterestRange: fragments.range('Previous open interest (integers)'),
      currentOpenInterestRange: fragments.range('Current open interest (integers)'),
      changeInOpenInterestRange: fragments.range('Change in open interest (integers, signed)'),
      percentChangeInOpenInterestRange: fragments.range('Percent change, fractional (0.05 = 5 %)'),
    },
  },
  // A ticker's rows live in its partition only; they are never more than the session's, so in the
  // default order that index is read without counting first.
  families: (plan, { filter }) => {
    const tickers = filter.values.get('tickers') as string[] | undefined;
    return tickers ? [plan.indexFamily('tk', 'tk', tickers, (t) => [partitionOf(t, MARKET_PARTITIONS)])] : [];
  },
  knownSmallest: (families) => families.find((f) => f.name === 'tk') ?? null,
  examples: {
    latest: { summary: 'The latest published session, default order', request: { size: 2 } },
    buildUps: {
      summary: 'The biggest SPY call build-ups of a session',
      request: {
        sessionDate: '2026-01-05',
        size: 2,
        sort: { field: 'changeInOpenInterest', direction: 'DESCENDING' },
        filter: { tickers: 'SPY', contractTypes: 'CALL', changeInOpenInterestRange: { min: 100 } },
      },
      response: {
        data: [
          {
            id: 'SPY260116C00600000-20260105',
            ticker: 'SPY',
            contractType: 'CALL',
            strikePrice: 600,
            expirationDate: '2026-01-16',
            previousOpenInterest: 18250,
            currentOpenInterest: 21400,
            changeInOpenInterest: 3150,
            percentChangeInOpenInterest: 0.1726027397260274,
            sessionDate: '2026-01-05',
            createdTime: 1767614400000,
          },
        ],
      },
    },
    projected: {
      summary: 'Puts losing more than half their open interest, three fields',
      request: {
        includes: ['TICKER', 'STRIKE_PRICE', 'PERCENT_CHANGE_IN_OPEN_INTEREST'],
        filter: { contractType: 'PUT', percentChangeInOpenInterestRange: { max: -0.5 } },
        filterExpression: { conjunction: 'AND', filters: [{ field: 'CURRENT_OPEN_INTEREST', operation: '>', value: 10 }] },
      },
    },
  },
});

/**
 * The table endpoint, refusing a session older than the oldest one with change rows: an empty
 * page would read as "nothing changed" when the rows were never kept.
 */
export const openInterestChange: EndpointDef = {
  ...table,
  async handle(body, ctx) {
    const session = typeof body.sessionDate === 'string' ? body.sessionDate : null;
    const version = session === null ? null : await ctx.views.version(OI_CHANGE_LAYOUT.view);
    if (session !== null && version !== null) {
      const held = await ctx.views.list(`${OI_CHANGE_LAYOUT.view}:${version}:segments`, () =>
        viewSegments(ctx.redis, ctx.keyPrefix, OI_CHANGE_LAYOUT.view, version),
      );
      if (held.length >= CHANGE_SESSIONS && session < held[0]) {
        throw new Problem(
          'OpenInterestChangesNotKept',
          `Open interest changes are kept for the newest ${CHANGE_SESSIONS} sessions; ${session} is older than the oldest kept, ${held[0]}.`,
        );
      }
    }
    return table.handle(body, ctx);
  },
};
