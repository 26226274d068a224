import { fromDayNumber, nyLocalToEpochMs, sessionDateOf, toDayNumber } from '../../../services/domain/calendar';
import { moneynessOf } from '../../../services/domain/order-flow';
import {
  VOLATILITY_VIEW,
  decodeOpenInterest,
  surfaceLegsAt,
  volKey,
  volatilityKeys,
  type IvIndexEntry,
  type SurfaceLeg,
} from '../../../services/views/volatility';
import type { EndpointContext } from '../../request/endpoint';
import { Problem } from '../../request/problem';
import type { TimeSelection } from '../../request/time-selectors';
import type { SurfaceLegRow } from '../../fields/volatility';
import { viewStamp } from '../../tables/view-state';

/** Reads of the volatility view (services/views/volatility.ts) for the volatility endpoints. */

export function dayStartMs(date: string): number {
  return nyLocalToEpochMs(date, 0, 0);
}
export function dayEndMs(date: string): number {
  return nyLocalToEpochMs(fromDayNumber(toDayNumber(date) + 1), 0, 0);
}

export class VolatilityReader {
  private constructor(
    private readonly ctx: EndpointContext,
    private readonly version: number | null,
  ) {}

  static async open(ctx: EndpointContext): Promise<VolatilityReader> {
    return new VolatilityReader(ctx, await ctx.views.version(VOLATILITY_VIEW));
  }

  private keys(ticker: string) {
    return volatilityKeys(this.ctx.keyPrefix, this.version ?? 0, ticker);
  }

  /**
   * The snapshot a selection names: the last one of a session; the last one strictly before an
   * instant; with no selector the latest one held (the current session's once it has one).
   */
  async snapshot(ticker: string, sel: TimeSelection): Promise<number | null> {
    if (this.version === null) return null;
    const key = volKey.snaps(this.keys(ticker), ticker);
    let found: string[];
    if (sel.kind === 'session') found = await this.ctx.redis.zrevrangebyscore(key, `(${dayEndMs(sel.sessionDate)}`, dayStartMs(sel.sessionDate), 'LIMIT', 0, 1);
    else if (sel.kind === 'snapshot') found = await this.ctx.redis.zrevrangebyscore(key, `(${sel.beforeMs}`, '-inf', 'LIMIT', 0, 1);
    else found = await this.ctx.redis.zrange(key, -1, -1);
    return found.length ? Number(found[0]) : null;
  }

  /** Snapshot instants of a ticker in [fromMs, toMs), ascending. */
  async snapshotsIn(ticker: string, fromMs: number, toMs: number): Promise<number[]> {
    if (this.version === null) return [];
    return (await this.ctx.redis.zrangebyscore(volKey.snaps(this.keys(ticker), ticker), fromMs, `(${toMs}`)).map(Number);
  }

  /** The instant of the latest snapshot held for a ticker. */
  async latestSnapshot(ticker: string): Promise<number | null> {
    return this.snapshot(ticker, { kind: 'latest' });
  }

  async surface(ticker: string, ms: number): Promise<{ spot: number | null; legs: SurfaceLeg[] }> {
    const stored = this.version === null ? null : await this.ctx.redis.getBuffer(volKey.surface(this.keys(ticker), ticker, ms));
    return stored ? surfaceLegsAt(stored, ms) : { spot: null, legs: [] };
  }

  /** The stored surfaces at several instants in one pipelined round trip (null where none). */
  async storedSurfaces(ticker: string, instants: readonly number[]): Promise<(Buffer | null)[]> {
    if (this.version === null || !instants.length) return instants.map(() => null);
    return this.ctx.redis.mgetBuffer(instants.map((ms) => volKey.surface(this.keys(ticker), ticker, ms)));
  }

  /** The priced legs that `want` keeps of a stored surface taken at `ms` (services/views/volatility.ts surfaceLegsAt). */
  pricedLegs(stored: Buffer | null, ms: number, want: (osi: string) => boolean): { spot: number | null; legs: SurfaceLeg[] } {
    return stored ? surfaceLegsAt(stored, ms, { want, pricedOnly: true }) : { spot: null, legs: [] };
  }

  /** Open interest of a session by osi (the start-of-session figure published for it), ascending. */
  async openInterest(ticker: string, date: string): Promise<Map<string, number>> {
    const stored = this.version === null ? null : await this.ctx.redis.getBuffer(volKey.openInterest(this.keys(ticker), ticker, date));
    return stored ? decodeOpenInterest(stored) : new Map();
  }

  /** The iv-rank record of every session held, ascending by date. */
  async ivIndex(ticker: string): Promise<[string, IvIndexEntry][]> {
    if (this.version === null) return [];
    const h = await this.ctx.redis.hgetall(volKey.ivIndex(this.keys(ticker), ticker));
    return Object.entries(h)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([d, v]) => [d, JSON.parse(v) as IvIndexEntry]);
  }
}

/** A priced leg as the filters see it. */
export function legRow(ticker: string, l: SurfaceLeg, spot: number): SurfaceLegRow | null {
  if (!l.greeks) return null;
  return {
    ticker,
    expirationDate: l.expiration,
    strikePrice: l.strike,
    contractType: l.right,
    moneyType: moneynessOf(l.right, spot, l.strike).moneyType,
    delta: l.greeks.delta,
    impliedVolatility: l.greeks.iv,
  };
}

/** 422: the selected snapshot has no underlying price (or there is no snapshot at all). */
export function priceUnavailable(ticker: string, sel: TimeSelection, ms: number | null): Problem {
  const what =
    ms !== null
      ? `the snapshot at ${new Date(ms).toISOString()} (session ${sessionDateOf(ms)})`
      : sel.kind === 'session'
        ? `session ${sel.sessionDate}`
        : sel.kind === 'snapshot'
          ? `any snapshot before ${new Date(sel.beforeMs).toISOString()}`
          : 'the latest session';
  return new Problem('UnderlyingPriceUnavailable', `No usable underlying price of ${ticker} for ${what}.`);
}

/**
 * The response-cache stamp of an answer read from the volatility view: its served version and
 * every partition's applied offsets (api/tables/view-state.ts), so a new snapshot, price or open
 * interest record changes it. Null while the view has never been built.
 */
export async function volatilityStamp(ctx: EndpointContext): Promise<string | null> {
  const v = await ctx.views.version(VOLATILITY_VIEW);
  return v === null ? null : viewStamp(ctx.redis, ctx.keyPrefix, VOLATILITY_VIEW, v);
}
