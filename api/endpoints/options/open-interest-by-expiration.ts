import { OPEN_INTEREST_VIEW } from '../../../services/views/open-interest';
import type { EndpointDef } from '../../request/endpoint';
import { invalid } from '../../request/problem';
import { openInterestStamp, readSessionChains, readSessionSummary } from '../../views/open-interest/read';
import { oiSessionRequestSchema, oiSessionToRead, parseOiSessionRequest } from '../../views/open-interest/session-request';

type Totals = { callOpenInterest: number; putOpenInterest: number };

export const OI_TOTALS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['callOpenInterest', 'putOpenInterest'],
  properties: {
    callOpenInterest: { type: 'integer', description: 'Call open interest (contracts).' },
    putOpenInterest: { type: 'integer', description: 'Put open interest (contracts).' },
  },
};

export const openInterestByExpiration: EndpointDef = {
  path: '/options/tool/open-interest-by-expiration',
  summary: "A ticker's call and put open interest per expiration in one session.",
  description: [
    'Per expiration listed in the session (ascending), the total call and put open interest of the ticker at the start of the session (the T+1 figure).',
    'filter.strikePrice (dollars, positive) narrows to one strike: an expiration that does not list it is left out.',
    'An expiration whose contracts all have 0 open interest is listed with zeros.',
    'Default session: the latest whose open interest is published (before the open, the prior session); a session without open interest gives empty data.',
  ].join(' '),
  kind: 'aggregation',
  views: [OPEN_INTEREST_VIEW],
  cacheStamp: openInterestStamp,
  requestSchema: oiSessionRequestSchema({
    strikePrice: { type: 'number', exclusiveMinimum: 0, description: 'Only this strike (dollars, positive).' },
  }),
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: { type: 'object', description: 'Expiration (yyyy-MM-dd, ascending) -> open interest in contracts.', additionalProperties: OI_TOTALS_SCHEMA },
    },
  },
  examples: {
    latest: {
      summary: 'SPY per expiration, latest published session',
      request: { filter: { ticker: 'SPY' } },
      response: {
        data: {
          '2026-01-09': { callOpenInterest: 1812400, putOpenInterest: 2420115 },
          '2026-01-16': { callOpenInterest: 3120450, putOpenInterest: 4077310 },
        },
      },
    },
    strike: { summary: 'AAPL at one strike, a given session', request: { sessionDate: '2026-01-05', filter: { ticker: 'AAPL', strikePrice: 220 } } },
  },

  async handle(body, ctx) {
    const req = parseOiSessionRequest(body, ['strikePrice']);
    const strike = (req.filter.values.get('strikePrice') as number[] | undefined)?.[0];
    if (strike !== undefined && !(strike > 0))
      throw invalid(`filter.${Object.keys(body.filter as object).find((key) => /strike/i.test(key))}`, 'must be a positive number of dollars');

    const data: Record<string, Totals> = {};
    const at = await oiSessionToRead(ctx, req);
    if (!at) return { data };
    const { k, session } = at;
    const ticker = req.ticker;
    // The stored summaries answer the ticker-wide question; a strike reads the session's chains.
    const summaries = (await readSessionSummary(ctx, k, ticker, session)).expirations;
    if (strike === undefined) {
      for (const e of summaries) data[e.expiration] = { callOpenInterest: e.call, putOpenInterest: e.put };
      return { data };
    }
    const chains = await readSessionChains(
      ctx,
      k,
      ticker,
      session,
      summaries.map((e) => e.expiration),
    );
    for (const [exp, chain] of chains) {
      const cell = chain.find((c) => c.strike === strike);
      if (cell) data[exp] = { callOpenInterest: cell.call, putOpenInterest: cell.put };
    }
    return { data };
  },
};
