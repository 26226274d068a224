import { VOLATILITY_VIEW } from '../../../services/views/volatility';
import { EXPOSURE_BY_EXPIRATION_FILTERS } from '../../fields/volatility';
import type { EndpointDef } from '../../request/endpoint';
import { expirationTotals } from '../../views/volatility/exposure';
import { exposureAnswer } from '../../views/volatility/exposure-answer';
import { volatilityStamp } from '../../views/volatility/reader';
import { exposureRequestSchema, exposureResponseSchema, surfaceFilterSchema } from '../../views/volatility/request';

/**
 * POST /options/tool/exposure-by-expiration: exposure-by-strike's legs (open interest x greek x
 * 100, x the move) summed per expiration over its strikes, in exposure-by-strike's wire shape: each
 * expiration holds one strike entry, keyed by the contributing strike nearest the snapshot price
 * (api/views/volatility/exposure.ts expirationTotals).
 */
export const exposureByExpiration: EndpointDef = {
  path: '/options/tool/exposure-by-expiration',
  summary: 'Greek exposure (open interest x greek x 100 x move) summed per expiration at a quote snapshot.',
  description:
    "Per ticker, expiration -> one strike key -> {callExposure, putExposure} at a quote snapshot, with the snapshot's underlying price: each leg's exposure is exposure-by-strike's (open interest of the session x greek x 100, x S for PER_ONE_DOLLAR_MOVE, x S x 0.01 S for PER_ONE_PERCENT_MOVE) and the expiration's entry holds their sum over its strikes, keyed by the strike nearest the snapshot price among those that contributed (the lower on a tie). A leg type with no contributing contract omits its field; an expiration without any is absent. Filters as exposure-by-strike's except moneyTypes (not accepted). Snapshot selection as in term-structure; a snapshot without an underlying price is a 422.",
  kind: 'aggregation',
  views: [VOLATILITY_VIEW],
  problems: ['UnderlyingPriceUnavailable'],
  cacheStamp: volatilityStamp,
  requestSchema: exposureRequestSchema(surfaceFilterSchema({ strikes: true })),
  responseSchema: exposureResponseSchema(
    "Expiration date (ascending) -> strike (the one strike key of the expiration: the contributing strike nearest the snapshot price) -> {callExposure, putExposure}, each the sum over the expiration's strikes; a leg type without exposure omits its field.",
  ),
  examples: {
    gamma: {
      summary: 'SPY gamma exposure per 1 % move per expiration at the end of a session',
      request: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'PER_ONE_PERCENT_MOVE', sessionDate: '2026-11-20' },
    },
    delta: {
      summary: 'SPY raw delta exposure per expiration of two months, strikes 550-650, calls only',
      request: {
        filter: { ticker: 'SPY', expirationDateRange: { startDate: '2026-12-01', endDate: '2027-01-31' }, strikePriceRange: { min: 550, max: 650 } },
        greekMode: 'DELTA',
        representationMode: 'RAW',
        filterExpression: { field: 'CONTRACT_TYPE', operation: 'EQ', value: 'CALL' },
      },
    },
  },

  handle: (body, ctx) => exposureAnswer(body, ctx, EXPOSURE_BY_EXPIRATION_FILTERS, expirationTotals),
};
