import type { EndpointDef } from '../request/endpoint';
import { newsArticles } from './news/news-articles';
import { orderFlowConsolidated } from './options/order-flow-consolidated';
import { orderFlowUnconsolidated } from './options/order-flow-unconsolidated';
import { exposureByStrike } from './options/exposure-by-strike';
import { intervalMap } from './options/interval-map';
import { ivRank } from './options/iv-rank';
import { termStructure } from './options/term-structure';

/** Every mounted endpoint, under /v1. One module per endpoint. */
export const ENDPOINTS: readonly EndpointDef[] = [
  orderFlowConsolidated,
  orderFlowUnconsolidated,
  newsArticles,
  ivRank,
  termStructure,
  exposureByStrike,
  intervalMap,
];
