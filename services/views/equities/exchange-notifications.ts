import { sessionDateOf } from '../../domain/calendar';
import type { TableLayout } from '../table';

/**
 * The exchange-notification tape: a table view (../table.ts) split by session (the New York date
 * of the notice's time). Rows are `[ticker, type, createdTime]` JSON under the notice's id (the
 * feed's ids are deterministic and never contain ':'), so the id is stored once, as the rowKey.
 *
 *   <seg>:x:time                       every notice by createdTime (the default order)
 *   <seg>:tk:<TICKER>, <seg>:ty:<TYPE> notices of one ticker / one type, by createdTime
 */

export const EXCHANGE_NOTIFICATIONS_VIEW = 'exchange-notifications';
export const EXCHANGE_NOTIFICATIONS_FORMAT = 1;

export interface ExchangeNotificationRow {
  id: string;
  ticker: string;
  type: string;
  createdTime: number;
}

export const EXCHANGE_NOTIFICATIONS_LAYOUT: TableLayout<ExchangeNotificationRow> = {
  view: EXCHANGE_NOTIFICATIONS_VIEW,
  segmented: true,
  segmentOf: (r) => sessionDateOf(r.createdTime),
  rowKeyOf: (r) => r.id,
  encode: (r) => JSON.stringify([r.ticker, r.type, r.createdTime]),
  decode: (stored, rowKey) => {
    const [ticker, type, createdTime] = JSON.parse(stored.toString()) as [string, string, number];
    return { id: rowKey, ticker, type, createdTime };
  },
  // Only the time is indexed: index members need fixed-width (numeric) sort keys (sort-keys.ts), and
  // a session holds few notices, so a sort by TICKER or TYPE reads the candidates (engine plan C).
  sorts: [{ field: 'CREATED_TIME', suffix: 'time', value: (r) => r.createdTime }],
  indexes: [
    { name: 'tk', values: (r) => [r.ticker] },
    { name: 'ty', values: (r) => [r.type] },
  ],
};
