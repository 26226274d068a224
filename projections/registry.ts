import { newsProjection } from './news/projection';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from './order-flow/projections';
import type { Projection } from './runtime/projection';
import { volatilityViewProjection } from './volatility/projection';

/** Every view family this codebase projects; `npm run projector` runs them all by default. */
export const PROJECTIONS: readonly Projection[] = [newsProjection, orderFlowPrintsProjection, orderFlowConsolidatedProjection, volatilityViewProjection];

export function projectionByView(view: string): Projection | undefined {
  return PROJECTIONS.find((p) => p.view === view);
}
