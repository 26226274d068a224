import { topicFor } from '../../schemas/catalog';
import type { PartitionKeys } from '../../services/views/keys';
import {
  EXCHANGE_NOTIFICATIONS_FORMAT,
  EXCHANGE_NOTIFICATIONS_LAYOUT,
  EXCHANGE_NOTIFICATIONS_VIEW,
  type ExchangeNotificationRow,
} from '../../services/views/equities/exchange-notifications';
import { TableKeys, rowWrites } from '../../services/views/table';
import type { RedisOp } from '../runtime/atomic-apply';
import { withFeed } from '../runtime/feed';
import type { Projection, SourceEvent } from '../runtime/projection';

interface NotificationEvent {
  id: string;
  ticker: string;
  type: string;
  time: number | bigint;
}

function notificationRow(v: NotificationEvent): ExchangeNotificationRow {
  return { id: v.id, ticker: v.ticker, type: v.type, createdTime: Number(v.time) };
}

/**
 * The notification tape (services/views/equities/exchange-notifications.ts). A notice is an
 * immutable fact with a deterministic id, so a redelivery rewrites the same hash field and zset
 * members: the view stays byte-identical without reading it first.
 */
const notificationsTape: Projection = {
  view: EXCHANGE_NOTIFICATIONS_VIEW,
  format: EXCHANGE_NOTIFICATIONS_FORMAT,
  topics: [topicFor('exchange-notification')!],

  async project(events: SourceEvent[], keys: PartitionKeys): Promise<RedisOp[]> {
    const k = new TableKeys(keys);
    const ops: RedisOp[] = [];
    for (const e of events) {
      if (e.value === null) continue;
      ops.push(...rowWrites(EXCHANGE_NOTIFICATIONS_LAYOUT, k, notificationRow(e.value as unknown as NotificationEvent)));
    }
    return ops;
  },
};

/** The tape and its feed for the push streams (runtime/feed.ts). */
export const exchangeNotificationsProjection: Projection = withFeed(notificationsTape, {
  layout: EXCHANGE_NOTIFICATIONS_LAYOUT,
  rowsTopic: topicFor('exchange-notification')!.name,
  rowOf: (e) => notificationRow(e.value as unknown as NotificationEvent),
});
