import { NOTIFICATION_TYPE_CODES } from '../../services/domain/notifications';
import type { ExchangeNotificationRow } from '../../services/views/equities/exchange-notifications';
import { FieldSet } from '../request/fields';
import type { FilterParam } from '../request/filter-object';
import { EnumLookup } from '../request/names';
import { TICKER_FILTER } from '../request/required-ticker';

/**
 * The exchange-notification field reference (spec "Exchange notification row"): CREATED_TIME,
 * TICKER and TYPE are filterable (and so sortable); ID is projectable only, so naming it in a
 * filterExpression or sort is a 400.
 */

export const notificationTypeLookup = new EnumLookup('notification type', NOTIFICATION_TYPE_CODES);

export const EXCHANGE_NOTIFICATION_FIELDS = new FieldSet<ExchangeNotificationRow>([
  { name: 'ID', type: 'symbol', filterable: false, projectable: true, responseKey: 'id', get: (r) => r.id },
  { name: 'TICKER', aliases: ['TICKERS'], type: 'symbol', filterable: true, projectable: true, responseKey: 'ticker', get: (r) => r.ticker },
  {
    name: 'TYPE',
    aliases: ['TYPES'],
    type: 'enum',
    enumLookup: notificationTypeLookup,
    filterable: true,
    projectable: true,
    responseKey: 'type',
    get: (r) => r.type,
  },
  { name: 'CREATED_TIME', type: 'time', filterable: true, projectable: true, responseKey: 'createdTime', get: (r) => r.createdTime },
]);

export const EXCHANGE_NOTIFICATION_FILTERS: FilterParam[] = [TICKER_FILTER, { key: 'types', aliases: ['type'], kind: 'in', field: 'TYPE' }];
