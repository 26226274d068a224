import { ORDER_FLOW_CONSOLIDATED_VIEW } from '../../../services/views/order-flow';
import type { EndpointDef } from '../../request/endpoint';
import { CONSOLIDATED_FIELDS, CONSOLIDATED_FILTERS } from '../../fields/option-trade';
import { COMMON_EXAMPLES, CONSOLIDATED_ONLY_PROPERTIES, ROW_PROPERTIES, filterSchema, orderFlowTape, tapeResponse } from './order-flow-tape';

const MAX_SIZE = 100;

export const CONSOLIDATED_RESPONSE = tapeResponse(
  'One consolidated trade (spec "Consolidated option trade row"). Fields dropped by includes/excludes are absent.',
  {
    ...ROW_PROPERTIES,
    ...CONSOLIDATED_ONLY_PROPERTIES,
  },
);

export const orderFlowConsolidated: EndpointDef = orderFlowTape({
  path: '/options/tool/order-flow/consolidated',
  summary: 'Consolidated option flow: sweeps, blocks, splits and single prints, cursor-paged.',
  description:
    "One row per consolidated trade (SWEEP across exchanges, SPLIT on one exchange, BLOCK of one print of 100+ contracts; a lone print below 100 contracts is no consolidated trade and appears only on the unconsolidated tape; golden sweeps are buying sweeps of $1M or more), newest first by default. Sort by any filterable field in either direction (ties ordered by row); filter with the option-trade filter set, sizeRange, the open-interest flags, tradeConsolidationTypes and isGoldenSweep, or a filterExpression. `includeComprisingTrades` nests each trade's prints; `includeStatistics` adds per contract type and trade side totals on the first page.",
  view: ORDER_FLOW_CONSOLIDATED_VIEW,
  fields: CONSOLIDATED_FIELDS,
  filters: CONSOLIDATED_FILTERS,
  filterSchema: filterSchema({
    tradeConsolidationTypes: {
      type: ['string', 'array'],
      items: { type: 'string' },
      description: 'SWEEP, SPLIT, BLOCK (alias tradeConsolidationType).',
    },
    isGoldenSweep: { type: ['boolean', 'null'] },
  }),
  maxSize: MAX_SIZE,
  rowSchema: CONSOLIDATED_RESPONSE.row,
  examples: {
    ...COMMON_EXAMPLES,
    goldenSweeps: { summary: 'Golden sweeps with their prints', request: { filter: { isGoldenSweep: true }, includeComprisingTrades: true, size: 10 } },
  },
  comprising: true,
});
