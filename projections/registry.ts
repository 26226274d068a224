import { darkPoolLevelsProjection } from './equities/dark-pool-levels';
import { equityPrintsProjection } from './equities/equity-prints';
import { instrumentsProjection } from './equities/instruments';
import { stockPricesProjection } from './equities/stock-prices';
import { exchangeNotificationsProjection } from './equities/exchange-notifications';
import { flowAggregatesProjection } from './flow-aggregates/projection';
import { newsProjection } from './news/projection';
import { openInterestProjection } from './open-interest/projection';
import { orderFlowConsolidatedProjection, orderFlowPrintsProjection } from './order-flow/projections';
import type { Projection } from './runtime/projection';
import { volatilityViewProjection } from './volatility/projection';

/** Every view family this codebase projects; `npm run projector` runs them all by default. */
export const PROJECTIONS: readonly Projection[] = [
  newsProjection,
  orderFlowPrintsProjection,
  orderFlowConsolidatedProjection,
  exchangeNotificationsProjection,
  equityPrintsProjection,
  darkPoolLevelsProjection,
  stockPricesProjection,
  instrumentsProjection,
  openInterestProjection,
  volatilityViewProjection,
  flowAggregatesProjection,
];

export function projectionByView(view: string): Projection | undefined {
  return PROJECTIONS.find((p) => p.view === view);
}
