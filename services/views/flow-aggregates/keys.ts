import type { PartitionKeys } from '../keys';

/**
 * The flow-aggregates view (projections/flow-aggregates), shared by the projector and the API.
 * Every key is under its partition's hash tag; data keys are per session D:
 *
 *   s                  zset (lex) session dates with prints in this partition (the table views' name,
 *                      so api/tables/view-state.ts viewSegments lists them)
 *   <D>:tk             zset (lex) underlyings with prints in session D
 *   <D>:cs:<TICKER>    hash  whole-session cells: dims -> "cents,prints,contracts" (cells.ts)
 *   <D>:cm:<TICKER>    hash  1-minute cells: minute|dims -> "cents,prints,contracts"
 *   <D>:ks:<TICKER>    hash  coarse whole-session cells (no expiration, no strike; cells.ts)
 *   <D>:km:<TICKER>    hash  coarse 1-minute cells
 *   <D>:ms, <D>:mm     hash  coarse whole-session and 1-minute cells of every underlying of the
 *                            partition together (whole-market answers that need no ticker)
 *   <D>:ns, <D>:nm     hash  net whole-session and 1-minute cells of the partition: contract type and
 *                            side only (whole-market answers that fold and filter by nothing else)
 *   <D>:ps             hash  premium-tier net whole-session cells of the partition: contract type, side
 *                            and premium tier (cells.ts premiumTier)
 *   <D>:xs             hash  exchange whole-session cells of the partition: contract type, side, exchange
 *                            and flags (market-share over the whole market)
 *   <D>:ts:<TICKER>    hash  ticker-net whole-session cells: contract type, side and what is constant per
 *                            underlying (sector, industry, flags)
 *   <D>:tm:<TICKER>    hash  ticker-net 1-minute cells
 *   <D>:ul             hash  underlying -> its session's last print's underlying price "time|rowKey|price"
 *   <D>:u:<TICKER>     hash  epoch minute -> the last print's underlying price "time|rowKey|price"
 *   <D>:o:<CONTRACT>   hash  epoch minute -> the contract's bar (cells.ts encodeBar); CONTRACT is
 *                            ticker|expiration|C or P|strike
 *   <D>:osi            hash  OSI symbol -> CONTRACT (finds a contract named by osi)
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
  contract(d: string, contract: string): string {
    return this.p.key(d, 'o', contract);
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
