import { VOLATILITY_VIEW } from '../../../services/views/volatility';
import { DELTA_RANGE_FILTER, SURFACE_EXCLUSIVE, SURFACE_FIELDS, SURFACE_FILTERS } from '../../fields/volatility';
import { orderedMap, strikeKey } from '../../request/aggregation/ordered-map';
import type { EndpointDef } from '../../request/endpoint';
import { filterPredicate, parseFilterObject } from '../../request/filter-object';
import { parseTimeSelection } from '../../request/time-selectors';
import { surfaceFilterSchema, surfaceRequestSchema, surfaceResponseSchema } from '../../views/volatility/request';
import { requiredTicker } from '../../request/required-ticker';
import { VolatilityReader, legRow, priceUnavailable, volatilityStamp } from '../../views/volatility/reader';

interface LegPoint {
  delta: number;
  iv: number;
  moneyType: string;
}

const LEG_SCHEMA = {
  type: 'object',
  required: ['delta', 'iv', 'moneyType'],
  additionalProperties: false,
  properties: {
    delta: { type: 'number', description: 'Black-Scholes-Merton delta (calls 0 to 1, puts -1 to 0).' },
    iv: { type: 'number', description: 'Implied volatility, fractional, solved from the quote midpoint.' },
    moneyType: { enum: ['ATM', 'ITM', 'OTM'] },
  },
};

/**
 * POST /options/tool/term-structure: the IV and delta of every contract of one underlying at a
 * quote snapshot. Contracts whose quote admits no IV (one-sided, crossed, outside the no-arbitrage
 * bounds) are left out; a snapshot without an underlying price is a 422.
 */
export const termStructure: EndpointDef = {
  path: '/options/tool/term-structure',
  summary: 'Implied volatility and delta by expiration and strike at a quote snapshot.',
  description:
    'The volatility surface of one underlying at a quote snapshot: expiration -> strike -> CALL/PUT -> {delta, iv, moneyType}. IV is solved (Black-Scholes-Merton, configured rate and dividend yield) from the NBBO midpoint; a one-sided or crossed quote has none and is left out. `sessionDate` takes the last snapshot of that session (its end-of-day snapshot once closed), `snapshotTime` the last snapshot strictly before the instant, neither the latest snapshot held. No matching contract gives empty `data` with `stockPrice`; no underlying price for the snapshot is a 422 `underlying-price-unavailable`.',
  kind: 'aggregation',
  views: [VOLATILITY_VIEW],
  cacheStamp: volatilityStamp,
  problems: ['UnderlyingPriceUnavailable'],
  requestSchema: surfaceRequestSchema(surfaceFilterSchema(true)),
  responseSchema: surfaceResponseSchema(
    'Underlying price of the snapshot, dollars.',
    'Expiration date (ascending) -> strike string (ascending) -> CALL/PUT -> leg.',
    LEG_SCHEMA,
  ),
  examples: {
    session: { summary: 'SPY at the end of a session', request: { filter: { ticker: 'SPY' }, sessionDate: '2026-11-20' } },
    deltaBand: {
      summary: 'SPY contracts with delta 0.3 to 0.7 before an instant',
      request: { filter: { ticker: 'SPY', deltaRange: { min: 0.3, max: 0.7 }, moneyTypes: ['OTM', 'ATM'] }, snapshotTime: '2026-11-20T18:00:00Z' },
    },
  },

  async handle(body, ctx) {
    const sel = parseTimeSelection(body, ['sessionDate', 'snapshotTime']);
    const filter = parseFilterObject(body.filter, [...SURFACE_FILTERS, DELTA_RANGE_FILTER], SURFACE_FIELDS, SURFACE_EXCLUSIVE);
    const ticker = requiredTicker(filter);
    const keep = filterPredicate(filter);
    const reader = await VolatilityReader.open(ctx);
    const ms = await reader.snapshot(ticker, sel);
    const s = ms === null ? null : await reader.surface(ticker, ms);
    if (!s || s.spot === null) throw priceUnavailable(ticker, sel, ms);
    const byExp = new Map<string, Map<string, { CALL?: LegPoint; PUT?: LegPoint }>>();
    for (const l of s.legs) {
      const row = legRow(ticker, l, s.spot);
      if (!row || !keep(row)) continue;
      let strikes = byExp.get(l.expiration);
      if (!strikes) byExp.set(l.expiration, (strikes = new Map()));
      const k = strikeKey(l.strike);
      const cell = strikes.get(k) ?? {};
      cell[l.right] = { delta: row.delta, iv: row.impliedVolatility, moneyType: row.moneyType };
      strikes.set(k, cell);
    }
    const data = orderedMap(
      [...byExp].map(
        ([exp, strikes]) =>
          [
            exp,
            orderedMap(
              [...strikes].map(([k, c]) => [k, { ...(c.CALL && { CALL: c.CALL }), ...(c.PUT && { PUT: c.PUT }) }]),
              'decimal',
            ),
          ] as const,
      ),
      'date',
    );
    return { stockPrice: s.spot, data };
  },
};
