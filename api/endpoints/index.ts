import type { EndpointDef } from '../request/endpoint';
import { newsArticles } from './news-articles';
import { orderFlowConsolidated } from './order-flow-consolidated';
import { orderFlowUnconsolidated } from './order-flow-unconsolidated';

/** Every mounted endpoint, under /v1. One module per endpoint. */
export const ENDPOINTS: readonly EndpointDef[] = [orderFlowConsolidated, orderFlowUnconsolidated, newsArticles];
