import { ORDER_FLOW_PRINTS_VIEW } from '../../../services/views/order-flow';
import type { EndpointDef } from '../../request/endpoint';
import { UNCONSOLIDATED_FIELDS, UNCONSOLIDATED_FILTERS } from '../../fields/option-trade';
import { COMMON_EXAMPLES, ROW_PROPERTIES, filterSchema, orderFlowTape, tapeResponse } from './order-flow-tape';

const MAX_SIZE = 1000;

export const UNCONSOLIDATED_RESPONSE = tapeResponse('One print (spec "Unconsolidated option trade row"). Fields dropped by includes/excludes are absent.', {
  ...ROW_PROPERTIES,
  id: { type: 'string', format: 'uuid' },
  osi: { type: 'string', minLength: 21, maxLength: 21 },
});

export const orderFlowUnconsolidated: EndpointDef = orderFlowTape({
  path: '/options/tool/order-flow/unconsolidated',
  summary: 'The option tape: every print with its derived fields, cursor-paged.',
  description:
    'One row per option print, newest first by default. Sort by any filterable field in either direction (ties ordered by row); filter with the option-trade filter set, sizeRange, the open-interest flags and `osi` (one contract), or a filterExpression over any filterable field (greeks by member: DELTA, GAMMA, ...; moneyness by MONEY_TYPE, DEGREE, DEGREE_IN_PERCENT). `includeStatistics` adds per contract type and trade side totals on the first page. Page with `searchAfter` = the previous `nextSearchAfter`; its absence marks the last page.',
  view: ORDER_FLOW_PRINTS_VIEW,
  fields: UNCONSOLIDATED_FIELDS,
  filters: UNCONSOLIDATED_FILTERS,
  filterSchema: filterSchema({ osi: { type: ['string', 'null'], description: 'One contract: its 21-character OSI symbol, e.g. "SPY   261218C00450000".' } }),
  maxSize: MAX_SIZE,
  rowSchema: UNCONSOLIDATED_RESPONSE.row,
  examples: {
    ...COMMON_EXAMPLES,
    contract: {
      summary: 'One contract’s tape, oldest first, 1,000 rows a page',
      request: { size: 1000, sort: { field: 'tradeTime', direction: 'ASCENDING' }, filter: { osi: 'SPY   261218C00450000' } },
    },
  },
});
