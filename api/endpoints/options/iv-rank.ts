import { toDayNumber } from '../../../services/domain/calendar';
import type { IvIndexEntry } from '../../../services/views/volatility';
import { VOLATILITY_VIEW } from '../../../services/views/volatility';
import { SURFACE_FIELDS } from '../../fields/volatility';
import { orderedMap } from '../../request/aggregation/ordered-map';
import type { EndpointDef } from '../../request/endpoint';
import { parseFilterObject, type FilterParam } from '../../request/filter-object';
import { VolatilityReader, volatilityStamp } from '../../views/volatility/reader';
import { requiredTicker } from '../../request/required-ticker';
import { TICKER_FILTER } from '../../request/required-ticker';

type Leg = 'CALL' | 'PUT';
const FILTERS: FilterParam[] = [TICKER_FILTER, { key: 'contractTypes', aliases: ['contractType'], kind: 'in', field: 'CONTRACT_TYPE' }];

interface SessionIv {
  expirationDate: string;
  stockPrice: number;
  iv: Partial<Record<Leg, number>>;
}

/**
 * The expiration a session samples for a maturity target: among the expirations with `days`
 * calendar days to go within 50 % either side of the target (and an IV on a requested leg), the
 * one nearest the target, the earlier on a tie.
 */
export function sampleExpiration(
  date: string,
  entry: IvIndexEntry,
  maturity: number,
  legs: readonly Leg[],
  dayOf: (d: string) => number = toDayNumber,
): SessionIv | null {
  const day = dayOf(date);
  let best: { exp: string; dist: number; call: number | null; put: number | null } | null = null;
  for (const [exp, call, put] of entry.e) {
    const dte = dayOf(exp) - day;
    if (dte < maturity * 0.5 || dte > maturity * 1.5) continue;
    if (!legs.some((l) => (l === 'CALL' ? call : put) !== null)) continue;
    const dist = Math.abs(dte - maturity);
    if (best === null || dist < best.dist) best = { exp, dist, call, put };
  }
  if (best === null) return null;
  const iv: Partial<Record<Leg, number>> = {};
  if (legs.includes('CALL') && best.call !== null) iv.CALL = best.call;
  if (legs.includes('PUT') && best.put !== null) iv.PUT = best.put;
  return { expirationDate: best.exp, stockPrice: entry.p, iv };
}

const IV_DATA = {
  type: 'object',
  required: ['lastIv', 'windowMaxIv', 'windowMinIv'],
  additionalProperties: false,
  properties: { lastIv: { type: 'number' }, windowMaxIv: { type: 'number' }, windowMinIv: { type: 'number' } },
};

/**
 * POST /options/tool/iv-rank: a constant-maturity at-the-money IV per session with its trailing
 * window's high and low. Reads one compact record per session (services/views/volatility.ts ivx),
 * never the surfaces.
 */
export const ivRank: EndpointDef = {
  path: '/options/tool/iv-rank',
  summary: 'At-the-money IV per session against its trailing look-back window.',
  description:
    "For each of the latest `lookBackPeriod` sessions: the IV of the sampled expiration (the one nearest `maturity` days out, within 50 % either side of it) at the session's last quote snapshot (its end-of-day snapshot once closed). A leg's IV is that of the contract whose strike is nearest the session's close (the lower strike on a tie), solved from the quote midpoint. `windowMaxIv` and `windowMinIv` are the highest and lowest IV of that leg over the `lookBackPeriod` sessions ending at the session (fewer at the start of the history). Sessions without an expiration in the band are left out. Rank = (lastIv - windowMinIv) / (windowMaxIv - windowMinIv), computed by the caller.",
  kind: 'aggregation',
  views: [VOLATILITY_VIEW],
  cacheStamp: volatilityStamp,
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['filter', 'lookBackPeriod', 'maturity'],
    properties: {
      filter: {
        type: 'object',
        description: 'ticker (required) and contractTypes (default both legs).',
        properties: {
          ticker: { type: ['string', 'array'], items: { type: 'string' }, description: 'Underlying ticker. Required.' },
          contractTypes: { type: ['string', 'array'], items: { type: 'string' }, description: 'CALL and/or PUT (alias contractType).' },
        },
      },
      lookBackPeriod: { type: 'integer', minimum: 1, maximum: 365, description: 'Sessions in the response and in each trailing window, 1-365.' },
      maturity: { type: 'integer', minimum: 1, maximum: 365, description: 'Target days to expiration, 1-365; expirations within 50 % either side qualify.' },
    },
  },
  responseSchema: {
    type: 'object',
    required: ['expirationDates', 'data'],
    additionalProperties: false,
    properties: {
      expirationDates: { type: 'array', items: { type: 'string', format: 'date' }, description: 'The expirations sampled, ascending.' },
      data: {
        type: 'object',
        description: 'Session date (ascending) -> {contractTypeToIVData, expirationDate, stockPrice}.',
        additionalProperties: {
          type: 'object',
          required: ['contractTypeToIVData', 'expirationDate', 'stockPrice'],
          additionalProperties: false,
          properties: {
            contractTypeToIVData: { type: 'object', additionalProperties: false, properties: { CALL: IV_DATA, PUT: IV_DATA } },
            expirationDate: { type: 'string', format: 'date' },
            stockPrice: { type: 'number', description: 'Underlying at the session close (at its last snapshot while open).' },
          },
        },
      },
    },
  },
  examples: {
    year: { summary: 'SPY 30-day IV against its year', request: { filter: { ticker: 'SPY' }, lookBackPeriod: 365, maturity: 30 } },
    puts: {
      summary: 'AAPL put IV, 60 days out, over a quarter',
      request: { filter: { ticker: 'AAPL', contractTypes: ['PUT'] }, lookBackPeriod: 63, maturity: 60 },
    },
  },

  async handle(body, ctx) {
    const filter = parseFilterObject(body.filter, FILTERS, SURFACE_FIELDS);
    const ticker = requiredTicker(filter);
    const legs = (filter.values.get('contractTypes') as Leg[] | undefined) ?? ['CALL', 'PUT'];
    const lookBack = body.lookBackPeriod as number;
    const maturity = body.maturity as number;
    const index = await (await VolatilityReader.open(ctx)).ivIndex(ticker);
    // Expirations recur across sessions: each date is converted once (toDayNumber costs microseconds).
    const days = new Map<string, number>();
    const dayOf = (d: string) => days.get(d) ?? days.set(d, toDayNumber(d)).get(d)!;
    const series = index.map(([date, entry]) => sampleExpiration(date, entry, maturity, legs, dayOf));
    const data: [string, unknown][] = [];
    const expirations = new Set<string>();
    for (let i = Math.max(0, index.length - lookBack); i < index.length; i++) {
      const s = series[i];
      if (!s) continue;
      const byLeg: Partial<Record<Leg, { lastIv: number; windowMaxIv: number; windowMinIv: number }>> = {};
      for (const leg of (['CALL', 'PUT'] as const).filter((l) => s.iv[l] !== undefined)) {
        let hi = -Infinity;
        let lo = Infinity;
        for (let j = Math.max(0, i - lookBack + 1); j <= i; j++) {
          const v = series[j]?.iv[leg];
          if (v === undefined) continue;
          hi = Math.max(hi, v);
          lo = Math.min(lo, v);
        }
        byLeg[leg] = { lastIv: s.iv[leg]!, windowMaxIv: hi, windowMinIv: lo };
      }
      expirations.add(s.expirationDate);
      data.push([index[i][0], { contractTypeToIVData: byLeg, expirationDate: s.expirationDate, stockPrice: s.stockPrice }]);
    }
    return { expirationDates: [...expirations].sort(), data: orderedMap(data, 'date') };
  },
};
