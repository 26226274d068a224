import type { PartitionKeys } from '../keys';
import type { BlockFormat } from './packed';

/**
 * The flow-aggregates view (projections/flow-aggregates), shared by the projector and the API.
 * Every key is under its partition's hash tag; data keys are per session D:
 *
 *   s                  zset (lex) session dates with prints in this partition (the table views' name,
 *                      so api/tables/view-state.ts viewSegments lists them)
 *   <D>:tk             zset (lex) underlyings with prints in session D
 *
 * The cell, last-price and bar hashes below hold packed blocks (packed.ts): each Redis field is a
 * block of logical entries (the field -> value strings of cells.ts), chosen by PACKING.
 *
 *   <D>:cs:<TICKER>    whole-session cells: dims -> "cents,prints,contracts" (cells.ts); a block per expiration
 *   <D>:cm:<TICKER>    1-minute cells: minute|dims -> "cents,prints,contracts"; a block per minute
 *   <D>:ks:<TICKER>    coarse whole-session cells (no expiration, no strike; cells.ts); one block
 *   <D>:km:<TICKER>    coarse 1-minute cells; a block per minute
 *   <D>:ms, <D>:mm     coarse whole-session and 1-minute cells of every underlying of the partition
 *                      together (whole-market answers that need no ticker); a block per exchange, per minute
 *   <D>:ns, <D>:nm     net whole-session and 1-minute cells of the partition: contract type and side
 *                      only (whole-market answers that fold and filter by nothing else); one block, per minute
 *   <D>:ps             premium-tier net whole-session cells of the partition: contract type, side and
 *                      premium tier (cells.ts premiumTier); one block
 *   <D>:xs             exchange whole-session cells of the partition: contract type, side, exchange and
 *                      flags (market-share over the whole market); one block
 *   <D>:ts:<TICKER>    ticker-net whole-session cells: contract type, side and what is constant per
 *                      underlying (sector, industry, flags); one block
 *   <D>:tm:<TICKER>    ticker-net 1-minute cells; a block per minute
 *   <D>:u:<TICKER>     epoch minute -> the last print's underlying price "time|rowKey|price"; a block per 30 minutes
 *   <D>:o:<TICKER>     the underlying's contracts' bars: a block per expiration of
 *                      "C or P|strike|epoch minute" -> bar (cells.ts encodeBar)
 *
 *   <D>:osi            OSI symbol -> CONTRACT, ticker|expiration|C or P|strike (finds a contract named
 *                      by osi); a block per OSI root and expiration (osiBlock)
 *
 * Plain hashes and sets:
 *
 *   <D>:ul             hash  underlying -> its session's last print's underlying price "time|rowKey|price"
 *   <D>:ae:<TICKER>    zset (lex) expirations of the underlying with a print carrying an implied
 *                            volatility in session D (volatility-drift's default expiration)
 *   <D>:av:<TICKER>:<EXP>  hash  epoch minute -> the minute's print of that expiration nearest the money
 *                            "strike|stockPrice|time|rowKey|iv" (cells.ts nearerAtmOf; volatility-drift)
 */

export const FLOW_AGGREGATES_VIEW = 'flow-aggregates';

export class FlowAggregateKeys {
  constructor(readonly p: PartitionKeys) {}

  get sessions(): string {
    return this.p.key('s');
  }
  tickers(d: string): string {
    return this.p.key(d, 'tk');
  }
  sessionCells(d: string, ticker: string): string {
    return this.p.key(d, 'cs', ticker);
  }
  minuteCells(d: string, ticker: string): string {
    return this.p.key(d, 'cm', ticker);
  }
  coarseSessionCells(d: string, ticker: string): string {
    return this.p.key(d, 'ks', ticker);
  }
  coarseMinuteCells(d: string, ticker: string): string {
    return this.p.key(d, 'km', ticker);
  }
  marketSessionCells(d: string): string {
    return this.p.key(d, 'ms');
  }
  marketMinuteCells(d: string): string {
    return this.p.key(d, 'mm');
  }
  marketNetSessionCells(d: string): string {
    return this.p.key(d, 'ns');
  }
  marketNetMinuteCells(d: string): string {
    return this.p.key(d, 'nm');
  }
  premiumNetSessionCells(d: string): string {
    return this.p.key(d, 'ps');
  }
  marketExchangeCells(d: string): string {
    return this.p.key(d, 'xs');
  }
  tickerNetSessionCells(d: string, ticker: string): string {
    return this.p.key(d, 'ts', ticker);
  }
  tickerNetMinuteCells(d: string, ticker: string): string {
    return this.p.key(d, 'tm', ticker);
  }
  sessionLastPrices(d: string): string {
    return this.p.key(d, 'ul');
  }
  underlying(d: string, ticker: string): string {
    return this.p.key(d, 'u', ticker);
  }
  /** The 1-minute bars of every contract of the underlying: a block per expiration (PACKING.bars). */
  bars(d: string, ticker: string): string {
    return this.p.key(d, 'o', ticker);
  }
  osis(d: string): string {
    return this.p.key(d, 'osi');
  }
  atmExpirations(d: string, ticker: string): string {
    return this.p.key(d, 'ae', ticker);
  }
  atmIvs(d: string, ticker: string, expiration: string): string {
    return this.p.key(d, 'av', ticker, expiration);
  }
}

/** How a packed family splits its logical entries into blocks (packed.ts BlockFormat: value separator, stripped names). */
export interface Packing extends BlockFormat {
  /** The block (Redis hash field) holding a logical field. */
  blockOf(field: string): string;
}

const firstToken = (f: string): string => {
  const i = f.indexOf('|');
  return i < 0 ? f : f.slice(0, i);
};
/** The n-th '|'-separated token of f ('' past the end), without splitting the whole field. */
function nthToken(f: string, n: number): string {
  let from = 0;
  for (let i = 0; i < n; i++) {
    const at = f.indexOf('|', from);
    if (at < 0) return '';
    from = at + 1;
  }
  const to = f.indexOf('|', from);
  return to < 0 ? f.slice(from) : f.slice(from, to);
}

/**
 * The blocks of each packed family. A chunk rewrites the blocks it touches (packed.ts updateBlock
 * copies their unchanged entries as bytes), so a block is bounded by what one underlying (or
 * partition) trades in a minute, or in one expiration or exchange for the whole-session families
 * whose cells grow all session; the small whole-session families are one block.
 */
export const PACKING = {
  /** Cells whose field starts with the epoch minute: a block per minute, named by it. */
  minute: { valueSep: ',', stripFirst: true, blockOf: firstToken },
  /** Contract whole-session cells, by expiration (the third token: C|side|expiration|...). */
  expiration: { valueSep: ',', stripFirst: false, blockOf: (f: string) => nthToken(f, 2) },
  /** Coarse whole-session cells of the partition, by exchange (C|side|*|*|money|exchange|...). */
  exchange: { valueSep: ',', stripFirst: false, blockOf: (f: string) => nthToken(f, 5) },
  /** Small whole-session families: one block. */
  whole: { valueSep: ',', stripFirst: false, blockOf: (_f: string) => '0' },
  /** Last prices by epoch minute, a block per 30 minutes. */
  lastPrices: { valueSep: '|', stripFirst: false, blockOf: (f: string) => String(Math.floor(Number(f) / 30)) },
  /**
   * Bars of an underlying's contracts, a block per expiration: `C or P|strike|epoch minute` -> bar
   * (barField; the writer names the block).
   */
  bars: { valueSep: '|', stripFirst: false, blockOf: (f: string): string => f },
} satisfies Record<string, Packing>;

/**
 * The OSI index's block and field of an OSI symbol: the root and expiration (all but the last nine
 * characters) name the block, the type and strike (the last nine) the field; value: CONTRACT.
 */
export const osiBlock = (osi: string): string => osi.slice(0, Math.max(0, osi.length - 9));
export const osiField = (osi: string): string => osi.slice(Math.max(0, osi.length - 9));
export const OSI_PACKING: Packing = { valueSep: '|', stripFirst: false, blockOf: osiBlock };

/** A bar's field within its underlying's and expiration's block. */
export const barField = (contractType: 'CALL' | 'PUT', strikePrice: number, minute: string): string =>
  `${contractType === 'CALL' ? 'C' : 'P'}|${strikePrice}|${minute}`;

/** Key kinds of a session held per partition (keys.ts above): the warm tier moves them as they are. */
export const PARTITION_SESSION_KINDS = ['ms', 'mm', 'ns', 'nm', 'ps', 'xs', 'ul', 'osi'] as const;
/** Key kinds of a session held per underlying, `<D>:<kind>:<TICKER>` (ae is a zset, the rest hashes). */
export const TICKER_SESSION_KINDS = ['cs', 'cm', 'ks', 'km', 'ts', 'tm', 'u', 'o', 'ae'] as const;

/**
 * Every data key of session `d` of a partition but its underlyings' list (`<D>:tk`), given that
 * list and each underlying's expirations with at-the-money prints (`<D>:ae:<TICKER>`): what the
 * warm tier (warm.ts) replaces, packing those derived.ts does not fold from others. A new
 * per-session key family must be listed here (and, if it is a fold of another, in derived.ts).
 */
export function sessionDataKeys(k: FlowAggregateKeys, d: string, tickers: readonly string[], atmExpirations: ReadonlyMap<string, readonly string[]>): string[] {
  const out = PARTITION_SESSION_KINDS.map((kind) => k.p.key(d, kind));
  for (const t of tickers) {
    for (const kind of TICKER_SESSION_KINDS) out.push(k.p.key(d, kind, t));
    for (const e of atmExpirations.get(t) ?? []) out.push(k.atmIvs(d, t, e));
  }
  return out;
}
