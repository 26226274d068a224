import { equityPrintsProjection } from '../../projections/equities/equity-prints';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from '../../projections/order-flow/projections';
import type { Projection } from '../../projections/runtime/projection';
import { sessionDateAt } from '../../projections/enrich/enrich-print';
import { MARKET_PARTITIONS, topicFor } from '../../schemas/catalog';
import { sessionBounds } from '../../services/domain/calendar';
import { createRedis, type RedisClient as Redis } from '../../services/redis/client';
import { feedKey, offsetOfEntry } from '../../services/views/feed';
import { PartitionKeys } from '../../services/views/keys';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW } from '../../services/views/order-flow';
import { testConfig } from '../support/env';
import { equityPrintData } from '../support/equity-print-data';
import { CONSOLIDATED_SPEC, OPEN_INTEREST_SPEC, PRINTS_SPEC, orderFlowFixture, projectDirect, sourceEvents } from '../support/order-flow-data';

/**
 * The push streams' feeds take the live tape only (services/views/feed.ts, FeedGate): sessions
 * arrive out of order here (D2, then D1 as history arriving late, then D3), and each partition's
 * feed must hold exactly the rows whose session was the newest the partition had seen so far, in
 * offset order, whatever the chunking and the interleaving with the open-interest topic. The
 * views themselves keep every row of every session.
 */

const config = testConfig('feed-live');
const [D1, D2, D3] = ['2024-05-01', '2024-05-02', '2024-05-03'];
const ORDER = [D2, D1, D3];
const fixture = orderFlowFixture({ sessions: ORDER, printsPerSession: 120, seed: 5 });
// The fixture publishes consolidated versions in time order: here session by session in ORDER.
const consolidated = ORDER.flatMap((d) => fixture.consolidated.filter((e) => e.sessionDate === d));
const equityPrints = equityPrintData(
  ORDER.map((date) => ({ date, open: sessionBounds(date)!.open })),
  120,
  4,
);
const EQUITY_SPEC = topicFor('equity-print')!;
let redis: Redis;

beforeAll(() => {
  redis = createRedis(config.viewsRedisUrl);
});
afterAll(() => redis.disconnect());

interface Entry {
  partition: number;
  offset: number;
  segment: string;
}

/** Every entry of every partition's feed of a view, in partition then offset order. */
async function feedOf(prefix: string, view: string): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let p = 0; p < MARKET_PARTITIONS; p++) {
    const reply = (await redis.xrange(feedKey(new PartitionKeys(prefix, view, 1, p)), '-', '+')) as [string, string[]][];
    for (const [id, fields] of reply) out.push({ partition: p, offset: offsetOfEntry(id), segment: fields[fields.indexOf('s') + 1] });
  }
  return out;
}

/** The oracle: per partition, in offset order, a row enters the feed when its session is at least the newest seen. */
function expectedFeed(events: readonly object[], spec: { name: string }, sessionOf: (e: Record<string, unknown>) => string | null): Entry[] {
  const out: Entry[] = [];
  for (const [partition, evs] of [...sourceEvents(spec as never, events)].sort((a, b) => a[0] - b[0])) {
    let newest = '';
    for (const e of evs) {
      const segment = sessionOf(e.value!);
      if (segment === null || segment < newest) continue;
      newest = segment;
      out.push({ partition, offset: e.offset, segment });
    }
  }
  return out;
}

const count = (entries: Entry[], d: string) => entries.filter((e) => e.segment === d).length;

describe.each([
  {
    name: 'order-flow prints',
    view: ORDER_FLOW_PRINTS_VIEW,
    projection: orderFlowPrintsProjection,
    topics: [
      { spec: PRINTS_SPEC, events: fixture.prints },
      { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
    ],
    expected: () => expectedFeed(fixture.prints, PRINTS_SPEC, (e) => e.sessionDate as string),
  },
  {
    name: 'order-flow consolidated',
    view: ORDER_FLOW_CONSOLIDATED_VIEW,
    projection: orderFlowConsolidatedProjection,
    topics: [
      { spec: CONSOLIDATED_SPEC, events: consolidated },
      { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
    ],
    // A lone print below the block size is no row of this view, and so never in its feed.
    expected: () => expectedFeed(consolidated, CONSOLIDATED_SPEC, (e) => (e.tradeConsolidationType === 'SINGLE' ? null : (e.sessionDate as string))),
  },
  {
    name: 'equity prints',
    view: 'equity-prints',
    projection: equityPrintsProjection,
    topics: [{ spec: EQUITY_SPEC, events: equityPrints }],
    expected: () => expectedFeed(equityPrints, EQUITY_SPEC, (e) => sessionDateAt(Number(e.time))),
  },
] as { name: string; view: string; projection: Projection; topics: Parameters<typeof projectDirect>[4]; expected: () => Entry[] }[])(
  '$name',
  ({ view, projection, topics, expected }) => {
    it('the feed holds the rows of the newest session seen so far, not the history arriving after it, whatever the chunking', async () => {
      const feeds: Entry[][] = [];
      for (const [i, [order, chunk]] of (
        [
          ['in-turn', 1],
          [17, 40],
          ['in-turn', 500],
        ] as const
      ).entries()) {
        const prefix = `${config.keyPrefix}:${view}:${i}`;
        await projectDirect(redis, prefix, 1, projection, topics, order, chunk);
        feeds.push(await feedOf(prefix, view));
        // The view keeps every session: only the feed leaves the late history out.
        const sessions = new Set<string>();
        for (let p = 0; p < MARKET_PARTITIONS; p++) for (const d of await redis.zrange(new PartitionKeys(prefix, view, 1, p).key('s'), 0, -1)) sessions.add(d);
        expect([...sessions].sort()).toEqual([D1, D2, D3]);
      }
      const want = expected();
      expect(count(want, D1)).toBe(0);
      expect(count(want, D2)).toBeGreaterThan(10);
      expect(count(want, D3)).toBeGreaterThan(10);
      expect(feeds[0]).toEqual(want);
      expect(feeds[1]).toEqual(want);
      expect(feeds[2]).toEqual(want);
    });
  },
);
