import type { EndpointDef } from '../request/endpoint';
import { newsArticles } from './news-articles';

/** Every mounted endpoint, under /v1. One module per endpoint. */
export const ENDPOINTS: readonly EndpointDef[] = [newsArticles];
