import type { FilterParam } from '../../request/filter-object';
import { OPTION_TRADE_FILTERS } from '../../fields/option-trade';
import { orderedMap } from '../../request/aggregation/ordered-map';
import { readFlowCells } from '../../views/flow-aggregates/reader';
import { TYPE_AND_SIDE, dollars, flowEndpoint } from './flow-aggregation';

/**
 * POST /v1/options/tool/gainers-losers: per underlying (alphabetical), bullish and bearish premium
 * (the enrichment's sentiment: calls bought or puts sold are bullish, puts bought or calls sold
 * bearish, mid-market neutral), total premium over every print, neutral ones included (vendor
 * notes 2.15), bearish / bullish (0 when bullish is 0), prints and contracts.
 */

const KEYS = ['tickers', 'sectors', 'industries', 'expirationDates', 'expirationDateRange'];
const FILTERS: FilterParam[] = [...OPTION_TRADE_FILTERS.filter((f) => KEYS.includes(f.key)), { key: 'dteRange', kind: 'range', field: 'DTE' }];
const FIELDS = ['bullishPremium', 'bearishPremium', 'premium', 'premiumRatio', 'tradeCount', 'volume'] as const;

export const gainersLosers = flowEndpoint({
  path: '/options/tool/gainers-losers',
  summary: 'Bullish and bearish premium per ticker',
  description:
    'Per underlying (alphabetical): bullishPremium and bearishPremium (dollars; sentiment as on the tapes: calls bought or puts sold are bullish, puts bought or calls sold bearish, mid-market neutral), premium over every matching print (neutral included, so it can exceed bullish + bearish), premiumRatio = bearishPremium / bullishPremium (0 when bullishPremium is 0), tradeCount (prints) and volume (contracts). Filters on tickers, sectors, industries and expirations are answered from the cube; dteRange, or a filterExpression over a per-print field such as DTE, scans the prints.',
  filters: FILTERS,
  filterExtras: {
    dteRange: {
      type: 'object',
      additionalProperties: false,
      properties: { min: { type: ['number', 'null'] }, max: { type: ['number', 'null'] } },
      description: 'Days to expiration {min, max}, inclusive.',
    },
  },
  expression: true,
  bucketed: false,
  // Sentiment is a function of type and side; sector and industry filters are per ticker.
  foldsBy: ['TICKER', ...TYPE_AND_SIDE],
  dataSchema: {
    type: 'object',
    description: 'Ticker -> premium, trade count and volume of its matching prints.',
    additionalProperties: {
      type: 'object',
      required: [...FIELDS],
      additionalProperties: false,
      properties: Object.fromEntries(FIELDS.map((f) => [f, { type: f === 'tradeCount' || f === 'volume' ? 'integer' : 'number' }])),
    },
  },
  examples: {
    all: { summary: 'Every ticker, latest session', request: {} },
    tech: {
      summary: 'Technology names, short-dated contracts',
      request: { sessionDate: '2026-11-20', filter: { sectors: ['Technology'], dteRange: { min: 0, max: 7 } } },
    },
    expression: {
      summary: 'Two tickers by expression',
      request: {
        filterExpression: {
          conjunction: 'OR',
          filters: [
            { field: 'ticker', operation: '=', value: 'SPY' },
            { field: 'TICKER', operation: 'EQUALS', value: 'AAPL' },
          ],
        },
      },
    },
  },
  async answer(req, ctx) {
    const cells = await readFlowCells(ctx.redis, ctx.keyPrefix, req.query, false, ctx.onPath);
    const by = new Map<string, { bull: number; bear: number; all: number; n: number; v: number }>();
    for (const c of cells) {
      let s = by.get(c.ticker);
      if (!s) by.set(c.ticker, (s = { bull: 0, bear: 0, all: 0, n: 0, v: 0 }));
      if (c.sentimentType === 'BULLISH') s.bull += c.premiumCents;
      else if (c.sentimentType === 'BEARISH') s.bear += c.premiumCents;
      s.all += c.premiumCents;
      s.n += c.tradeCount;
      s.v += c.volume;
    }
    const rows = [...by].map(
      ([t, s]) =>
        [
          t,
          {
            bullishPremium: dollars(s.bull),
            bearishPremium: dollars(s.bear),
            premium: dollars(s.all),
            premiumRatio: s.bull === 0 ? 0 : s.bear / s.bull,
            tradeCount: s.n,
            volume: s.v,
          },
        ] as const,
    );
    return { data: orderedMap(rows, 'text') };
  },
});
