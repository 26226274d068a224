import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { NOTIFICATION_TYPE_CODES } from '../../../services/domain/notifications';
import { partitionOf } from '../../../services/kafka/partition';
import { EXCHANGE_NOTIFICATIONS_LAYOUT, type ExchangeNotificationRow } from '../../../services/views/equities/exchange-notifications';
import type { EndpointDef } from '../../request/endpoint';
import { EXCHANGE_NOTIFICATION_FIELDS, EXCHANGE_NOTIFICATION_FILTERS } from '../../fields/exchange-notifications';
import { fragments } from '../../request/validate';
import { READABLE_CURSOR } from '../../tables/readable-cursor';
import { tableEndpoint } from '../../tables/table-endpoint';
import type { Family } from '../../tables/engine';

const ROW_SCHEMA = {
  type: 'object',
  description: 'An exchange notification (spec "Exchange notification row"). Fields dropped by includes/excludes are absent.',
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'Notification id (projectable, not filterable).' },
    ticker: { type: 'string', description: 'Affected symbol.' },
    type: { enum: [...NOTIFICATION_TYPE_CODES], description: 'One of the 36 notification types.' },
    createdTime: { type: 'integer', description: 'Publication time, epoch-ms (UTC).' },
  },
};

/**
 * POST /v1/equities/tool/exchange-notifications: the notification tape on the table engine.
 * Default order createdTime DESCENDING (id descending on ties), cursor [createdTime, id], as the
 * vendor's example implies (docs/decisions.md).
 */
export const exchangeNotifications: EndpointDef = tableEndpoint<ExchangeNotificationRow>({
  path: '/equities/tool/exchange-notifications',
  summary: 'Trading halts, pauses, resumptions, IPO and regulatory notices, newest first, cursor-paged.',
  description:
    'Exchange notifications of a session (sessionDate), a window (timeRange, end exclusive) or, with neither, the latest session holding notifications. Default order createdTime DESCENDING (id on ties); sort by CREATED_TIME, TICKER or TYPE. Filters: tickers, types (the 36 codes). filterExpression over CREATED_TIME, TICKER, TYPE; ID is projectable, not filterable.',
  layout: EXCHANGE_NOTIFICATIONS_LAYOUT,
  fields: EXCHANGE_NOTIFICATION_FIELDS,
  filters: EXCHANGE_NOTIFICATION_FILTERS,
  maxSize: 100,
  selectors: ['sessionDate', 'timeRange'],
  defaultSort: { field: 'CREATED_TIME', descending: true },
  rowKeyPattern: /^[A-Za-z0-9._-]{1,64}$/,
  cursor: READABLE_CURSOR,
  rowSchema: ROW_SCHEMA,
  streamable: true,
  filterSchema: {
    ...fragments.filter,
    properties: {
      tickers: fragments.stringOrList('Ticker(s) (alias ticker); OR-combined.'),
      types: fragments.stringOrList(`Notification type(s) (alias type), from: ${NOTIFICATION_TYPE_CODES.join(', ')}; OR-combined. An unknown code is a 400.`),
    },
  },
  families: (plan, { filter }) => {
    const out: Family[] = [];
    const tickers = filter.values.get('tickers') as string[] | undefined;
    if (tickers) out.push(plan.indexFamily('tk', 'tk', tickers, (t) => [partitionOf(t, MARKET_PARTITIONS)]));
    const types = filter.values.get('types') as string[] | undefined;
    if (types) out.push(plan.indexFamily('ty', 'ty', types));
    return out;
  },
  examples: {
    latest: { summary: 'The ten newest notifications of the latest session', request: { size: 10 } },
    halts: {
      summary: 'Volatility pauses and news halts of two tickers in one session',
      request: { sessionDate: '2024-05-01', filter: { tickers: ['AAPL', 'TSLA'], types: ['LUDP', 'T1'] }, size: 2 },
      response: {
        data: [
          { id: 'N-20240501-TSLA-3', ticker: 'TSLA', type: 'LUDP', createdTime: 1714584612000 },
          { id: 'N-20240501-AAPL-1', ticker: 'AAPL', type: 'T1', createdTime: 1714574042000 },
        ],
        nextSearchAfter: ['1714574042000', 'N-20240501-AAPL-1'],
      },
    },
    expression: {
      summary: 'Circuit-breaker notices in a window, by type',
      request: {
        timeRange: { startTime: '2024-05-01T13:30:00Z', endTime: '2024-05-01T20:00:00Z' },
        sort: { field: 'TYPE', direction: 'ASCENDING' },
        filterExpression: { conjunction: 'AND', filters: [{ field: 'TYPE', operation: 'EQUALS', values: ['MWC1', 'MWC2', 'MWC3', 'MWCQ'] }] },
        includes: ['TICKER', 'TYPE', 'CREATED_TIME'],
      },
    },
  },
});
