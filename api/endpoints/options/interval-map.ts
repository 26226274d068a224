import { sessionDateOf } from '../../../services/domain/calendar';
import type { GreekMode } from '../../../services/domain/volatility';
import { VOLATILITY_VIEW } from '../../../services/views/volatility';
import { SURFACE_FIELDS, type SurfaceLegRow } from '../../fields/volatility';
import { bucketKey, bucketStart } from '../../request/aggregation/buckets';
import { orderedMap } from '../../request/aggregation/ordered-map';
import { aggregationPeriodSchema, parseAggregationPeriod } from '../../request/aggregation/period';
import type { EndpointDef } from '../../request/endpoint';
import { show } from '../../request/fields';
import { filterPredicate, parseFilterObject, type FilterParam } from '../../request/filter-object';
import { normalizeName } from '../../request/names';
import { invalid } from '../../request/problem';
import { parseTimeSelection, selectionSpanMs, selectorSchemas } from '../../request/time-selectors';
import { legGrid, surfaceExposures } from '../../views/volatility/exposure';
import { VolatilityReader, dayEndMs, dayStartMs, volatilityStamp } from '../../views/volatility/reader';
import { greekModeSchema } from '../../views/volatility/request';
import { requiredTicker } from '../../request/required-ticker';
import { TICKER_FILTER } from '../../request/required-ticker';

const FILTERS: FilterParam[] = [TICKER_FILTER, { key: 'expirationDate', kind: 'eq', field: 'EXPIRATION_DATE' }];
const STRIKE_BOUNDS = ['minStrikePrice', 'maxStrikePrice'] as const;

/** min/maxStrikePrice: positive dollars, min not above max; the rest of the filter goes to the shared parser. */
function splitStrikeBounds(raw: unknown): { rest: unknown; min: number | null; max: number | null } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { rest: raw, min: null, max: null };
  const rest: Record<string, unknown> = {};
  const b: Record<string, number | null> = { minStrikePrice: null, maxStrikePrice: null };
  for (const [k, v] of Object.entries(raw)) {
    const name = STRIKE_BOUNDS.find((n) => normalizeName(n) === normalizeName(k));
    if (!name) {
      rest[k] = v;
      continue;
    }
    if (v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw invalid(`filter.${k}`, `must be a positive number of dollars, got ${show(v)}`);
    b[name] = v;
  }
  if (b.minStrikePrice !== null && b.maxStrikePrice !== null && b.minStrikePrice > b.maxStrikePrice)
    throw invalid('filter.maxStrikePrice', 'must not be below filter.minStrikePrice');
  return { rest, min: b.minStrikePrice, max: b.maxStrikePrice };
}

/**
 * POST /options/tool/interval-map: the exposure by expiration and strike through a session. A
 * bucket shows the RAW exposure (open interest x greek x 100) at its last quote snapshot, so it
 * equals exposure-by-strike (RAW) at that snapshot.
 */
export const intervalMap: EndpointDef = {
  path: '/options/tool/interval-map',
  summary: 'Greek exposure by expiration and strike per time bucket.',
  description:
    "Bucket start (epoch-ms, ascending) -> expiration -> strike -> CALL/PUT -> exposure. A bucket holds the RAW exposure (open interest x greek x 100, the greek's sign) at the last quote snapshot inside it, i.e. what exposure-by-strike answers with representationMode RAW and a snapshotTime just after that snapshot. Buckets without a priced snapshot and cells without exposure are omitted. Time: sessionDate, timeRange or neither (the session of the latest snapshot); aggregationPeriod as the aggregation kit allows for the span.",
  kind: 'aggregation',
  views: [VOLATILITY_VIEW],
  cacheStamp: volatilityStamp,
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['filter', 'greekMode'],
    properties: {
      filter: {
        type: 'object',
        description: 'ticker (required), expirationDate, minStrikePrice, maxStrikePrice (positive dollars).',
        properties: {
          ticker: { type: ['string', 'array'], items: { type: 'string' }, description: 'Underlying ticker. Required.' },
          expirationDate: { type: 'string', format: 'date' },
          minStrikePrice: { type: ['number', 'null'] },
          maxStrikePrice: { type: ['number', 'null'] },
        },
      },
      greekMode: greekModeSchema,
      aggregationPeriod: aggregationPeriodSchema,
      ...selectorSchemas(['sessionDate', 'timeRange'], 'Default: the session of the latest snapshot.'),
    },
  },
  responseSchema: {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      data: {
        type: 'object',
        description: 'Bucket start (epoch-ms string) -> expiration -> strike string -> {CALL, PUT} exposure.',
        additionalProperties: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: { type: 'object', additionalProperties: false, properties: { CALL: { type: 'number' }, PUT: { type: 'number' } } },
          },
        },
      },
    },
  },
  examples: {
    session: {
      summary: 'SPY gamma through a session in 30-minute buckets',
      request: { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', sessionDate: '2026-11-20', aggregationPeriod: '30m' },
    },
    strikes: {
      summary: 'SPY delta of one expiration, strikes 580-620, over a window',
      request: {
        filter: { ticker: 'SPY', expirationDate: '2026-12-18', minStrikePrice: 580, maxStrikePrice: 620 },
        greekMode: 'DELTA',
        timeRange: { startTime: '2026-11-20T14:30:00Z', endTime: '2026-11-20T21:00:00Z' },
      },
    },
  },

  async handle(body, ctx) {
    const sel = parseTimeSelection(body, ['sessionDate', 'timeRange']);
    const period = parseAggregationPeriod(body.aggregationPeriod, selectionSpanMs(sel));
    const { rest, min, max } = splitStrikeBounds(body.filter);
    const filter = parseFilterObject(rest, FILTERS, SURFACE_FIELDS);
    const ticker = requiredTicker(filter);
    const byFilter = filterPredicate(filter);
    const keep = (r: SurfaceLegRow) => byFilter(r) && (min === null || r.strikePrice >= min) && (max === null || r.strikePrice <= max);
    const greek = body.greekMode as GreekMode;
    const reader = await VolatilityReader.open(ctx);

    let from: number;
    let to: number;
    if (sel.kind === 'window') [from, to] = [sel.window.startMs, sel.window.endMs];
    else {
      const date = sel.kind === 'session' ? sel.sessionDate : await reader.latestSnapshot(ticker).then((ms) => (ms === null ? null : sessionDateOf(ms)));
      if (date === null) return { data: {} };
      [from, to] = [dayStartMs(date), dayEndMs(date)];
    }
    // The last snapshot of each bucket.
    const last = new Map<number, number>();
    for (const ms of await reader.snapshotsIn(ticker, from, to)) last.set(bucketStart(period, ms), ms);
    const oiBySession = new Map<string, Map<string, number>>();
    const buckets: [string, Record<string, Record<string, { CALL?: number; PUT?: number }>>][] = [];
    // Every bucket's surface in one round trip; of each, objects only for the priced legs with open
    // interest (the others have no exposure): building every contract's leg was most of the CPU.
    const stored = await reader.storedSurfaces(ticker, [...last.values()]);
    for (const [i, [start, ms]] of [...last].entries()) {
      const date = sessionDateOf(ms);
      let oi = oiBySession.get(date);
      if (!oi) oiBySession.set(date, (oi = await reader.openInterest(ticker, date)));
      const held = oi;
      const s = reader.pricedLegs(stored[i], ms, (osi) => (held.get(osi) ?? 0) > 0);
      const spot = s.spot;
      if (spot === null) continue;
      const cells = legGrid(
        (function* () {
          for (const e of surfaceExposures(ticker, s.legs, spot, oi, greek, 'RAW', keep))
            yield { expiration: e.expiration, strike: e.strike, right: e.right, value: e.exposure };
        })(),
        'CALL',
        'PUT',
      );
      if (!Object.keys(cells).length) continue;
      buckets.push([bucketKey(start), cells]);
    }
    return { data: orderedMap(buckets, 'epochMs') };
  },
};
