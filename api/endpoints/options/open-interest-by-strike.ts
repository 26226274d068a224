import { strikeKey } from '../../../services/domain/max-pain';
import { OPEN_INTEREST_VIEW, type ChainStrike } from '../../../services/views/open-interest';
import type { EndpointDef } from '../../request/endpoint';
import { openInterestStamp, readSessionChains, readSessionSummary } from '../../views/open-interest/read';
import { oiSessionRequestSchema, oiSessionToRead, parseOiSessionRequest } from '../../views/open-interest/session-request';
import { OI_TOTALS_SCHEMA } from './open-interest-by-expiration';

export const openInterestByStrike: EndpointDef = {
  path: '/options/tool/open-interest-by-strike',
  summary: "A ticker's call and put open interest per strike in one session.",
  description: [
    'Per strike listed in the session (ascending, keys in dollars with one decimal at least: "215.0", "212.5"), the call and put open interest of the ticker',
    'at the start of the session (the T+1 figure), summed over every expiration; filter.expirationDate narrows to one expiration.',
    'A strike whose contracts all have 0 open interest is listed with zeros.',
    'Default session: the latest whose open interest is published (before the open, the prior session); a session without open interest gives empty data.',
  ].join(' '),
  kind: 'aggregation',
  views: [OPEN_INTEREST_VIEW],
  cacheStamp: openInterestStamp,
  requestSchema: oiSessionRequestSchema({ expirationDate: { type: 'string', format: 'date', description: 'Only this expiration, yyyy-MM-dd.' } }),
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: { type: 'object', description: 'Strike ("215.0", dollars, ascending) -> open interest in contracts.', additionalProperties: OI_TOTALS_SCHEMA },
    },
  },
  examples: {
    latest: {
      summary: 'SPY per strike over every expiration, latest published session',
      request: { filter: { ticker: 'SPY' } },
      response: {
        data: {
          '595.0': { callOpenInterest: 120450, putOpenInterest: 187310 },
          '597.5': { callOpenInterest: 98120, putOpenInterest: 130455 },
          '600.0': { callOpenInterest: 244180, putOpenInterest: 190055 },
        },
      },
    },
    expiration: {
      summary: 'AAPL per strike of one expiration, a given session',
      request: { sessionDate: '2026-01-05', filter: { ticker: 'AAPL', expirationDate: '2026-01-16' } },
    },
  },

  async handle(body, ctx) {
    const req = parseOiSessionRequest(body, ['expirationDate']);
    const expiration = (req.filter.values.get('expirationDate') as string[] | undefined)?.[0];
    const data: Record<string, { callOpenInterest: number; putOpenInterest: number }> = {};
    const at = await oiSessionToRead(ctx, req);
    if (!at) return { data };
    const { k, session } = at;
    const ticker = req.ticker;
    // The stored strike totals answer the ticker-wide question; an expiration reads its chain.
    const strikes: ChainStrike[] =
      expiration === undefined
        ? (await readSessionSummary(ctx, k, ticker, session)).strikes
        : ((await readSessionChains(ctx, k, ticker, session, [expiration])).get(expiration) ?? []);
    for (const c of strikes) data[strikeKey(c.strike)] = { callOpenInterest: c.call, putOpenInterest: c.put };
    return { data };
  },
};
