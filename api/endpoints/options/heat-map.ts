import { sessionDateOf } from '../../../services/domain/calendar';
import { HEAT_MAP_MODES, heatMapMode, legValue, type HeatMapMode } from '../../../services/domain/heat-map';
import { parseOsi } from '../../../services/domain/osi';
import { configuredRiskFreeRate, dividendYield } from '../../../services/domain/rates';
import { FLOW_AGGREGATES_VIEW } from '../../../services/views/flow-aggregates';
import { ORDER_FLOW_PRINTS_VIEW, type OrderFlowPrintRow } from '../../../services/views/order-flow';
import { VOLATILITY_VIEW } from '../../../services/views/volatility';
import { HEAT_MAP_FIELDS, HEAT_MAP_FILTERS, SURFACE_EXCLUSIVE, type ContractKeyRow } from '../../fields/volatility';
import { orderedMap, strikeKey } from '../../request/aggregation/ordered-map';
import type { EndpointContext, EndpointDef } from '../../request/endpoint';
import { and, compileExpression, type Predicate } from '../../request/filter-expression';
import { filterPredicate, parseFilterObject } from '../../request/filter-object';
import { requiredTicker } from '../../request/required-ticker';
import { parseTimeSelection, selectorSchemas } from '../../request/time-selectors';
import { fragments } from '../../request/validate';
import { viewStamp } from '../../tables/view-state';
import { readFlowCells, type FlowQuery } from '../../views/flow-aggregates/reader';
import { snapshotExposures } from '../../views/volatility/exposure';
import { VolatilityReader, dayStartMs, priceUnavailable, volatilityStamp } from '../../views/volatility/reader';
import { surfaceFilterSchema } from '../../views/volatility/request';

interface ContractCell {
  callValue?: number;
  putValue?: number;
}

/** One leg's value: the contract it belongs to and the number. */
interface LegEntry {
  expiration: string;
  strike: number;
  right: 'CALL' | 'PUT';
  value: number;
}

/** The representation of the NET_*_EXPOSURE modes: RAW, interval-map's (docs/decisions.md). */
const HEAT_MAP_REPRESENTATION = 'RAW';

/** The flow cube fields a contract cell is read by: the contract level (per contract, per minute). */
const CONTRACT_NEEDS: ReadonlySet<string> = new Set(['TICKER', 'EXPIRATION_DATE', 'STRIKE_PRICE', 'CONTRACT_TYPE']);

let rate: number | null = null;
const riskFreeRate = () => (rate ??= configuredRiskFreeRate());

/** expiration -> strike -> cell, both ascending. */
function grid<C>(entries: readonly LegEntry[], cell: (into: C | undefined, e: LegEntry) => C): Record<string, Record<string, C>> {
  const byExp = new Map<string, Map<string, C>>();
  for (const e of entries) {
    let strikes = byExp.get(e.expiration);
    if (!strikes) byExp.set(e.expiration, (strikes = new Map()));
    const k = strikeKey(e.strike);
    strikes.set(k, cell(strikes.get(k), e));
  }
  return orderedMap(
    [...byExp].map(([exp, strikes]) => [exp, orderedMap(strikes, 'decimal')] as const),
    'date',
  );
}

const contractCell = (into: ContractCell | undefined, e: LegEntry): ContractCell => {
  const c = into ?? {};
  if (e.right === 'CALL') c.callValue = (c.callValue ?? 0) + e.value;
  else c.putValue = (c.putValue ?? 0) + e.value;
  return c;
};

/** The contract cells in the wire order: callValue, then putValue. */
const ordered = (c: ContractCell): ContractCell => ({
  ...(c.callValue !== undefined && { callValue: c.callValue }),
  ...(c.putValue !== undefined && { putValue: c.putValue }),
});

/** The session's prints of the ticker's contracts before the snapshot, per contract, from the flow cube's contract cells. */
async function flowEntries(
  ctx: EndpointContext,
  ticker: string,
  ms: number,
  keep: Predicate<ContractKeyRow>,
  mode: HeatMapMode & { source: 'flow' },
): Promise<LegEntry[]> {
  const date = sessionDateOf(ms);
  const [cubeVersion, printsVersion] = await Promise.all([ctx.views.version(FLOW_AGGREGATES_VIEW), ctx.views.version(ORDER_FLOW_PRINTS_VIEW)]);
  const query: FlowQuery = {
    cubeVersion,
    printsVersion,
    sessions: [date],
    window: { startMs: dayStartMs(date), endMs: ms },
    tickers: [ticker],
    predicate: (r: OrderFlowPrintRow) => r.ticker === ticker && keep(r as unknown as ContractKeyRow),
    cubeOnly: true,
    needs: CONTRACT_NEEDS,
    hints: { tickers: [ticker] },
  };
  const out: LegEntry[] = [];
  for (const c of await readFlowCells(ctx.redis, ctx.keyPrefix, query, false)) {
    const value = mode.measure === 'premium' ? c.premiumCents : mode.measure === 'tradeCount' ? c.tradeCount : c.volume;
    out.push({ expiration: c.expirationDate, strike: c.strikePrice, right: c.contractType, value });
  }
  return out;
}

/**
 * POST /options/tool/heat-map: one quantity per contract of an underlying at a quote snapshot, by
 * expiration and strike. Contract-type modes (NET_*) give both legs of a strike, single modes
 * (CALL_*, PUT_*) one leg.
 */
export const heatMap: EndpointDef = {
  path: '/options/tool/heat-map',
  summary: 'One quantity per contract (exposure, open interest, flow, quote, IV or a greek) by expiration and strike at a quote snapshot.',
  description:
    'Expiration -> strike -> cell at a quote snapshot. `type: "contract"` (the eight NET_* modes): cell {callValue, putValue}; `type: "single"` (CALL_* and PUT_*): cell {value} of that leg. NET_*_EXPOSURE: exposure-by-strike\'s RAW exposure (open interest x greek x 100), the same cells; NET_OPEN_INTEREST: the session\'s open interest; NET_PREMIUM (dollars), NET_TRADE_COUNT, NET_VOLUME (contracts): the session\'s option prints of the contract before the snapshot instant. Per-leg modes: the contracts with an IV at the snapshot; ASK_PRICE and BID_PRICE the quote, OPTION_PRICE its midpoint (the price the IV is solved from), IMPLIED_VOLATILITY the IV (fractional), SIGMA the volatility the greeks are evaluated at (equal to the IV), the greeks Black-Scholes-Merton at that IV in the order-flow units (per $1, per calendar day, per volatility point). A leg without a value (no open interest, no print, no IV) omits its key and an empty strike is absent. filterExpression reads TICKER, EXPIRATION_DATE, STRIKE_PRICE and CONTRACT_TYPE. Snapshot selection as in term-structure; no snapshot or no underlying price is a 422.',
  kind: 'aggregation',
  views: [VOLATILITY_VIEW, FLOW_AGGREGATES_VIEW],
  problems: ['UnderlyingPriceUnavailable'],
  async cacheStamp(ctx) {
    const [vol, cube] = await Promise.all([volatilityStamp(ctx), ctx.views.version(FLOW_AGGREGATES_VIEW)]);
    if (vol === null) return null;
    return `${vol}#${cube === null ? '-' : await viewStamp(ctx.redis, ctx.keyPrefix, FLOW_AGGREGATES_VIEW, cube)}`;
  },
  requestSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['filter', 'dataMode'],
    properties: {
      filter: surfaceFilterSchema({ strikes: true }),
      dataMode: { enum: [...HEAT_MAP_MODES], description: 'The quantity of a cell: NET_* (both legs) or CALL_* / PUT_* (one leg).' },
      filterExpression: fragments.filterExpression,
      ...selectorSchemas(['sessionDate', 'snapshotTime'], 'Default: the latest snapshot.'),
    },
  },
  responseSchema: {
    type: 'object',
    required: ['type', 'data'],
    additionalProperties: false,
    properties: {
      type: { enum: ['contract', 'single'], description: 'contract: cells {callValue, putValue}; single: cells {value}.' },
      data: {
        type: 'object',
        description: 'Expiration date (ascending) -> strike string (ascending) -> cell.',
        additionalProperties: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            properties: { callValue: { type: 'number' }, putValue: { type: 'number' }, value: { type: 'number' } },
          },
        },
      },
    },
  },
  examples: {
    gamma: {
      summary: 'SPY net gamma exposure at the end of a session',
      request: { filter: { ticker: 'SPY' }, dataMode: 'NET_GAMMA_EXPOSURE', sessionDate: '2026-11-20' },
    },
    callIv: {
      summary: 'SPY call IVs of strikes 550-650 before an instant, one expiration',
      request: {
        filter: { ticker: 'SPY', strikePriceRange: { min: 550, max: 650 } },
        dataMode: 'CALL_IMPLIED_VOLATILITY',
        filterExpression: { field: 'EXPIRATION_DATE', operation: 'EQ', value: '2026-12-18' },
        snapshotTime: '2026-11-20T18:00:00Z',
      },
    },
    premium: { summary: 'SPY premium traded per contract so far in the session', request: { filter: { ticker: 'SPY' }, dataMode: 'NET_PREMIUM' } },
  },

  async handle(body, ctx) {
    const sel = parseTimeSelection(body, ['sessionDate', 'snapshotTime']);
    const filter = parseFilterObject(body.filter, HEAT_MAP_FILTERS, HEAT_MAP_FIELDS, SURFACE_EXCLUSIVE);
    const ticker = requiredTicker(filter);
    const expr = body.filterExpression == null ? null : compileExpression(body.filterExpression, HEAT_MAP_FIELDS, 'A');
    const keep = and([filterPredicate(filter), ...(expr ? [expr.predicate] : [])]);
    const mode = heatMapMode(body.dataMode as string);
    const reader = await VolatilityReader.open(ctx);

    if (mode.source === 'exposure') {
      const { exposures } = await snapshotExposures(reader, ticker, sel, mode.greek, HEAT_MAP_REPRESENTATION, keep);
      return {
        type: mode.type,
        data: cells(
          exposures.map((e) => ({ ...e, value: e.exposure })),
          mode,
        ),
      };
    }
    const ms = await reader.snapshot(ticker, sel);
    const s = ms === null ? null : await reader.surface(ticker, ms);
    if (ms === null || !s || s.spot === null) throw priceUnavailable(ticker, sel, ms);
    const spot = s.spot;
    const entries: LegEntry[] = [];
    if (mode.source === 'openInterest') {
      for (const [osi, oi] of await reader.openInterest(ticker, sessionDateOf(ms))) {
        const p = parseOsi(osi);
        if (!p || !(oi > 0)) continue;
        const row: ContractKeyRow = { ticker, expirationDate: p.expiration, strikePrice: p.strike, contractType: p.right };
        if (keep(row)) entries.push({ expiration: p.expiration, strike: p.strike, right: p.right, value: oi });
      }
    } else if (mode.source === 'flow') {
      entries.push(...(await flowEntries(ctx, ticker, ms, keep, mode)));
    } else {
      const dividend = dividendYield(ticker);
      for (const l of s.legs) {
        if (l.right !== mode.right || !l.greeks) continue;
        if (!keep({ ticker, expirationDate: l.expiration, strikePrice: l.strike, contractType: l.right })) continue;
        const leg = { right: l.right, strike: l.strike, expiration: l.expiration, bid: l.bid, ask: l.ask, iv: l.greeks.iv };
        entries.push({ expiration: l.expiration, strike: l.strike, right: l.right, value: legValue(mode.quantity, leg, spot, ms, riskFreeRate(), dividend) });
      }
    }
    return { type: mode.type, data: cells(entries, mode) };
  },
};

/** The data map of a mode's entries: contract cells, or single {value} cells (premium in dollars). */
function cells(entries: readonly LegEntry[], mode: HeatMapMode): Record<string, Record<string, unknown>> {
  if (mode.type === 'single') return grid<{ value: number }>(entries, (_c, e) => ({ value: e.value }));
  const map = grid<ContractCell>(entries, contractCell);
  const cents = mode.source === 'flow' && mode.measure === 'premium';
  for (const strikes of Object.values(map))
    for (const [k, c] of Object.entries(strikes)) {
      if (cents) {
        if (c.callValue !== undefined) c.callValue /= 100;
        if (c.putValue !== undefined) c.putValue /= 100;
      }
      strikes[k] = ordered(c);
    }
  return map;
}
