import { ORDER_FLOW_CONSOLIDATED_VIEW } from '../../../services/views/order-flow';
import type { EndpointDef } from '../../request/endpoint';
import { CONSOLIDATED_FIELDS, CONSOLIDATED_FILTERS } from '../../fields/option-trade';
import { COMMON_EXAMPLES, CONSOLIDATED_ONLY_PROPERTIES, ROW_PROPERTIES, answer, filterSchema, tapeStamp, requestSchema, tapeResponse } from './order-flow-tape';

const MAX_SIZE = 100;

export const CONSOLIDATED_RESPONSE = tapeResponse(
  'One consolidated trade (spec "Consolidated option trade row"). Fields dropped by includes/excludes are absent.',
  {
    ...ROW_PROPERTIES,
    ...CONSOLIDATED_ONLY_PROPERTIES,
  },
);

const PROJECTABLE = CONSOLIDATED_FIELDS.fields.filter((f) => f.projectable).map((f) => f.name);

export const orderFlowConsolidated: EndpointDef = {
  path: '/options/tool/order-flow/consolidated',
  summary: 'Consolidated option flow: sweeps, blocks, splits and single prints, cursor-paged.',
  description:
    "One row per consolidated trade (SWEEP across exchanges, SPLIT on one exchange, BLOCK of 100+ contracts, SINGLE otherwise; golden sweeps are buying sweeps of $1M or more), newest first by default. Sort by any filterable field in either direction (ties ordered by row); filter with the option-trade filter set, sizeRange, the open-interest flags, tradeConsolidationTypes and isGoldenSweep, or a filterExpression. `includeComprisingTrades` nests each trade's prints; `includeStatistics` adds per contract type and trade side totals on the first page.",
  kind: 'table',
  views: [ORDER_FLOW_CONSOLIDATED_VIEW],
  requestSchema: requestSchema(
    MAX_SIZE,
    filterSchema({
      tradeConsolidationTypes: {
        type: ['string', 'array'],
        items: { type: 'string' },
        description: 'SWEEP, BLOCK, SPLIT, SINGLE (alias tradeConsolidationType).',
      },
      isGoldenSweep: { type: ['boolean', 'null'] },
    }),
    { includeComprisingTrades: { type: 'boolean', default: false, description: 'Nest the prints of each trade as comprisingTrades.' } },
    PROJECTABLE,
  ),
  responseSchema: CONSOLIDATED_RESPONSE.schema,
  serialize: CONSOLIDATED_RESPONSE.serialize,
  examples: {
    ...COMMON_EXAMPLES,
    goldenSweeps: { summary: 'Golden sweeps with their prints', request: { filter: { isGoldenSweep: true }, includeComprisingTrades: true, size: 10 } },
  },
  cacheStamp: (ctx) => tapeStamp(ORDER_FLOW_CONSOLIDATED_VIEW, ctx),
  handle: (body, ctx) =>
    answer({ view: ORDER_FLOW_CONSOLIDATED_VIEW, fields: CONSOLIDATED_FIELDS, filters: CONSOLIDATED_FILTERS, maxSize: MAX_SIZE, comprising: true }, body, ctx),
};
