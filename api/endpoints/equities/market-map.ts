import { previousTradingDay, sessionDateOf } from '../../../services/domain/calendar';
import { INSTRUMENTS_VIEW, type InstrumentRecord } from '../../../services/views/equities/instruments';
import { STOCK_PRICES_VIEW } from '../../../services/views/equities/stock-prices';
import { PartitionKeys } from '../../../services/views/keys';
import { displayLabel, MARKET_MAP_FIELDS, MARKET_MAP_FILTERS, type MarketMapEntry } from '../../fields/market-map';
import { orderedMap } from '../../request/aggregation/ordered-map';
import type { EndpointDef } from '../../request/endpoint';
import { and, compileExpression } from '../../request/filter-expression';
import { filterPredicate, parseFilterObject } from '../../request/filter-object';
import { Problem } from '../../request/problem';
import { parseTimeSelection, selectorSchemas } from '../../request/time-selectors';
import { fragments } from '../../request/validate';
import { StockPrices } from '../../views/equities/stock-prices';
import { viewsStamp } from '../../views/views-stamp';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';

const ENTRY = {
  type: 'object',
  additionalProperties: false,
  required: ['companyName', 'currentValue', 'previousValue', 'sector', 'industry', 'size'],
  properties: {
    companyName: { type: 'string' },
    currentValue: { type: 'number', description: 'Price at the snapshot (or the session close), dollars.' },
    previousValue: { type: 'number', description: "The previous session's close, dollars." },
    sector: { type: 'string', description: 'Sector label, e.g. "Technology".' },
    industry: { type: 'string', description: 'Industry label, e.g. "Consumer Electronics".' },
    size: { type: 'number', description: 'Market capitalization at the snapshot: shares outstanding x currentValue, dollars to the cent.' },
  },
};

async function readInstruments(ctx: Parameters<EndpointDef['handle']>[1]): Promise<Map<string, InstrumentRecord>> {
  const version = await ctx.views.version(INSTRUMENTS_VIEW);
  if (version === null) return new Map();
  // Reference data changes rarely: read and parsed at most once per pointer TTL, like the sessions held.
  return ctx.views.value(`${INSTRUMENTS_VIEW}:${version}:records`, async () => {
    const all = await ctx.redis.hgetall(new PartitionKeys(ctx.keyPrefix, INSTRUMENTS_VIEW, version, 0).key('i'));
    return new Map(Object.entries(all).map(([s, v]) => [s, JSON.parse(v) as InstrumentRecord]));
  });
}

/**
 * POST /v1/equities/tool/market-map: every listed security (cash indexes excepted) with its
 * reference data and its price at a snapshot beside the previous session's close.
 */
export const marketMap: EndpointDef = {
  path: '/equities/tool/market-map',
  summary: 'Company snapshot of the market: name, sector, industry, market cap and price against the previous close.',
  description:
    'Per ticker (ascending): companyName, sector and industry labels, size (market capitalization: shares outstanding x currentValue), currentValue (the last price strictly before snapshotTime; the close of sessionDate; with neither, the latest price of the newest session) and previousValue (the close of the session before). Cash indexes are not companies and are left out, as is a ticker without both prices. Filters: sectors, industries (canonical or label, case and separators ignored); filterExpression form B ({operator, operands} / {field, comparator, value}) over COMPANY_NAME (contains), EXCHANGE, INDUSTRY, MARKET_CAP (alias MARKET_CAPITALIZATION), SECTOR, SYMBOL (alias TICKER). 422 EndSessionStockPricesUnavailable when the selected session has no prices, StartSessionStockPricesUnavailable when the session before it has none.',
  kind: 'aggregation',
  views: [INSTRUMENTS_VIEW, STOCK_PRICES_VIEW],
  problems: ['StartSessionStockPricesUnavailable', 'EndSessionStockPricesUnavailable'],
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...selectorSchemas(['sessionDate', 'snapshotTime'], 'Neither: the latest snapshot of the current (newest) session.'),
      filter: {
        ...fragments.filter,
        properties: {
          sectors: fragments.stringOrList('Sector(s) (alias sector): canonical (FINANCIAL_SERVICES) or label ("Financial Services"); OR-combined.'),
          industries: fragments.stringOrList('Industry(ies) (alias industry); a double underscore equals a single one; OR-combined.'),
        },
      },
      filterExpression: { type: ['object', 'null'], description: 'Form B: {operator: AND|OR, operands: [nodes]} groups and {field, comparator, value} terms.' },
    },
  },
  responseSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: { data: { type: 'object', additionalProperties: ENTRY, description: 'Ticker (ascending) -> entry.' } },
  },
  examples: {
    latest: { summary: 'The whole market now (an empty body is valid)', request: {} },
    sector: {
      summary: 'Technology companies above $1T at a snapshot',
      request: {
        snapshotTime: '2024-05-01T15:00:00Z',
        filter: { sectors: ['Technology'] },
        filterExpression: { operator: 'AND', operands: [{ field: 'MARKET_CAP', comparator: '>=', value: 1_000_000_000_000 }] },
      },
      response: {
        data: {
          AAPL: {
            companyName: 'Apple Inc.',
            currentValue: 169.87,
            previousValue: 170.33,
            sector: 'Technology',
            industry: 'Consumer Electronics',
            size: 2531063000000,
          },
        },
      },
    },
  },

  cacheStamp: (ctx) =>
    viewsStamp(ctx, [
      { view: INSTRUMENTS_VIEW, partitions: 1 },
      { view: STOCK_PRICES_VIEW, partitions: MARKET_PARTITIONS },
    ]),

  async handle(body, ctx) {
    const selection = parseTimeSelection(body, ['sessionDate', 'snapshotTime']);
    const filter = parseFilterObject(body.filter, MARKET_MAP_FILTERS, MARKET_MAP_FIELDS);
    const expression = body.filterExpression == null ? null : compileExpression(body.filterExpression, MARKET_MAP_FIELDS, 'B');
    const predicate = and<MarketMapEntry>([filterPredicate(filter), ...(expression ? [expression.predicate] : [])]);

    const [instruments, version] = await Promise.all([readInstruments(ctx), ctx.views.version(STOCK_PRICES_VIEW)]);
    const prices = version === null ? null : new StockPrices(ctx.redis, ctx.keyPrefix, version);
    const held = prices ? await ctx.views.list(`${STOCK_PRICES_VIEW}:${version}:sessions`, () => prices.sessions()) : [];
    const tickers = [...instruments].filter(([, i]) => !i.isIndex).map(([s]) => s);

    // The session and its prices: a named session's close; the last prices before an instant (in
    // the newest session on or before its date that has one); the newest session's latest prices.
    let session: string | null = null;
    let current = new Map<string, number>();
    if (selection.kind === 'session') {
      session = selection.sessionDate;
      if (prices) current = await prices.at(tickers, session, null);
    } else if (prices && selection.kind === 'snapshot') {
      const day = sessionDateOf(selection.beforeMs - 1);
      for (const d of held
        .filter((x) => x <= day)
        .slice(-2)
        .reverse()) {
        current = await prices.at(tickers, d, selection.beforeMs);
        session = d;
        if (current.size) break;
      }
    } else if (prices && held.length) {
      session = held[held.length - 1];
      current = await prices.at(tickers, session, null);
    }
    if (!current.size) throw new Problem('EndSessionStockPricesUnavailable', `The requested session${session ? ` (${session})` : ''} has no stock prices.`);
    const previousSession = previousTradingDay(session!);
    const previous = await prices!.at(tickers, previousSession, null);
    if (!previous.size) throw new Problem('StartSessionStockPricesUnavailable', `The previous session (${previousSession}) has no stock prices.`);

    const entries: [string, object][] = [];
    for (const symbol of tickers) {
      const cur = current.get(symbol);
      const prev = previous.get(symbol);
      if (cur === undefined || prev === undefined) continue;
      const i = instruments.get(symbol)!;
      const e: MarketMapEntry = {
        symbol,
        companyName: i.companyName,
        exchange: i.exchange,
        sector: i.sector,
        industry: i.industry,
        size: Math.round(i.sharesOutstanding * cur * 100) / 100, // dollars in cents, without float noise
        currentValue: cur,
        previousValue: prev,
      };
      if (!predicate(e)) continue;
      entries.push([
        symbol,
        {
          companyName: e.companyName,
          currentValue: cur,
          previousValue: prev,
          sector: displayLabel(e.sector),
          industry: displayLabel(e.industry),
          size: e.size,
        },
      ]);
    }
    return { data: orderedMap(entries, 'text') };
  },
};
