import { VOLATILITY_VIEW } from '../../../services/views/volatility';
import { SKEW_FILTERS, SURFACE_EXCLUSIVE, SURFACE_FIELDS } from '../../fields/volatility';
import { legGrid, type LegValue } from '../../views/volatility/exposure';
import type { EndpointDef } from '../../request/endpoint';
import { filterPredicate, parseFilterObject } from '../../request/filter-object';
import { requiredTicker } from '../../request/required-ticker';
import { parseTimeSelection } from '../../request/time-selectors';
import { VolatilityReader, legRow, priceUnavailable, volatilityStamp } from '../../views/volatility/reader';
import { surfaceFilterSchema, surfaceRequestSchema, surfaceResponseSchema } from '../../views/volatility/request';

const IV = { type: 'number', description: 'Implied volatility, fractional, solved from the quote midpoint (as term-structure).' };

/**
 * POST /options/tool/volatility-skew: the implied volatility of every priced contract of one
 * underlying at a quote snapshot, by expiration and strike, per leg. The IVs are term-structure's
 * (the same stored surface, the same legs); only the shape differs.
 */
export const volatilitySkew: EndpointDef = {
  path: '/options/tool/volatility-skew',
  summary: 'Implied volatility by expiration, strike and contract type at a quote snapshot.',
  description:
    "The volatility smile of one underlying at a quote snapshot: expiration -> strike -> {CALL: iv, PUT: iv}, fractional, with the snapshot's underlying price. The IVs are term-structure's: solved (Black-Scholes-Merton, configured rate and dividend yield) from the NBBO midpoint; a contract whose quote admits none (one-sided, crossed) is left out, and a leg left out omits its key. Filters: contractTypes, expirationDates | expirationDateRange. No matching contract gives `data` {} and `stockPrice` 0.0 (the vendor's rule for this endpoint); no snapshot, or one without an underlying price, is a 422 `underlying-price-unavailable` as on term-structure. Snapshot selection as term-structure's.",
  kind: 'aggregation',
  views: [VOLATILITY_VIEW],
  problems: ['UnderlyingPriceUnavailable'],
  cacheStamp: volatilityStamp,
  requestSchema: surfaceRequestSchema(surfaceFilterSchema({ contractTypes: true })),
  responseSchema: surfaceResponseSchema(
    'Underlying price of the snapshot, dollars; 0.0 when no contract matches.',
    'Expiration date (ascending) -> strike string (ascending) -> {CALL, PUT} implied volatility.',
    IV,
  ),
  examples: {
    session: { summary: 'SPY smile at the end of a session', request: { filter: { ticker: 'SPY' }, sessionDate: '2026-11-20' } },
    puts: {
      summary: 'SPY put skew of two months before an instant',
      request: {
        filter: { ticker: 'SPY', contractTypes: ['PUT'], expirationDateRange: { startDate: '2026-12-01', endDate: '2027-01-31' } },
        snapshotTime: '2026-11-20T18:00:00Z',
      },
    },
  },

  async handle(body, ctx) {
    const sel = parseTimeSelection(body, ['sessionDate', 'snapshotTime']);
    const filter = parseFilterObject(body.filter, SKEW_FILTERS, SURFACE_FIELDS, SURFACE_EXCLUSIVE);
    const ticker = requiredTicker(filter);
    const keep = filterPredicate(filter);
    const reader = await VolatilityReader.open(ctx);
    const ms = await reader.snapshot(ticker, sel);
    const s = ms === null ? null : await reader.surface(ticker, ms);
    if (!s || s.spot === null) throw priceUnavailable(ticker, sel, ms);
    const legs: LegValue[] = [];
    for (const l of s.legs) {
      const row = legRow(ticker, l, s.spot);
      if (row && keep(row)) legs.push({ expiration: l.expiration, strike: l.strike, right: l.right, value: row.impliedVolatility });
    }
    if (!legs.length) return { stockPrice: 0, data: {} };
    const data = legGrid(legs, 'CALL', 'PUT');
    return { stockPrice: s.spot, data };
  },
};
