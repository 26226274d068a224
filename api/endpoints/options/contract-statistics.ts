import { UNCONSOLIDATED_FILTERS } from '../../fields/option-trade';
import { readFlowCells } from '../../views/flow-aggregates/reader';
import { dollars, flowEndpoint } from './flow-aggregation';

/**
 * POST /v1/options/tool/contract-statistics: per contract type, premium (dollars), prints and
 * contracts over the matching prints (vendor notes 3). A contract type without a matching print is
 * omitted. The same sums as contract-trade-side-statistics, folded over the trade sides: it reads
 * the cube's cells by contract type only (foldsBy), so with no other filter it reads the
 * partitions' net cells; a filter on a field a cell lacks scans the prints view.
 */

const LEG = {
  type: 'object',
  required: ['premium', 'tradeCount', 'volume'],
  additionalProperties: false,
  properties: {
    premium: { type: 'number', description: 'Premium in dollars.' },
    tradeCount: { type: 'integer', description: 'Prints.' },
    volume: { type: 'integer', description: 'Contracts.' },
  },
};

export const contractStatistics = flowEndpoint({
  path: '/options/tool/contract-statistics',
  summary: 'Premium, trade count and volume per contract type',
  description:
    'Sums over the matching prints (the unconsolidated tape) per contract type: premium (dollars), tradeCount (prints) and volume (contracts). A contract type without a matching print is omitted (`{}` when nothing matches). Equal to contract-trade-side-statistics summed over the trade sides, and to the unconsolidated tape’s `includeStatistics` for the same filter. Filters on ticker, sector, industry, contract type, trade side, sentiment, money type, strike, expiration and exchange (and a premiumRange on tier bounds with no other filter) are answered from the pre-aggregated cube; the others scan the matching prints.',
  filters: UNCONSOLIDATED_FILTERS,
  filterExtras: { osi: { type: ['string', 'null'], description: 'One contract: its 21-character OSI symbol.' } },
  expression: true,
  bucketed: false,
  foldsBy: ['CONTRACT_TYPE'],
  dataSchema: { type: 'object', additionalProperties: false, properties: { CALL: LEG, PUT: LEG } },
  examples: {
    all: { summary: 'The whole market, latest session', request: {} },
    large: {
      summary: 'Large trades of two tickers on one session (filterExpression)',
      request: { sessionDate: '2026-11-20', filter: { tickers: ['SPY', 'QQQ'] }, filterExpression: { field: 'premium', operation: '>=', value: 100000 } },
    },
    window: {
      summary: 'Ask-side technology trades in a window',
      request: {
        timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T16:00:00Z' },
        filter: { sector: 'technology', tradeSideCodes: ['A', 'AA'] },
      },
    },
  },
  async answer(req, ctx) {
    const cells = await readFlowCells(ctx.redis, ctx.keyPrefix, req.query, false, ctx.onPath);
    const sums = { CALL: { premium: 0, tradeCount: 0, volume: 0 }, PUT: { premium: 0, tradeCount: 0, volume: 0 } };
    for (const c of cells) {
      const s = sums[c.contractType];
      s.premium += c.premiumCents;
      s.tradeCount += c.tradeCount;
      s.volume += c.volume;
    }
    const data: Record<string, { premium: number; tradeCount: number; volume: number }> = {};
    for (const ct of ['CALL', 'PUT'] as const) {
      const s = sums[ct];
      if (s.tradeCount > 0) data[ct] = { premium: dollars(s.premium), tradeCount: s.tradeCount, volume: s.volume };
    }
    return { data };
  },
});
