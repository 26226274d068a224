import { OPTION_TRADE_FILTERS } from '../../fields/option-trade';
import { bucketKey } from '../../request/aggregation/buckets';
import { orderedMap } from '../../request/aggregation/ordered-map';
import { TYPE_AND_SIDE, flowEndpoint, netBuckets } from './flow-aggregation';

/**
 * POST /v1/options/tool/net-flow: per bucket, net call and put flow: premium (integer cents) or
 * contracts bought at the ask or above minus those sold at the bid or below; mid-market prints
 * count for neither side. stockPrice only when the filter pins exactly one ticker.
 */

const KEYS = ['tickers', 'expirationDates', 'expirationDateRange', 'strikePrices', 'strikePriceRange', 'moneyTypes', 'tradeSideCodes'];
const MODES = ['NET_PREMIUM', 'NET_VOLUME'] as const;

export const netFlow = flowEndpoint({
  path: '/options/tool/net-flow',
  summary: 'Net call and put flow per time bucket',
  description:
    "Per bucket (start as epoch-ms, ascending): callSum and putSum = bought (ASK, ABOVE_ASK) minus sold (BID, BELOW_BID) over the matching prints; MID_MARKET prints count for neither. NET_PREMIUM sums premium in integer cents, NET_VOLUME contracts. stockPrice (the underlying at the bucket's last print of the ticker) only when filter.tickers names exactly one ticker. Buckets without a matching print are omitted. Values are per bucket, not cumulative.",
  filters: OPTION_TRADE_FILTERS.filter((f) => KEYS.includes(f.key)),
  expression: true,
  bucketed: true,
  foldsBy: TYPE_AND_SIDE,
  required: ['dataMode'],
  extras: { dataMode: { enum: [...MODES], description: 'NET_PREMIUM (cents) or NET_VOLUME (contracts).' } },
  dataSchema: {
    type: 'object',
    description: 'Bucket start (epoch-ms string) -> sums.',
    additionalProperties: {
      type: 'object',
      required: ['callSum', 'putSum'],
      additionalProperties: false,
      properties: { callSum: { type: 'integer' }, putSum: { type: 'integer' }, stockPrice: { type: 'number' } },
    },
  },
  examples: {
    premium: {
      summary: 'Net premium of one ticker in 15-minute buckets',
      request: { dataMode: 'NET_PREMIUM', aggregationPeriod: '15m', filter: { ticker: 'SPY' } },
    },
    volume: {
      summary: 'Net contracts of out-of-the-money options, whole market, hourly, ask and bid side only',
      request: {
        dataMode: 'NET_VOLUME',
        sessionDate: '2026-11-20',
        aggregationPeriod: '1h',
        filter: { moneyTypes: ['OTM'] },
        filterExpression: { field: 'tradeSideCode', operation: '!=', values: ['M'] },
      },
    },
  },
  async answer(req, ctx) {
    const premium = req.body.dataMode === 'NET_PREMIUM';
    const buckets = await netBuckets(req, ctx);
    const net = (l: { boughtCents: number; soldCents: number; bought: number; sold: number }) => (premium ? l.boughtCents - l.soldCents : l.bought - l.sold);
    return {
      data: orderedMap(
        buckets.map(
          ([start, b]) =>
            [bucketKey(start), { callSum: net(b.CALL), putSum: net(b.PUT), ...(b.stockPrice === undefined ? {} : { stockPrice: b.stockPrice }) }] as const,
        ),
        'epochMs',
      ),
    };
  },
});
