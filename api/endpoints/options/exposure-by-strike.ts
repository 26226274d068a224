import { VOLATILITY_VIEW } from '../../../services/views/volatility';
import { SURFACE_FILTERS } from '../../fields/volatility';
import type { EndpointDef } from '../../request/endpoint';
import { exposureAnswer } from '../../views/volatility/exposure-answer';
import { volatilityStamp } from '../../views/volatility/reader';
import { exposureRequestSchema, exposureResponseSchema, surfaceFilterSchema } from '../../views/volatility/request';

/**
 * POST /options/tool/exposure-by-strike: open interest x greek x 100 (x the move) per leg at a
 * quote snapshot, for each ticker asked for (services/domain/volatility.ts legExposure).
 */
export const exposureByStrike: EndpointDef = {
  path: '/options/tool/exposure-by-strike',
  summary: 'Greek exposure (open interest x greek x 100 x move) by expiration and strike at a quote snapshot.',
  description:
    "Per ticker, expiration -> strike -> {callExposure, putExposure} at a quote snapshot, with the snapshot's underlying price. Exposure = open interest of the session x greek x 100 for RAW, x S for PER_ONE_DOLLAR_MOVE, x S x 0.01 S for PER_ONE_PERCENT_MOVE. The sign is the greek's own: call delta positive and put delta negative (long calls and short puts positive). A leg without open interest or without IV (a one-sided or crossed quote) omits its field. Snapshot selection as in term-structure; a snapshot without an underlying price is a 422.",
  kind: 'aggregation',
  views: [VOLATILITY_VIEW],
  cacheStamp: volatilityStamp,
  problems: ['UnderlyingPriceUnavailable'],
  requestSchema: exposureRequestSchema(surfaceFilterSchema(false)),
  responseSchema: exposureResponseSchema(
    'Expiration date (ascending) -> strike string (ascending) -> {callExposure, putExposure}; a leg without exposure omits its field.',
  ),
  examples: {
    gamma: {
      summary: 'SPY gamma exposure per 1 % move at the end of a session',
      request: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'PER_ONE_PERCENT_MOVE', sessionDate: '2026-11-20' },
    },
    delta: {
      summary: 'SPY raw delta exposure of one expiration, strikes 550-650, with an expression',
      request: {
        filter: { ticker: 'SPY', expirationDate: '2026-12-18', strikePriceRange: { min: 550, max: 650 } },
        greekMode: 'DELTA',
        representationMode: 'RAW',
        filterExpression: { field: 'MONEY_TYPE', operation: 'NEQ', value: 'ITM' },
      },
    },
  },

  handle: (body, ctx) => exposureAnswer(body, ctx, SURFACE_FILTERS, (exposures) => exposures),
};
