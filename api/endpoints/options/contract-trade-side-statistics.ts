import { TRADE_SIDES } from '../../../services/domain/order-flow';
import { UNCONSOLIDATED_FILTERS } from '../../fields/option-trade';
import { readFlowCells } from '../../views/flow-aggregates/reader';
import { TYPE_AND_SIDE, dollars, flowEndpoint } from './flow-aggregation';

/**
 * POST /v1/options/tool/contract-trade-side-statistics: contractType -> trade side -> the selected
 * mode's sum (premium in dollars, prints, or contracts) over the matching prints. Combinations
 * without prints are omitted. Served from whole-session cells of the cube; a filter on a field a
 * cell lacks scans the prints view.
 */

const MODES = { PREMIUM: 'premium', TRADE_COUNT: 'tradeCount', VOLUME: 'volume' } as const;
type Mode = keyof typeof MODES;

const cellSchema = (field: string, type: string, description: string) => ({
  type: 'object',
  additionalProperties: false,
  properties: { [field]: { type, description } },
  description: "Only the selected mode's field: premium (PREMIUM), tradeCount (TRADE_COUNT) or volume (VOLUME).",
});
const SIDE_MAP = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(
    TRADE_SIDES.map((s) => [
      s,
      {
        oneOf: [cellSchema('premium', 'number', 'dollars'), cellSchema('tradeCount', 'integer', 'prints'), cellSchema('volume', 'integer', 'contracts')],
      },
    ]),
  ),
};

export const contractTradeSideStatistics = flowEndpoint({
  path: '/options/tool/contract-trade-side-statistics',
  summary: 'Premium, trade count or volume per contract type and trade side',
  description:
    'Sums over the matching prints (the unconsolidated tape) per contract type and trade side (long names). `dataMode` selects the one field each cell carries. Combinations without prints are omitted. Filters on ticker, sector, industry, contract type, trade side, sentiment, money type, strike, expiration and exchange are answered from the pre-aggregated cube; the others (premiumRange, volumeRange, sizeRange, tradeTypes, osi, the is* flags, or a filterExpression over such a field) scan the matching prints.',
  filters: UNCONSOLIDATED_FILTERS,
  filterExtras: { osi: { type: ['string', 'null'], description: 'One contract: its 21-character OSI symbol.' } },
  expression: true,
  bucketed: false,
  foldsBy: TYPE_AND_SIDE,
  required: ['dataMode'],
  extras: { dataMode: { enum: Object.keys(MODES), description: 'PREMIUM (dollars), TRADE_COUNT (prints) or VOLUME (contracts).' } },
  dataSchema: { type: 'object', additionalProperties: false, properties: { CALL: SIDE_MAP, PUT: SIDE_MAP } },
  examples: {
    premium: { summary: 'Premium by side for two tickers, latest session', request: { dataMode: 'PREMIUM', filter: { tickers: ['SPY', 'AAPL'] } } },
    count: {
      summary: 'Trade counts of large technology trades on one session',
      request: { dataMode: 'TRADE_COUNT', sessionDate: '2026-11-20', filter: { sector: 'technology', premiumRange: { min: 50000, max: null } } },
    },
    volume: { summary: 'Contracts by side, puts only, whole market', request: { dataMode: 'VOLUME', filter: { contractType: 'PUT' } } },
  },
  async answer(req, ctx) {
    const field = MODES[req.body.dataMode as Mode];
    const cells = await readFlowCells(ctx.redis, ctx.keyPrefix, req.query, false, ctx.onPath);
    const sums = new Map<string, { premium: number; tradeCount: number; volume: number }>();
    for (const c of cells) {
      const key = `${c.contractType}|${c.tradeSideCode}`;
      const s = sums.get(key) ?? { premium: 0, tradeCount: 0, volume: 0 };
      s.premium += c.premiumCents;
      s.tradeCount += c.tradeCount;
      s.volume += c.volume;
      sums.set(key, s);
    }
    const data: Record<string, Record<string, Record<string, number>>> = {};
    for (const ct of ['CALL', 'PUT']) {
      for (const side of TRADE_SIDES) {
        const s = sums.get(`${ct}|${side}`);
        if (!s || s.tradeCount === 0) continue;
        (data[ct] ??= {})[side] = { [field]: field === 'premium' ? dollars(s.premium) : s[field] };
      }
    }
    return { data };
  },
});
