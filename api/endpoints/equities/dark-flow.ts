import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { addTotals, darkFlowSessionsSuffix, zeroTotals } from '../../../services/views/equities/dark-flow';
import { DARK_POOL_LEVELS_VIEW } from '../../../services/views/equities/dark-pool-levels';
import { EQUITY_PRINTS_VIEW } from '../../../services/views/equities/equity-prints';
import { mergeBar, type PriceBar } from '../../../services/views/equities/price-bars';
import { STOCK_PRICES_VIEW } from '../../../services/views/equities/stock-prices';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import { bucketKey, rollUp } from '../../request/aggregation/buckets';
import { orderedMap } from '../../request/aggregation/ordered-map';
import type { EndpointDef } from '../../request/endpoint';
import { viewSegments } from '../../tables/view-state';
import { StockPrices } from '../../views/equities/stock-prices';
import { sessionDateOf } from '../../../services/domain/calendar';
import { readDarkFlow, readPriceBars } from '../../views/equities/minute-cells';
import { viewsStamp } from '../../views/views-stamp';
import { parseTickerSeries, tickerSeriesRequestSchema } from './ticker-series';

const CELL = {
  type: 'object',
  additionalProperties: false,
  required: ['notionalValue', 'size', 'tradeCount'],
  properties: {
    notionalValue: { type: 'number', description: 'Dollars traded off-exchange in the bucket (price x shares, summed).' },
    size: { type: 'integer', description: 'Shares.' },
    stockPrice: {
      type: 'number',
      description: "The underlying's last price event in the bucket (within the window), dollars; absent when the bucket has none.",
    },
    tradeCount: { type: 'integer', description: 'Off-exchange prints.' },
  },
};

/**
 * POST /v1/equities/tool/dark-flow: off-exchange (DARK_POOL) notional, shares and prints of one
 * ticker per time bucket, with the underlying's price at the bucket's close. Read from the dark-flow
 * minute and session cells the dark-pool level projection keeps (services/views/equities/dark-flow.ts)
 * and the stock-price view's bars; a window bound that cuts a minute reads the equity-print tape.
 */
export const darkFlow: EndpointDef = {
  path: '/equities/tool/dark-flow',
  summary: 'Off-exchange (dark pool) notional, shares and prints of one ticker per time bucket.',
  description:
    "Bucket start (epoch-ms string, ascending) -> {notionalValue (dollars), size (shares), stockPrice, tradeCount} over the ticker's DARK_POOL prints (off-exchange: FINRA TRFs and ADF, as equity-prints' printType and dark-pool-levels) of the equity-print tape, bucketed by trade time. Only sessions with tick data have a tape: the history sample that dark-pool-levels totals is not counted here. stockPrice is the underlying's last price event in the bucket (its close in stock-price-over-time for the same request), absent when the bucket has none. Buckets without a dark print are omitted. Time: sessionDate, timeRange or neither (the newest session of the equity-print tape); aggregationPeriod as every aggregation endpoint. filter.ticker is required (alias tickers, a symbol or a one-element list); no other filter and no filterExpression.",
  kind: 'aggregation',
  views: [DARK_POOL_LEVELS_VIEW, STOCK_PRICES_VIEW, EQUITY_PRINTS_VIEW],
  requestSchema: tickerSeriesRequestSchema('Neither: the newest session of the equity-print tape.'),
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: { data: { type: 'object', additionalProperties: CELL, description: 'Bucket start (epoch-ms string, ascending) -> totals.' } },
  },
  examples: {
    session: {
      summary: 'SPY dark flow in 15-minute buckets over one session',
      request: { filter: { ticker: 'SPY' }, sessionDate: '2026-11-20', aggregationPeriod: '15m' },
      response: {
        data: {
          '1795185000000': { notionalValue: 48213377.5412, size: 80412, stockPrice: 600.12, tradeCount: 1290 },
          '1795185900000': { notionalValue: 21870045.12, size: 36448, stockPrice: 600.47, tradeCount: 702 },
        },
      },
    },
    window: {
      summary: 'AAPL hourly over a window (tickers as a one-element list)',
      request: { filter: { tickers: ['AAPL'] }, timeRange: { startTime: '2026-11-19T14:30:00Z', endTime: '2026-11-20T21:00:00Z' }, aggregationPeriod: '1h' },
    },
    latest: { summary: 'The newest session, default period (5m)', request: { filter: { ticker: 'NVDA' } } },
  },

  cacheStamp: (ctx) =>
    viewsStamp(ctx, [
      { view: DARK_POOL_LEVELS_VIEW, partitions: MARKET_PARTITIONS },
      { view: STOCK_PRICES_VIEW, partitions: MARKET_PARTITIONS },
      { view: EQUITY_PRINTS_VIEW, partitions: MARKET_PARTITIONS },
    ]),

  async handle(body, ctx) {
    const [levels, prices, tape] = await Promise.all([
      ctx.views.version(DARK_POOL_LEVELS_VIEW),
      ctx.views.version(STOCK_PRICES_VIEW),
      ctx.views.version(EQUITY_PRINTS_VIEW),
    ]);
    const req = await parseTickerSeries(
      body,
      async () => {
        if (tape === null) return null;
        const segs = await ctx.views.list(`${EQUITY_PRINTS_VIEW}:${tape}:segments`, () => viewSegments(ctx.redis, ctx.keyPrefix, EQUITY_PRINTS_VIEW, tape));
        return segs.length ? segs[segs.length - 1] : null;
      },
      async (ticker, first, last) => {
        if (levels === null) return [];
        const k = new PartitionKeys(ctx.keyPrefix, DARK_POOL_LEVELS_VIEW, levels, partitionOf(ticker, MARKET_PARTITIONS));
        return ctx.redis.zrange(k.key(...darkFlowSessionsSuffix(ticker)), `[${first}`, `[${last}`, 'BYLEX');
      },
    );
    if (levels === null || !req.read.sessions.length) return { data: {} };
    // The prices of a window's sessions with prices (a week bucket's close may fall on a session
    // without a dark print); a session selection reads its own.
    const w = req.read.window;
    const priceSessions =
      prices === null
        ? []
        : w === null
          ? req.read.sessions
          : await new StockPrices(ctx.redis, ctx.keyPrefix, prices).tickerSessions(req.read.ticker, sessionDateOf(w.startMs), sessionDateOf(w.endMs - 1));
    const [flows, bars] = await Promise.all([
      readDarkFlow(ctx.redis, ctx.keyPrefix, { levels, tape }, req.read),
      prices === null ? Promise.resolve([]) : readPriceBars(ctx.redis, ctx.keyPrefix, prices, { ...req.read, sessions: priceSessions }),
    ]);
    const buckets = rollUp(req.period, flows, zeroTotals, addTotals);
    const closes = new Map(
      rollUp(
        req.period,
        bars,
        () => ({ bar: null as PriceBar | null }),
        (acc, b) => {
          acc.bar = mergeBar(acc.bar, b);
        },
      ).map(([start, { bar }]) => [start, bar!.close]),
    );
    return {
      data: orderedMap(
        buckets.map(([start, t]) => {
          const stockPrice = closes.get(start);
          return [
            bucketKey(start),
            { notionalValue: t.notionalUnits / 10_000, size: t.size, ...(stockPrice !== undefined && { stockPrice }), tradeCount: t.tradeCount },
          ] as const;
        }),
        'epochMs',
      ),
    };
  },
};
