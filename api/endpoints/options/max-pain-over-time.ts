import { OPEN_INTEREST_VIEW } from '../../../services/views/open-interest';
import type { EndpointDef } from '../../request/endpoint';
import { openInterestStamp, readSessionSummary } from '../../views/open-interest/read';
import { oiSessionRequestSchema, oiSessionToRead, parseOiSessionRequest } from '../../views/open-interest/session-request';

export const maxPainOverTime: EndpointDef = {
  path: '/options/tool/max-pain-over-time',
  summary: "The max-pain strike of each of a ticker's expirations in one session.",
  description: [
    'Per expiration listed in the session (ascending), its max-pain strike in dollars: computed as max-pain computes maxPainStrikePrice',
    '(the strike where writers would owe the least, the lowest on a tie), from the open interest of the session.',
    'An expiration whose contracts all have 0 open interest has no max pain and is left out; no open interest at all gives empty data.',
    'Default session: the latest whose open interest is published (before the open, the prior session).',
  ].join(' '),
  kind: 'aggregation',
  views: [OPEN_INTEREST_VIEW],
  cacheStamp: openInterestStamp,
  requestSchema: oiSessionRequestSchema(),
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: { type: 'object', description: 'Expiration (yyyy-MM-dd, ascending) -> max-pain strike (dollars).', additionalProperties: { type: 'number' } },
    },
  },
  examples: {
    latest: {
      summary: 'SPY, latest published session',
      request: { filter: { ticker: 'SPY' } },
      response: { data: { '2026-01-09': 600, '2026-01-16': 597.5, '2026-02-20': 590 } },
    },
    session: { summary: 'AAPL as of a given session', request: { sessionDate: '2026-01-05', filter: { ticker: 'AAPL' } } },
  },

  async handle(body, ctx) {
    const req = parseOiSessionRequest(body);
    const data: Record<string, number> = {};
    const at = await oiSessionToRead(ctx, req);
    if (!at) return { data };
    const { k, session } = at;
    const ticker = req.ticker;
    // Stored per session and expiration by the projection (services/domain/max-pain.ts, as max-pain).
    for (const e of (await readSessionSummary(ctx, k, ticker, session)).expirations) if (e.maxPain !== null) data[e.expiration] = e.maxPain;
    return { data };
  },
};
