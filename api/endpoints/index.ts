import type { EndpointDef } from '../request/endpoint';
import { newsArticles } from './news/news-articles';
import { contractTradeSideStatistics } from './options/contract-trade-side-statistics';
import { gainersLosers } from './options/gainers-losers';
import { marketShare } from './options/market-share';
import { netDrift } from './options/net-drift';
import { netFlow } from './options/net-flow';
import { optionPriceOverTime } from './options/option-price-over-time';
import { orderFlowConsolidated } from './options/order-flow-consolidated';
import { orderFlowUnconsolidated } from './options/order-flow-unconsolidated';

/** Every mounted endpoint, under /v1. One module per endpoint. */
export const ENDPOINTS: readonly EndpointDef[] = [
  orderFlowConsolidated,
  orderFlowUnconsolidated,
  newsArticles,
  contractTradeSideStatistics,
  marketShare,
  gainersLosers,
  netFlow,
  netDrift,
  optionPriceOverTime,
];
