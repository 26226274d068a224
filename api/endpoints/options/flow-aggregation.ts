import { ORDER_FLOW_PRINTS_VIEW, type OrderFlowPrintRow } from '../../../services/views/order-flow';
import { OPTION_TRADE_EXCLUSIVE, UNCONSOLIDATED_FIELDS } from '../../fields/option-trade';
import { parseAggregationPeriod, aggregationPeriodSchema, type Period } from '../../request/aggregation/period';
import type { EndpointContext, EndpointDef, EndpointExample } from '../../request/endpoint';
import { compileExpression, and, type CompiledExpression } from '../../request/filter-expression';
import { filterPredicate, parseFilterObject, type FilterParam, type ParsedFilter } from '../../request/filter-object';
import { parseTimeSelection, selectionSpanMs, selectorSchemas, sessionsCovered, type TimeSelection } from '../../request/time-selectors';
import { fragments, type JsonSchema } from '../../request/validate';
import { viewSegments, viewStamp } from '../../tables/view-state';
import { levelFor, readFlowCells, readLastPrices, type FlowPath, type FlowQuery } from '../../views/flow-aggregates/reader';
import { bucketStarts, rollUp, sessionBucketStart } from '../../request/aggregation/buckets';
import { directionOf } from '../../../services/domain/order-flow';
import { CUBE_FIELDS, FLOW_AGGREGATES_VIEW, PREMIUM_TIER, isTierBound, laterOf, type LastPrice } from '../../../services/views/flow-aggregates';
import { filterSchema, hintsOf } from './order-flow-tape';

/**
 * What the six options-flow aggregation endpoints share: the request (time selectors, the
 * option-trade filters and filterExpression over the option-trade field reference, the
 * aggregation period on bucketed endpoints) resolved into a FlowQuery for
 * api/views/flow-aggregates/reader.ts, which answers it from the cube or, when the filter reads
 * a field a cell does not carry, by scanning the prints view. Each endpoint module declares its
 * filters, extra fields and response and folds the cells.
 */

type Row = OrderFlowPrintRow;

export interface FlowRequest {
  body: Record<string, unknown>;
  selection: TimeSelection;
  filter: ParsedFilter<Row>;
  expression: CompiledExpression<Row> | null;
  /** The aggregation period (bucketed endpoints), else null. */
  period: Period | null;
  query: FlowQuery;
  /** The one underlying the filter object pins, if it pins exactly one (stockPrice rules). */
  singleTicker: string | null;
}

export interface FlowEndpointSpec {
  path: string;
  summary: string;
  description: string;
  /** The filter object's keys (a subset of the option-trade filters, or the endpoint's own). */
  filters: readonly FilterParam[];
  /** Extra filter-object properties to document beside the option-trade ones. */
  filterExtras?: Record<string, JsonSchema>;
  /** Whether filterExpression is accepted. */
  expression: boolean;
  /** Whether the endpoint is bucketed (accepts aggregationPeriod). */
  bucketed: boolean;
  /** Request fields beyond the shared ones (dataMode). */
  extras?: Record<string, JsonSchema>;
  required?: string[];
  /** The schema of `data`. */
  dataSchema: JsonSchema;
  examples: Record<string, EndpointExample>;
  /**
   * The row fields the answer reads from a cell besides its sums (e.g. TICKER for an answer per
   * ticker): with the fields the filter reads, they choose the smallest cell level that serves
   * the request (reader.ts cellLevel). Every cube field when absent.
   */
  foldsBy?: readonly string[];
  /** Overrides the generic filter parsing (option-price-over-time's contract identifier). */
  parseFilter?(raw: unknown): ParsedFilter<Row>;
  answer(req: FlowRequest, ctx: EndpointContext & { onPath?: (p: FlowPath) => void }): Promise<unknown>;
}

const SELECTORS = ['sessionDate', 'timeRange'] as const;

/** The documented filter-object schema restricted to `filters` (plus extras). */
function filterObjectSchema(filters: readonly FilterParam[], extras: Record<string, JsonSchema>): JsonSchema {
  const all = filterSchema(extras);
  const props = all.properties as Record<string, JsonSchema>;
  const keep = new Set([...filters.map((f) => f.key), ...Object.keys(extras)]);
  return { ...all, properties: Object.fromEntries(Object.entries(props).filter(([k]) => keep.has(k))) };
}

/** The row fields a request's filter object and expression read. */
function fieldsRead(filter: ParsedFilter<Row>, params: readonly FilterParam[], expression: CompiledExpression<Row> | null): Set<string> {
  const out = new Set<string>(expression ? expression.fields : []);
  for (const key of filter.values.keys()) {
    const p = params.find((x) => x.key === key);
    if (p) out.add(UNCONSOLIDATED_FIELDS.lookup(p.field)!.name);
  }
  return out;
}

/**
 * The fields a request's cells must carry (those its filter reads and its answer folds by), and
 * whether the cube serves it. A filter comparing the premium with tier bounds only (premiumRange,
 * PREMIUM terms of the expression) reads the premium tier instead of the premium, where a cell
 * level carries the tier with the rest (and minutes if the request may read them): a comparison
 * with tier bounds is constant on each tier. Otherwise a filter on the premium scans the prints.
 */
function cellNeeds(
  read: readonly string[],
  filter: ParsedFilter<Row>,
  expression: CompiledExpression<Row> | null,
  foldsBy: readonly string[] | undefined,
  tickers: readonly string[] | undefined,
  minutes: boolean,
): { needs: Set<string>; cubeOnly: boolean } {
  const needs = new Set([...read, ...(foldsBy ?? CUBE_FIELDS)]);
  // Every premium the filter compares with: the range's bounds and the expression's PREMIUM values.
  const range = (filter.values.get('premiumRange') as (number | null)[] | undefined) ?? [];
  const compared = [...range, ...((expression?.constants.get('PREMIUM') as number[] | undefined) ?? [])];
  if (needs.has('PREMIUM') && compared.every(isTierBound)) {
    const tiered = new Set([...needs].map((f) => (f === 'PREMIUM' ? PREMIUM_TIER : f)));
    if (levelFor({ needs: tiered, tickers }, minutes)) return { needs: tiered, cubeOnly: true };
  }
  return { needs, cubeOnly: read.every((f) => CUBE_FIELDS.has(f)) };
}

export function flowEndpoint(spec: FlowEndpointSpec): EndpointDef {
  const requestSchema: JsonSchema = {
    type: 'object',
    additionalProperties: false,
    ...(spec.required ? { required: spec.required } : {}),
    properties: {
      ...selectorSchemas([...SELECTORS], 'Neither: the latest session with data (the live one while it trades).'),
      ...(spec.bucketed ? { aggregationPeriod: aggregationPeriodSchema } : {}),
      filter: filterObjectSchema(spec.filters, spec.filterExtras ?? {}),
      ...(spec.expression ? { filterExpression: fragments.filterExpression } : {}),
      ...spec.extras,
    },
  };
  const responseSchema: JsonSchema = { type: 'object', required: ['data'], additionalProperties: false, properties: { data: spec.dataSchema } };

  return {
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    kind: 'aggregation',
    views: [FLOW_AGGREGATES_VIEW, ORDER_FLOW_PRINTS_VIEW],
    requestSchema,
    responseSchema,
    examples: spec.examples,
    cacheStamp: async (ctx) => {
      const [cube, prints] = await Promise.all([ctx.views.version(FLOW_AGGREGATES_VIEW), ctx.views.version(ORDER_FLOW_PRINTS_VIEW)]);
      if (cube === null || prints === null) return null;
      const [a, b] = await Promise.all([
        viewStamp(ctx.redis, ctx.keyPrefix, FLOW_AGGREGATES_VIEW, cube),
        viewStamp(ctx.redis, ctx.keyPrefix, ORDER_FLOW_PRINTS_VIEW, prints),
      ]);
      return `${a}#${b}`;
    },

    async handle(body, ctx) {
      const selection = parseTimeSelection(body, SELECTORS);
      const period = spec.bucketed ? parseAggregationPeriod(body.aggregationPeriod, selectionSpanMs(selection)) : null;
      const filter = spec.parseFilter
        ? spec.parseFilter(body.filter)
        : parseFilterObject(body.filter, spec.filters, UNCONSOLIDATED_FIELDS, OPTION_TRADE_EXCLUSIVE);
      const expression = spec.expression && body.filterExpression != null ? compileExpression(body.filterExpression, UNCONSOLIDATED_FIELDS, 'A') : null;
      const predicate = and<Row>([filterPredicate(filter), ...(expression ? [expression.predicate] : [])]);
      const read = [...fieldsRead(filter, spec.filters, expression)];
      const tickers = filter.values.get('tickers') as string[] | undefined;
      // Minutes are read for clock buckets, and may be for a window (one cutting a session).
      const minutes = period?.unit === 'clock' || selection.kind === 'window';
      const { needs, cubeOnly } = cellNeeds(read, filter, expression, spec.foldsBy, tickers, minutes);

      const [cubeVersion, printsVersion] = await Promise.all([ctx.views.version(FLOW_AGGREGATES_VIEW), ctx.views.version(ORDER_FLOW_PRINTS_VIEW)]);
      let sessions: string[] = [];
      if (selection.kind === 'session') sessions = [selection.sessionDate];
      else if (cubeVersion !== null) {
        const held = await ctx.views.list(`${FLOW_AGGREGATES_VIEW}:${cubeVersion}:segments`, () =>
          viewSegments(ctx.redis, ctx.keyPrefix, FLOW_AGGREGATES_VIEW, cubeVersion),
        );
        sessions = sessionsCovered(selection, held);
      }
      const query: FlowQuery = {
        cubeVersion,
        printsVersion,
        sessions,
        window: selection.kind === 'window' ? selection.window : null,
        tickers,
        predicate,
        cubeOnly,
        needs,
        hints: hintsOf(filter),
      };
      const singleTicker = tickers && tickers.length === 1 ? tickers[0] : null;
      return spec.answer({ body, selection, filter, expression, period, query, singleTicker }, ctx);
    },
  };
}

/** foldsBy of an answer by contract type and side (sentiment follows from them). */
export const TYPE_AND_SIDE = ['CONTRACT_TYPE', 'TRADE_SIDE_CODE', 'SENTIMENT_TYPE'] as const;

/** Dollars from integer cents (sums are kept in cents so that every path adds exactly). */
export function dollars(cents: number): number {
  return cents / 100;
}

/** One leg's sums in a bucket by direction: bought (ASK, ABOVE_ASK), sold (BID, BELOW_BID), mid-market. */
export interface LegSums {
  boughtCents: number;
  soldCents: number;
  midCents: number;
  bought: number;
  sold: number;
  mid: number;
}

export interface NetBucket {
  CALL: LegSums;
  PUT: LegSums;
  /** The underlying's last price in the bucket (requests pinning exactly one ticker), else undefined. */
  stockPrice?: number;
}

const emptyLeg = (): LegSums => ({ boughtCents: 0, soldCents: 0, midCents: 0, bought: 0, sold: 0, mid: 0 });

/**
 * The matching prints per bucket of the request's period, by leg and direction (net-flow and
 * net-drift). A bucket exists when at least one print matches in it (empty buckets are omitted).
 * With exactly one ticker, each bucket gets the underlying's price at the bucket's last print of
 * that ticker (any contract: option filters do not move the underlying).
 */
export async function netBuckets(req: FlowRequest, ctx: EndpointContext & { onPath?: (p: FlowPath) => void }): Promise<[number, NetBucket][]> {
  const period = req.period!;
  // Day and week buckets are sums of sessions: the session cells answer them (a few hundred per
  // ticker and session instead of one per minute and combination), minutes only where the window
  // cuts a session.
  const minutes = period.unit === 'clock';
  const [cells, lasts] = await Promise.all([
    readFlowCells(ctx.redis, ctx.keyPrefix, req.query, minutes, ctx.onPath),
    req.singleTicker === null ? Promise.resolve(null) : readLastPrices(ctx.redis, ctx.keyPrefix, req.query, req.singleTicker, !minutes),
  ]);
  const sessionStarts = new Map<string, number>();
  const sessionStart = (d: string) => sessionStarts.get(d) ?? sessionStarts.set(d, sessionBucketStart(period, d)).get(d)!;
  const buckets = rollUp(
    period,
    cells.map((c) => [c.minute ?? sessionStart(c.sessionDate!), c] as const),
    (): NetBucket => ({ CALL: emptyLeg(), PUT: emptyLeg() }),
    (b, c) => {
      const leg = b[c.contractType];
      const dir = directionOf(c.tradeSideCode);
      if (dir === 'BUY') {
        leg.boughtCents += c.premiumCents;
        leg.bought += c.volume;
      } else if (dir === 'SELL') {
        leg.soldCents += c.premiumCents;
        leg.sold += c.volume;
      } else {
        leg.midCents += c.premiumCents;
        leg.mid += c.volume;
      }
    },
  );
  if (lasts) {
    const lastOf = new Map<number, LastPrice>();
    const startOf = bucketStarts(period);
    for (const [ms, l] of lasts) {
      const b = startOf(ms);
      lastOf.set(b, laterOf(lastOf.get(b) ?? null, l));
    }
    for (const [start, b] of buckets) {
      const l = lastOf.get(start);
      if (l) b.stockPrice = l.price;
    }
  }
  return buckets;
}
