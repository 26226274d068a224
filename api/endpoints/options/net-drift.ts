import { OPTION_TRADE_FILTERS } from '../../fields/option-trade';
import { bucketKey } from '../../request/aggregation/buckets';
import { orderedMap } from '../../request/aggregation/ordered-map';
import { TYPE_AND_SIDE, dollars, flowEndpoint, netBuckets, type LegSums } from './flow-aggregation';

/**
 * POST /v1/options/tool/net-drift: per bucket, the net premium (dollars) and contracts of calls
 * and puts (bought minus sold, as net-flow: its cents over 100 agree bucket for bucket, vendor
 * notes 2.14) and the mid-market premium per contract: the size-weighted average price of the
 * bucket's mid-market prints (dollars, as option prices are quoted; 0 when there were none).
 */

const KEYS = ['tickers', 'expirationDates', 'expirationDateRange', 'strikePrices', 'strikePriceRange', 'moneyTypes'];
const FIELDS = ['midMarketCallPremium', 'midMarketPutPremium', 'netCallPremium', 'netPutPremium', 'netCallVolume', 'netPutVolume'] as const;

const midPrice = (l: LegSums) => (l.mid === 0 ? 0 : l.midCents / l.mid / 100);

export const netDrift = flowEndpoint({
  path: '/options/tool/net-drift',
  summary: 'Net premium and volume drift per time bucket',
  description:
    "Per bucket (start as epoch-ms, ascending; values per bucket, not cumulative: sum them in time order for a running curve): netCallPremium and netPutPremium (dollars) and netCallVolume and netPutVolume (contracts) = bought (ASK, ABOVE_ASK) minus sold (BID, BELOW_BID), as net-flow; midMarketCallPremium and midMarketPutPremium = the size-weighted average price (dollars per share, as quoted) of the bucket's MID_MARKET prints, 0 when none. stockPrice only when filter.tickers names exactly one ticker. The newest bucket of an open session grows as prints arrive; buckets without a matching print are omitted.",
  filters: OPTION_TRADE_FILTERS.filter((f) => KEYS.includes(f.key)),
  expression: true,
  bucketed: true,
  foldsBy: TYPE_AND_SIDE,
  dataSchema: {
    type: 'object',
    description: 'Bucket start (epoch-ms string) -> values.',
    additionalProperties: {
      type: 'object',
      required: [...FIELDS],
      additionalProperties: false,
      properties: { ...Object.fromEntries(FIELDS.map((f) => [f, { type: f.endsWith('Volume') ? 'integer' : 'number' }])), stockPrice: { type: 'number' } },
    },
  },
  examples: {
    ticker: { summary: 'One ticker, 15-minute buckets, latest session', request: { aggregationPeriod: '15m', filter: { tickers: 'AAPL' } } },
    range: {
      summary: 'Near-the-money flow of two tickers over a window',
      request: {
        timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T21:00:00Z' },
        aggregationPeriod: '30m',
        filter: { tickers: ['SPY', 'QQQ'], moneyType: 'ATM' },
      },
    },
  },
  async answer(req, ctx) {
    const buckets = await netBuckets(req, ctx);
    return {
      data: orderedMap(
        buckets.map(
          ([start, b]) =>
            [
              bucketKey(start),
              {
                midMarketCallPremium: midPrice(b.CALL),
                midMarketPutPremium: midPrice(b.PUT),
                netCallPremium: dollars(b.CALL.boughtCents - b.CALL.soldCents),
                netPutPremium: dollars(b.PUT.boughtCents - b.PUT.soldCents),
                netCallVolume: b.CALL.bought - b.CALL.sold,
                netPutVolume: b.PUT.bought - b.PUT.sold,
                ...(b.stockPrice === undefined ? {} : { stockPrice: b.stockPrice }),
              },
            ] as const,
        ),
        'epochMs',
      ),
    };
  },
});
