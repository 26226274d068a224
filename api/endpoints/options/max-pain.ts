import { maxPain, strikeKey } from '../../../services/domain/max-pain';
import { OPEN_INTEREST_VIEW } from '../../../services/views/open-interest';
import type { EndpointDef } from '../../request/endpoint';
import { OI_LOOKUP_FIELDS, OI_LOOKUP_FILTERS } from '../../fields/open-interest-lookup';
import { parseFilterObject } from '../../request/filter-object';
import { Problem, invalid } from '../../request/problem';
import { parseTimeSelection, selectorSchemas } from '../../request/time-selectors';
import { fragments } from '../../request/validate';
import { latestSession, openInterestStamp, readChainAndPrice, tickerKeys } from '../../views/open-interest/read';
import { requiredTicker, tickerSchema } from '../../request/required-ticker';

const CELL = {
  type: 'object',
  additionalProperties: false,
  required: ['callIntrinsicValue', 'putIntrinsicValue'],
  properties: {
    callIntrinsicValue: { type: 'number', description: 'Dollars call writers would owe with settlement at this strike.' },
    putIntrinsicValue: { type: 'number', description: 'Dollars put writers would owe with settlement at this strike.' },
  },
};

export const maxPainEndpoint: EndpointDef = {
  path: '/options/tool/max-pain',
  summary: 'Max pain of one expiration: what writers would owe at each strike, and the strike where they owe the least.',
  description: [
    'For each listed strike K of the expiration, taken as the settlement price: callIntrinsicValue = sum over calls of openInterest x max(0, K - strike) x 100,',
    'putIntrinsicValue = sum over puts of openInterest x max(0, strike - K) x 100 (dollars, open interest of the session).',
    "maxPainStrikePrice is the strike where writers owe the least (callIntrinsicValue + putIntrinsicValue smallest: the standard definition, as in the vendor's example);",
    "on a tie, the lowest such strike. stockPrice is the session's official close, or during the session its latest price.",
    'Default session: the latest whose open interest is published (before the open, the prior session).',
    'No price for the session is a 422 StockPriceNotFound, no open interest for ticker, session and expiration a 422 EmptyOpenInterest.',
  ].join(' '),
  kind: 'aggregation',
  views: [OPEN_INTEREST_VIEW],
  problems: ['StockPriceNotFound', 'EmptyOpenInterest'],
  cacheStamp: openInterestStamp,
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['filter'],
    properties: {
      ...selectorSchemas(['sessionDate'], 'Default: the latest session whose open interest is published (before the open, the prior session).'),
      filter: {
        ...fragments.filter,
        properties: {
          ticker: tickerSchema(),
          expirationDate: { type: 'string', format: 'date', description: 'Expiration, yyyy-MM-dd (required).' },
        },
      },
    },
  },
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data', 'maxPainStrikePrice', 'stockPrice'],
    properties: {
      data: { type: 'object', description: 'Strike ("215.0", dollars, ascending) -> what writers would owe there.', additionalProperties: CELL },
      maxPainStrikePrice: { type: 'number', description: 'The strike where writers owe the least (dollars).' },
      stockPrice: { type: 'number', description: 'The underlying price of the session (dollars).' },
    },
  },
  examples: {
    latest: { summary: 'SPY max pain for an expiration, latest session', request: { filter: { ticker: 'SPY', expirationDate: '2026-01-16' } } },
    session: {
      summary: 'AAPL max pain as of a given session',
      request: { sessionDate: '2026-01-05', filter: { ticker: 'AAPL', expirationDate: '2026-01-16' } },
      response: {
        data: {
          '210.0': { callIntrinsicValue: 0, putIntrinsicValue: 1934420 },
          '215.0': { callIntrinsicValue: 310000, putIntrinsicValue: 1194701 },
          '220.0': { callIntrinsicValue: 912000, putIntrinsicValue: 315290 },
          '225.0': { callIntrinsicValue: 1292130, putIntrinsicValue: 0 },
        },
        maxPainStrikePrice: 220,
        stockPrice: 218.42,
      },
    },
  },

  async handle(body, ctx) {
    const selection = parseTimeSelection(body, ['sessionDate']);
    const filter = parseFilterObject(body.filter, [OI_LOOKUP_FILTERS.ticker, OI_LOOKUP_FILTERS.expirationDate], OI_LOOKUP_FIELDS);
    const ticker = requiredTicker(filter);
    const expiration = (filter.values.get('expirationDate') as string[] | undefined)?.[0];
    if (expiration === undefined) throw invalid('filter.expirationDate', 'is required');

    const k = await tickerKeys(ctx, ticker);
    const session = selection.kind === 'session' ? selection.sessionDate : k && (await latestSession(ctx, k, ticker));
    const { chain, price: stockPrice } = k && session ? await readChainAndPrice(ctx, k, ticker, expiration, session) : { chain: null, price: null };
    const pain = chain && chain.some((c) => c.call > 0 || c.put > 0) ? maxPain(chain) : null;
    if (!pain)
      throw new Problem('EmptyOpenInterest', `No open interest for ${ticker} in session ${session ?? '(none published)'} for expiration ${expiration}.`);
    if (stockPrice === null) throw new Problem('StockPriceNotFound', `No stock price for ${ticker} in session ${session} (expiration ${expiration}).`);
    const data: Record<string, { callIntrinsicValue: number; putIntrinsicValue: number }> = {};
    for (const c of pain.cells) data[strikeKey(c.strike)] = { callIntrinsicValue: c.callIntrinsicValue, putIntrinsicValue: c.putIntrinsicValue };
    return { data, maxPainStrikePrice: pain.maxPainStrike, stockPrice };
  },
};
