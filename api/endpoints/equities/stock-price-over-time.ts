import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { STOCK_PRICES_VIEW } from '../../../services/views/equities/stock-prices';
import { mergeBar, type PriceBar } from '../../../services/views/equities/price-bars';
import { bucketKey, rollUp } from '../../request/aggregation/buckets';
import { orderedMap } from '../../request/aggregation/ordered-map';
import type { EndpointContext, EndpointDef } from '../../request/endpoint';
import { StockPrices } from '../../views/equities/stock-prices';
import { readPriceBars } from '../../views/equities/minute-cells';
import { viewsStamp } from '../../views/views-stamp';
import { parseTickerSeries, tickerSeriesRequestSchema } from './ticker-series';

const BAR = {
  type: 'object',
  additionalProperties: false,
  required: ['openPrice', 'highPrice', 'lowPrice', 'closePrice'],
  properties: {
    openPrice: { type: 'number', description: "The bucket's first price event, dollars." },
    highPrice: { type: 'number', description: 'The highest price event of the bucket.' },
    lowPrice: { type: 'number', description: 'The lowest price event of the bucket.' },
    closePrice: { type: 'number', description: "The bucket's last price event." },
  },
};

/** The newest session the stock-price view holds for any ticker (null: none). */
export async function latestPriceSession(ctx: EndpointContext, version: number): Promise<string | null> {
  const all = await ctx.views.list(`${STOCK_PRICES_VIEW}:${version}:sessions`, () => new StockPrices(ctx.redis, ctx.keyPrefix, version).sessions());
  return all.length ? all[all.length - 1] : null;
}

/** A bucket's bar as the response writes it. */
export const barJson = (b: PriceBar) => ({ openPrice: b.open, highPrice: b.high, lowPrice: b.low, closePrice: b.close });

/**
 * POST /v1/equities/tool/stock-price-over-time: the underlying's open, high, low and close per
 * bucket, over its price events (official open, last-sale ticks, official close), unadjusted.
 * Read from the stock-price view's minute and session bars (services/views/equities/price-bars.ts).
 */
export const stockPriceOverTime: EndpointDef = {
  path: '/equities/tool/stock-price-over-time',
  summary: "Open, high, low and close of one ticker's price per time bucket.",
  description:
    "Bucket start (epoch-ms string, ascending) -> {openPrice, highPrice, lowPrice, closePrice} in dollars, unadjusted (no split or dividend adjustment), no volume. The values are over the ticker's price events in the bucket (and in the window): the official open, the per-second last-sale prices of sessions with tick data, the official close; openPrice and closePrice are the first and last by time. Sessions without tick data (history) have only their official open and close. Buckets without a price event are omitted. Time: sessionDate, timeRange or neither (the newest session the service holds prices for); aggregationPeriod as every aggregation endpoint (minute and hour buckets on the UTC clock, 1d a New York day, 1w a New York week from Monday). filter.ticker is required (alias tickers, a symbol or a one-element list); no other filter and no filterExpression.",
  kind: 'aggregation',
  views: [STOCK_PRICES_VIEW],
  requestSchema: tickerSeriesRequestSchema('Neither: the newest session with prices.'),
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: { data: { type: 'object', additionalProperties: BAR, description: 'Bucket start (epoch-ms string, ascending) -> bar.' } },
  },
  examples: {
    session: {
      summary: 'AAPL in 15-minute bars over one session',
      request: { filter: { ticker: 'AAPL' }, sessionDate: '2026-11-20', aggregationPeriod: '15m' },
      response: {
        data: {
          '1795185000000': { openPrice: 228.14, highPrice: 228.9, lowPrice: 227.86, closePrice: 228.71 },
          '1795185900000': { openPrice: 228.7, highPrice: 229.12, lowPrice: 228.4, closePrice: 228.95 },
        },
      },
    },
    window: {
      summary: 'SPY daily bars over a month (a timeRange; tickers as a one-element list)',
      request: { filter: { tickers: ['SPY'] }, timeRange: { startTime: '2026-10-20T00:00:00Z', endTime: '2026-11-20T00:00:00Z' }, aggregationPeriod: '1d' },
    },
    latest: { summary: 'The newest session, default period (5m)', request: { filter: { ticker: 'QQQ' } } },
  },

  cacheStamp: (ctx) => viewsStamp(ctx, [{ view: STOCK_PRICES_VIEW, partitions: MARKET_PARTITIONS }]),

  async handle(body, ctx) {
    const version = await ctx.views.version(STOCK_PRICES_VIEW);
    const prices = version === null ? null : new StockPrices(ctx.redis, ctx.keyPrefix, version);
    const req = await parseTickerSeries(
      body,
      async () => (version === null ? null : latestPriceSession(ctx, version)),
      async (ticker, first, last) => (prices ? prices.tickerSessions(ticker, first, last) : []),
    );
    if (version === null || !req.read.sessions.length) return { data: {} };
    const bars = await readPriceBars(ctx.redis, ctx.keyPrefix, version, req.read);
    const buckets = rollUp(
      req.period,
      bars,
      () => ({ bar: null as PriceBar | null }),
      (acc, b) => {
        acc.bar = mergeBar(acc.bar, b);
      },
    );
    return {
      data: orderedMap(
        buckets.map(([start, { bar }]) => [bucketKey(start), barJson(bar!)] as const),
        'epochMs',
      ),
    };
  },
};
