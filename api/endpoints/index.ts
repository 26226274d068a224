import type { EndpointDef } from '../request/endpoint';
import { darkFlow } from './equities/dark-flow';
import { darkPoolLevels } from './equities/dark-pool-levels';
import { equityPrints } from './equities/equity-prints';
import { exchangeNotifications } from './equities/exchange-notifications';
import { marketMap } from './equities/market-map';
import { stockPriceOverTime } from './equities/stock-price-over-time';
import { newsArticles } from './news/news-articles';
import { maxPainEndpoint } from './options/max-pain';
import { openInterestChange } from './options/open-interest-change';
import { openInterestOverTime } from './options/open-interest-over-time';
import { openInterestByExpiration } from './options/open-interest-by-expiration';
import { openInterestByStrike } from './options/open-interest-by-strike';
import { maxPainOverTime } from './options/max-pain-over-time';
import { contractTradeSideStatistics } from './options/contract-trade-side-statistics';
import { contractStatistics } from './options/contract-statistics';
import { volatilityDrift } from './options/volatility-drift';
import { gainersLosers } from './options/gainers-losers';
import { marketShare } from './options/market-share';
import { netDrift } from './options/net-drift';
import { netFlow } from './options/net-flow';
import { optionPriceOverTime } from './options/option-price-over-time';
import { orderFlowConsolidated } from './options/order-flow-consolidated';
import { orderFlowUnconsolidated } from './options/order-flow-unconsolidated';
import { exposureByStrike } from './options/exposure-by-strike';
import { intervalMap } from './options/interval-map';
import { ivRank } from './options/iv-rank';
import { termStructure } from './options/term-structure';
import { exposureByExpiration } from './options/exposure-by-expiration';
import { heatMap } from './options/heat-map';
import { volatilitySkew } from './options/volatility-skew';

/** Every mounted endpoint, under /v1. One module per endpoint. */
export const ENDPOINTS: readonly EndpointDef[] = [
  orderFlowConsolidated,
  orderFlowUnconsolidated,
  newsArticles,
  openInterestChange,
  openInterestOverTime,
  maxPainEndpoint,
  openInterestByExpiration,
  openInterestByStrike,
  maxPainOverTime,
  exchangeNotifications,
  equityPrints,
  darkPoolLevels,
  marketMap,
  darkFlow,
  stockPriceOverTime,
  ivRank,
  termStructure,
  exposureByStrike,
  intervalMap,
  exposureByExpiration,
  volatilitySkew,
  heatMap,
  contractTradeSideStatistics,
  contractStatistics,
  marketShare,
  gainersLosers,
  netFlow,
  netDrift,
  optionPriceOverTime,
  volatilityDrift,
];
