import { flowAggregatesProjection } from './flow-aggregates/projection';
import { newsProjection } from './news/projection';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from './order-flow/projections';
import type { Projection } from './runtime/projection';

/** Every view family this codebase projects; `npm run projector` runs them all by default. */
export const PROJECTIONS: readonly Projection[] = [newsProjection, orderFlowPrintsProjection, orderFlowConsolidatedProjection, flowAggregatesProjection];

export function projectionByView(view: string): Projection | undefined {
  return PROJECTIONS.find((p) => p.view === view);
}
