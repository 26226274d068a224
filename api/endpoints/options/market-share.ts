import { UNCONSOLIDATED_FILTERS } from '../../fields/option-trade';
import { orderedMap } from '../../request/aggregation/ordered-map';
import { readFlowCells } from '../../views/flow-aggregates/reader';
import { dollars, flowEndpoint } from './flow-aggregation';

/**
 * POST /v1/options/tool/market-share: per exchange, premium, prints and contracts of equity calls,
 * equity puts and index options (an ETF's options count as equity). An exchange with a matching
 * print reports all nine fields, zeros included (vendor notes 2.18); others are omitted.
 */

const FIELDS = [
  'equityCallPremium',
  'equityCallTradeCount',
  'equityCallVolume',
  'equityPutPremium',
  'equityPutTradeCount',
  'equityPutVolume',
  'indexPremium',
  'indexTradeCount',
  'indexVolume',
] as const;
type Share = Record<(typeof FIELDS)[number], number>;

export const marketShare = flowEndpoint({
  path: '/options/tool/market-share',
  summary: 'Premium, trade count and volume by exchange',
  description:
    'Per options exchange (alphabetical): premium (dollars), prints and contracts of equity calls, equity puts and index options over the matching prints. ETF options count as equity. An exchange with at least one matching print has all nine fields, zeros included; exchanges without one are omitted. Cube-served and scanning filters as for contract-trade-side-statistics.',
  filters: UNCONSOLIDATED_FILTERS,
  filterExtras: { osi: { type: ['string', 'null'], description: 'One contract: its 21-character OSI symbol.' } },
  expression: true,
  bucketed: false,
  foldsBy: ['EXCHANGE', 'IS_INDEX', 'CONTRACT_TYPE'],
  dataSchema: {
    type: 'object',
    description: 'Exchange (alphabetical) -> premium, prints and contracts of its matching prints.',
    additionalProperties: {
      type: 'object',
      required: [...FIELDS],
      additionalProperties: false,
      properties: Object.fromEntries(FIELDS.map((f) => [f, { type: f.endsWith('Premium') ? 'number' : 'integer' }])),
    },
  },
  examples: {
    all: { summary: 'The whole market, latest session', request: {} },
    calls: {
      summary: 'Two tickers on one session, ask side only',
      request: { sessionDate: '2026-11-20', filter: { tickers: ['SPY', 'QQQ'], tradeSideCodes: ['A', 'AA'] } },
    },
  },
  async answer(req, ctx) {
    const cells = await readFlowCells(ctx.redis, ctx.keyPrefix, req.query, false, ctx.onPath);
    const by = new Map<string, Share>();
    for (const c of cells) {
      let s = by.get(c.exchange);
      if (!s) by.set(c.exchange, (s = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Share));
      const leg = c.isIndex ? 'index' : c.contractType === 'CALL' ? 'equityCall' : 'equityPut';
      s[`${leg}Premium`] += c.premiumCents;
      s[`${leg}TradeCount`] += c.tradeCount;
      s[`${leg}Volume`] += c.volume;
    }
    for (const s of by.values()) for (const f of FIELDS) if (f.endsWith('Premium')) s[f] = dollars(s[f]);
    return { data: orderedMap(by, 'text') };
  },
});
