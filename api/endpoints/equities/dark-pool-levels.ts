import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import {
  DARK_POOL_LEVELS_VIEW,
  addLevels,
  levelSessionsSuffix,
  sampleLevelsSuffix,
  tapeLevelsSuffix,
  type LevelTotals,
} from '../../../services/views/equities/dark-pool-levels';
import { STOCK_PRICES_VIEW } from '../../../services/views/equities/stock-prices';
import { PartitionKeys } from '../../../services/views/keys';
import { orderedMapJson, priceLevelKey } from '../../request/aggregation/ordered-map';
import type { EndpointContext, EndpointDef } from '../../request/endpoint';
import { parseTickerOnlyFilter, tickerOnlyFilterSchema } from '../../request/required-ticker';
import { Problem } from '../../request/problem';
import { parseSessionDateRange, selectorSchemas, tomorrowInNewYork } from '../../request/time-selectors';
import { StockPrices } from '../../views/equities/stock-prices';
import { viewsStamp } from '../../views/views-stamp';

/** Seconds a client waits before retrying a failed levels read. */
const LEVELS_RETRY_AFTER_S = 2;

const CELL = {
  type: 'object',
  additionalProperties: false,
  required: ['notionalValue', 'size', 'tradeCount'],
  properties: {
    notionalValue: { type: 'number', description: 'Dollars traded off-exchange at the level over the range.' },
    size: { type: 'integer', description: 'Shares.' },
    tradeCount: { type: 'integer', description: 'Prints.' },
  },
};

/** Level totals over the sessions: each session from its tape, or from its history sample when it has no tape. */
async function readLevels(ctx: EndpointContext, ticker: string, start: string, end: string): Promise<Map<number, LevelTotals>> {
  const version = await ctx.views.version(DARK_POOL_LEVELS_VIEW);
  if (version === null) throw new Error('the dark-pool levels view is not built');
  const k = new PartitionKeys(ctx.keyPrefix, DARK_POOL_LEVELS_VIEW, version, partitionOf(ticker, MARKET_PARTITIONS));
  const sessions = await ctx.redis.zrange(k.key(...levelSessionsSuffix(ticker)), `[${start}`, `[${end}`, 'BYLEX');
  const out = new Map<number, LevelTotals>();
  if (!sessions.length) return out;
  const tables = await ctx.redis.mgetBuffer(...sessions.flatMap((d) => [k.key(...tapeLevelsSuffix(d, ticker)), k.key(...sampleLevelsSuffix(d, ticker))]));
  for (let i = 0; i < tables.length; i += 2) {
    const table = tables[i]?.length ? tables[i] : tables[i + 1];
    if (table) addLevels(out, table);
  }
  return out;
}

/** The handler's answer: the levels ascending by cents, written as JSON by `serialize`. */
interface LevelsAnswer {
  latestStockPrice: number;
  levels: [cents: number, totals: LevelTotals][];
}

const cellJson = (t: LevelTotals) => `{"notionalValue":${JSON.stringify(t.notionalUnits / 10_000)},"size":${t.size},"tradeCount":${t.tradeCount}}`;

/**
 * POST /v1/equities/tool/dark-pool-levels: off-exchange volume by price level for one ticker over
 * a range of sessions, totalled at read time from per-session levels.
 */
export const darkPoolLevels: EndpointDef = {
  path: '/equities/tool/dark-pool-levels',
  summary: 'Off-exchange (dark pool) notional, shares and prints by price level over a range of sessions.',
  description:
    'Totals of the DARK_POOL prints of one ticker per price level over sessionDateRange (both dates inclusive; endDate defaults to tomorrow in New York). A level is the print price truncated to the cent (key with two decimals, e.g. "210.37"); levels come out ascending. latestStockPrice is the latest price the service holds for the ticker at request time. Sessions with tick data total their whole tape; older sessions total the history sample (the off-exchange prints reported in the first minute of each half hour). No stock price for the ticker in the range: 422 StockPriceNotFound. A failed levels read: 500 LevelsUnavailable with Retry-After.',
  kind: 'aggregation',
  views: [DARK_POOL_LEVELS_VIEW, STOCK_PRICES_VIEW],
  problems: ['StockPriceNotFound', 'LevelsUnavailable'],
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['filter', 'sessionDateRange'],
    properties: {
      filter: tickerOnlyFilterSchema('The ticker (alias tickers; required).'),
      ...selectorSchemas(['sessionDateRange']),
    },
  },
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['latestStockPrice', 'data'],
    properties: {
      latestStockPrice: { type: 'number', description: 'The latest price of the ticker at request time, dollars.' },
      data: { type: 'object', additionalProperties: CELL, description: 'Price level ("210.37", ascending) -> totals over the range.' },
    },
  },
  examples: {
    month: {
      summary: 'SPY levels over a month of sessions',
      request: { filter: { ticker: 'SPY' }, sessionDateRange: { startDate: '2024-04-01', endDate: '2024-04-30' } },
      response: {
        latestStockPrice: 505.12,
        data: {
          '501.37': { notionalValue: 2506850.5, size: 5000, tradeCount: 12 },
          '501.38': { notionalValue: 150414, size: 300, tradeCount: 2 },
        },
      },
    },
    toTomorrow: {
      summary: 'From a date to now (endDate defaults to tomorrow in New York)',
      request: { filter: { ticker: 'AAPL' }, sessionDateRange: { startDate: '2024-05-01' } },
    },
  },

  // Same body, same views, same New York day (endDate's default): the same answer.
  cacheStamp: async (ctx) => {
    const stamp = await viewsStamp(ctx, [
      { view: DARK_POOL_LEVELS_VIEW, partitions: MARKET_PARTITIONS },
      { view: STOCK_PRICES_VIEW, partitions: MARKET_PARTITIONS },
    ]);
    return stamp === null ? null : `${tomorrowInNewYork(Date.now())}/${stamp}`;
  },

  // Written directly: a month of levels is thousands of keys (LevelsAnswer).
  serialize: (result) => {
    const { latestStockPrice, levels } = result as LevelsAnswer;
    const data = orderedMapJson(
      levels.map(([cents, t]) => [priceLevelKey(cents / 100), t] as const),
      'decimal',
      cellJson,
    );
    return `{"latestStockPrice":${JSON.stringify(latestStockPrice)},"data":${data}}`;
  },

  async handle(body, ctx) {
    const ticker = parseTickerOnlyFilter(body.filter);
    const range = parseSessionDateRange(body.sessionDateRange, Date.now());
    const pricesVersion = await ctx.views.version(STOCK_PRICES_VIEW);
    const prices = pricesVersion === null ? null : new StockPrices(ctx.redis, ctx.keyPrefix, pricesVersion);
    const priced = prices ? await prices.tickerSessions(ticker, range.startDate, range.endDate) : [];
    const latest = prices && priced.length ? await prices.latest(ticker) : null;
    if (!latest) throw new Problem('StockPriceNotFound', `No stock price for ${ticker} in sessions ${range.startDate} to ${range.endDate}.`);
    let levels: Map<number, LevelTotals>;
    try {
      levels = await readLevels(ctx, ticker, range.startDate, range.endDate);
    } catch {
      throw new Problem('LevelsUnavailable', `The dark-pool levels of ${ticker} could not be read; retry in ${LEVELS_RETRY_AFTER_S} s.`, {
        headers: { 'Retry-After': String(LEVELS_RETRY_AFTER_S) },
      });
    }
    const answer: LevelsAnswer = { latestStockPrice: latest.price, levels: [...levels].sort((a, b) => a[0] - b[0]) };
    return answer;
  },
};
