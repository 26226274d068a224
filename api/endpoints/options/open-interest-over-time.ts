import { OPEN_INTEREST_VIEW, type ChainStrike } from '../../../services/views/open-interest';
import type { EndpointDef } from '../../request/endpoint';
import { OI_LOOKUP_FIELDS, OI_LOOKUP_FILTERS } from '../../fields/open-interest-lookup';
import { parseFilterObject } from '../../request/filter-object';
import { invalid } from '../../request/problem';
import { fragments } from '../../request/validate';
import { openInterestStamp, readAllChains, readExpirationChains, readTotals, tickerKeys } from '../../views/open-interest/read';
import { requiredTicker, tickerSchema } from '../../request/required-ticker';

type Totals = { callOpenInterest: number; putOpenInterest: number };

/** Adds one session's chain (narrowed to a strike when given) to the session's totals. */
function addChain(out: Map<string, Totals>, session: string, chain: readonly ChainStrike[], strike: number | undefined): void {
  let t = out.get(session);
  for (const c of chain) {
    if (strike !== undefined && c.strike !== strike) continue;
    t ??= { callOpenInterest: 0, putOpenInterest: 0 };
    t.callOpenInterest += c.call;
    t.putOpenInterest += c.put;
  }
  if (t) out.set(session, t);
}

export const openInterestOverTime: EndpointDef = {
  path: '/options/tool/open-interest-over-time',
  summary: "A ticker's call and put open interest in every session with data, oldest first.",
  description: [
    'Per session (ascending) the total call and put open interest of the ticker at the start of the session (the T+1 figure), over the whole history.',
    'filter.expirationDate narrows to one expiration, filter.strikePrice (dollars, positive) to one strike; a session in which nothing matches is left out.',
    'No time selector, expression, aggregation period, projection or paging is accepted: the answer is the whole history.',
  ].join(' '),
  kind: 'aggregation',
  views: [OPEN_INTEREST_VIEW],
  cacheStamp: openInterestStamp,
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['filter'],
    properties: {
      filter: {
        ...fragments.filter,
        properties: {
          ticker: tickerSchema(),
          expirationDate: { type: 'string', format: 'date', description: 'Only this expiration.' },
          strikePrice: { type: 'number', exclusiveMinimum: 0, description: 'Only this strike (dollars, positive).' },
        },
      },
    },
  },
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        description: 'Session date (yyyy-MM-dd, ascending) -> open interest in contracts.',
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          required: ['callOpenInterest', 'putOpenInterest'],
          properties: { callOpenInterest: { type: 'integer' }, putOpenInterest: { type: 'integer' } },
        },
      },
    },
  },
  examples: {
    ticker: {
      summary: 'SPY over the whole history',
      request: { filter: { ticker: 'SPY' } },
      response: {
        data: {
          '2026-01-02': { callOpenInterest: 9120450, putOpenInterest: 12877310 },
          '2026-01-05': { callOpenInterest: 9244180, putOpenInterest: 12790055 },
        },
      },
    },
    narrowed: {
      summary: 'One AAPL contract pair: an expiration and a strike',
      request: { filter: { ticker: 'AAPL', expirationDate: '2026-01-16', strikePrice: 220 } },
    },
  },

  async handle(body, ctx) {
    const f = OI_LOOKUP_FILTERS;
    const filter = parseFilterObject(body.filter, [f.ticker, f.expirationDate, f.strikePrice], OI_LOOKUP_FIELDS);
    const ticker = requiredTicker(filter);
    const expiration = (filter.values.get('expirationDate') as string[] | undefined)?.[0];
    const strike = (filter.values.get('strikePrice') as number[] | undefined)?.[0];
    if (strike !== undefined && !(strike > 0))
      throw invalid(`filter.${Object.keys(body.filter as object).find((key) => /strike/i.test(key))}`, 'must be a positive number of dollars');

    const k = await tickerKeys(ctx, ticker);
    const data: Record<string, Totals> = {};
    if (!k) return { data };
    let totals: Map<string, Totals>;
    if (expiration === undefined && strike === undefined) {
      // The per-session totals: one value per session, whatever the chain's size.
      totals = new Map([...(await readTotals(ctx, k, ticker))].map(([s, t]) => [s, { callOpenInterest: t.call, putOpenInterest: t.put }]));
    } else {
      totals = new Map();
      const chains = expiration !== undefined ? [await readExpirationChains(ctx, k, ticker, expiration)] : await readAllChains(ctx, k, ticker);
      for (const bySession of chains) for (const [s, chain] of bySession) addChain(totals, s, chain, strike);
    }
    for (const s of [...totals.keys()].sort()) data[s] = totals.get(s)!;
    return { data };
  },
};
