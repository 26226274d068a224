import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { sessionBounds } from '../../../services/domain/calendar';
import { ARV_MIN_RETURNS, ARV_WINDOW, adjustedRealizedVolatility } from '../../../services/domain/realized-volatility';
import { minuteCloses } from '../../../services/views/equities/price-bars';
import { STOCK_PRICES_VIEW } from '../../../services/views/equities/stock-prices';
import { FLOW_AGGREGATES_VIEW, MINUTE_MS, type AtmPrint } from '../../../services/views/flow-aggregates';
import { UNCONSOLIDATED_FIELDS } from '../../fields/option-trade';
import { bucketKey } from '../../request/aggregation/buckets';
import type { EndpointDef } from '../../request/endpoint';
import { parseFilterObject, type FilterParam } from '../../request/filter-object';
import { TICKER_FILTER, requiredTicker, tickerSchema } from '../../request/required-ticker';
import { parseTimeSelection, selectorSchemas } from '../../request/time-selectors';
import { fragments } from '../../request/validate';
import { StockPrices } from '../../views/equities/stock-prices';
import { readAtmExpirations, readAtmIvs } from '../../views/flow-aggregates/reader';
import { viewsStamp } from '../../views/views-stamp';

/**
 * POST /v1/options/tool/volatility-drift: per minute of one session of one underlying, the
 * adjusted realized volatility of the underlying (arv, services/domain/realized-volatility.ts), the
 * implied volatility of the minute's option print nearest the money of one expiration (iv), and
 * the underlying's price (stockPrice). Fixed 1-minute buckets, sessionDate only (vendor notes 3).
 *
 * Read-ready: the print nearest the money per minute and expiration is kept by the flow-aggregates
 * projection (`<D>:av:<TICKER>:<EXP>`, one hash field per minute), so a request reads one hash of
 * at most 390 fields; the minute prices come from the stock-price view's price bars of the session
 * (`<D>:pb:<TICKER>`, one GET: a minute's close is its bar's close, carried forward through minutes
 * without one), and arv is computed from those 390 prices per request.
 */

const FILTERS: FilterParam[] = [TICKER_FILTER, { key: 'expirationDate', kind: 'eq', field: 'EXPIRATION_DATE' }];

const POINT = {
  type: 'object',
  additionalProperties: false,
  required: ['arv', 'iv', 'stockPrice'],
  properties: {
    arv: {
      type: ['number', 'null'],
      description: `Adjusted realized volatility (fraction, annualized) of the underlying's 1-minute log returns over the trailing ${ARV_WINDOW} minutes; null while fewer than ${ARV_MIN_RETURNS} returns are in the window.`,
    },
    iv: {
      type: ['number', 'null'],
      description:
        "Implied volatility (fraction) of the minute's print of the expiration whose strike is nearest its underlying price; null when the expiration had no print with an implied volatility in the minute.",
    },
    stockPrice: {
      type: ['number', 'null'],
      description:
        "The underlying's last price event before the minute's end (the close of the minute's bar, else carried forward from an earlier minute), dollars; null before the session's first price.",
    },
  },
};

interface Point {
  arv: number | null;
  iv: number | null;
  stockPrice: number | null;
}

/** The answer before serialization: the minutes ascending (minute key, point). */
interface DriftAnswer {
  data: [string, Point][];
}

/** A number as JSON.stringify writes it (null for null and non-finite). */
const jsonNumber = (v: number | null) => (v === null || !Number.isFinite(v) ? 'null' : String(v));

export const volatilityDrift: EndpointDef = {
  path: '/options/tool/volatility-drift',
  summary: 'Realized volatility, at-the-money implied volatility and stock price per session minute',
  description: `One underlying (\`filter.ticker\`, required) and one session (\`sessionDate\`; default: the latest session with a price of the ticker), in fixed 1-minute buckets: minute start (epoch-ms, ascending) -> {arv, iv, stockPrice}, one per minute of the regular session (09:30 to 15:59 New York; to 12:59 on an early-close day) that has begun by the session's latest price or print. arv: the sample standard deviation (mean removed, n - 1) of the underlying's 1-minute log returns over the trailing ${ARV_WINDOW} minutes, annualized by sqrt(252 x 390); a minute's close is the underlying's last price event before the minute's end (an event exactly on a minute boundary belongs to the minute it starts), the first return is from the price at the open (the last event at or before it); null while fewer than ${ARV_MIN_RETURNS} returns are in the window. iv: the implied volatility of the minute's option print of \`filter.expirationDate\` (default: the nearest expiration, on or after the session, with a print carrying an implied volatility in the session) whose strike is nearest the underlying price on that print (at equal distance, the later print); null without such a print. stockPrice: that minute close. timeRange, aggregationPeriod and filterExpression are not accepted.`,
  kind: 'aggregation',
  views: [FLOW_AGGREGATES_VIEW, STOCK_PRICES_VIEW],
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['filter'],
    properties: {
      ...selectorSchemas(['sessionDate'], 'Default: the latest session with a price of the ticker.'),
      filter: {
        ...fragments.filter,
        properties: {
          ticker: tickerSchema(),
          expirationDate: {
            type: ['string', 'array', 'null'],
            items: { type: 'string', format: 'date' },
            description: 'One expiration, yyyy-MM-dd (a one-element list is accepted). Default: the nearest expiration with a print in the session.',
          },
        },
      },
    },
  },
  responseSchema: {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: { data: { type: 'object', description: 'Minute start (epoch-ms string, ascending) -> {arv, iv, stockPrice}.', additionalProperties: POINT } },
  },
  examples: {
    latest: { summary: 'SPY, latest session, nearest expiration', request: { filter: { ticker: 'SPY' } } },
    expiration: {
      summary: 'AAPL on one session, one expiration',
      request: { sessionDate: '2026-11-20', filter: { ticker: 'AAPL', expirationDate: '2026-12-18' } },
    },
  },
  // Written directly: 390 keys, already ascending, each three numbers (about a third of the
  // cost of building the object and walking it with JSON.stringify).
  serialize: (result) => {
    const parts = (result as DriftAnswer).data.map(
      ([k, p]) => `${JSON.stringify(k)}:{"arv":${jsonNumber(p.arv)},"iv":${jsonNumber(p.iv)},"stockPrice":${jsonNumber(p.stockPrice)}}`,
    );
    return `{"data":{${parts.join(',')}}}`;
  },
  cacheStamp: (ctx) =>
    viewsStamp(ctx, [
      { view: FLOW_AGGREGATES_VIEW, partitions: MARKET_PARTITIONS },
      { view: STOCK_PRICES_VIEW, partitions: MARKET_PARTITIONS },
    ]),

  async handle(body, ctx) {
    const selection = parseTimeSelection(body, ['sessionDate']);
    const filter = parseFilterObject(body.filter, FILTERS, UNCONSOLIDATED_FIELDS);
    const ticker = requiredTicker(filter);
    const asked = (filter.values.get('expirationDate') as string[] | undefined)?.[0];
    const [cubeVersion, pricesVersion] = await Promise.all([ctx.views.version(FLOW_AGGREGATES_VIEW), ctx.views.version(STOCK_PRICES_VIEW)]);
    const prices = pricesVersion === null ? null : new StockPrices(ctx.redis, ctx.keyPrefix, pricesVersion);

    const date = selection.kind === 'session' ? selection.sessionDate : ((prices && (await prices.latest(ticker))?.sessionDate) ?? null);
    const bounds = date === null ? null : sessionBounds(date);
    if (date === null || bounds === null) return { data: [] } satisfies DriftAnswer;
    const minutes: number[] = [];
    for (let m = bounds.open; m < bounds.close; m += MINUTE_MS) minutes.push(m);

    // The minute prices from the session's price bars (one GET): the price at the open (arv's
    // base), each minute's close, and the session's latest price time (how far it has come).
    const [bars, atms] = await Promise.all([
      prices ? prices.bars(ticker, date) : Promise.resolve(null),
      (async (): Promise<Map<number, AtmPrint>> => {
        if (cubeVersion === null) return new Map();
        const expiration = asked ?? (await readAtmExpirations(ctx.redis, ctx.keyPrefix, cubeVersion, date, ticker)).find((e) => e >= date);
        return expiration === undefined ? new Map() : readAtmIvs(ctx.redis, ctx.keyPrefix, cubeVersion, date, ticker, expiration);
      })(),
    ]);
    const { atOpen: base, closes } = bars ? minuteCloses(bars, bounds.open, minutes.length) : { atOpen: null, closes: minutes.map(() => null) };
    let reached = bars?.session?.closeTime ?? -Infinity;
    for (const a of atms.values()) if (a.time > reached) reached = a.time;
    const arv = adjustedRealizedVolatility(base, closes);
    const data: [string, Point][] = [];
    minutes.forEach((m, i) => {
      if (m > reached) return;
      data.push([bucketKey(m), { arv: arv[i], iv: atms.get(m)?.iv ?? null, stockPrice: closes[i] }]);
    });
    return { data } satisfies DriftAnswer;
  },
};
