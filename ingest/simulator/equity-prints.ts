import type { Instrument } from '../../services/domain/universe';
import { LIT_EQUITY_VENUES, OFF_EXCHANGE_VENUES } from '../../services/domain/venues';
import { compactDate, type SessionContext, type SimEvent } from './events';
import type { SessionPath } from './market';
import { type HaltWindow, haltWindows } from './notifications';
import { Rand } from './random';

/**
 * Equity prints (lit exchange trades and off-exchange TRF reports) of one instrument's session,
 * minute by minute. The trades of minute m come from their own stream (seed, 'equity', symbol,
 * date, m), so any minute can be generated alone and comes out the same however it is reached.
 *
 * Value sets and rates:
 * - Count per minute ~ Poisson(profile.equityPrintsPerMinute x printWeight(inst) x a U-shaped
 *   intraday factor normalised to mean 1: 4x the mean in the first minute, 3.5x in the last,
 *   0.6x at midday). printWeight mixes market cap and options interest, clamped to
 *   [0.25, 5]: SPY and the mega caps around 3-4, small caps 0.25-0.4. Cash indexes never trade.
 * - NBBO around path.priceAt(t): a whole number of cents, at least one; about 2.5 bps / weight^1.5
 *   (clamped 0.3-15 bps, x0.4 for ETFs) with noise and doubled in the first 10 minutes, so SPY and AAPL
 *   quote a cent or two wide, small caps several cents, $3 names a cent. Displayed sizes are
 *   round lots, exponentially distributed with a mean of about $60k x sqrt(weight) a side.
 * - Lit prints (LIT, venue by a weighted pick of LIT_EQUITY_VENUES, the listing exchange
 *   favoured): 85% at the bid or ask (leaning with the last 10 s of price movement), 15% inside
 *   the spread (a hidden or midpoint order: a cent inside, or the half-cent midpoint of a
 *   one-cent spread).
 * - Off-exchange prints (DARK_POOL, venue TRFN/TRFY/TRFC/ADF): 31% of prints, which with their
 *   larger sizes (more blocks) make 35-45% of share volume over a session (DARK_SHARE_OF_VOLUME;
 *   measured 37-43% on dev and full sessions). 45% at the exact midpoint, 40% with sub-penny
 *   price improvement (4 decimals, $0.0001 up to half the spread inside the bid or ask), 15% at
 *   the bid or ask. Never outside [bid, ask].
 * - Sizes: odd lots (1-99 shares) from 10% of prints for cheap names to 50% for high-priced ones
 *   (x1.2 in the dark: retail internalisation), round lots with a Pareto(1.8) tail, 15% mixed
 *   lots, and blocks of 10,000+ shares (Pareto(2.2) above 10k, capped at 250k) for 0.1% of lit
 *   and 0.6% of dark prints. Share counts scale up for cheap stocks (x sqrt($50 / price)).
 * - Opening and closing auctions: one print on the listing exchange at 09:30:00.000 at the
 *   day's open and one at the close instant at the day's close (reported in the last minute),
 *   so the tape reproduces the daily series; about 2% and 7% of the continuous volume.
 * - Delayed prints (isDelayedPrint, reportTime 10-90 s after the trade): 1.2% of dark and 0.5%
 *   of lit prints, about 0.75% overall (DELAYED_SHARE_OF_PRINTS 0.5%-1%); only when the report
 *   still falls inside the session.
 * - Halts: no trades while the instrument is halted or paused (haltWindows: LULD pauses, news
 *   halts, market-wide circuit breakers...), so the tape matches the exchange notifications.
 *
 * Condition codes (conditions[]): '@' regular sale, 'I' odd lot, 'Z' sold out of sequence (late
 * report, always on delayed prints, with 'I' when also an odd lot), 'O' opening auction print,
 * '6' closing auction print.
 *
 * ids: E-<yyyymmdd>-<symbol>-<trade minute>-<n>, n the trade's rank within its minute.
 */

export const CONDITION = { REGULAR: '@', ODD_LOT: 'I', LATE: 'Z', OPENING: 'O', CLOSING: '6' } as const;
/** Documented range of the off-exchange share of a session's volume (over a few symbols). */
export const DARK_SHARE_OF_VOLUME: readonly [number, number] = [0.35, 0.45];
/** Documented range of the share of prints reported late. */
export const DELAYED_SHARE_OF_PRINTS: readonly [number, number] = [0.005, 0.01];
export const REPORT_DELAY_MS: readonly [number, number] = [10_000, 90_000];

const MINUTE = 60_000;
const DARK_PROBABILITY = 0.31;
const DELAYED_DARK = 0.012;
const DELAYED_LIT = 0.005;
const BLOCK_LIT = 0.001;
const BLOCK_DARK = 0.006;
/** Auction volume as a share of the continuous session's (closing auctions are the big one). */
const OPENING_AUCTION_SHARE = 0.02;
const CLOSING_AUCTION_SHARE = 0.07;
/** Minutes back a delayed print can come from (90 s delay reaches two minutes on). */
const LOOKBACK = 2;

// Shared, frozen condition lists: one allocation per kind instead of one per print.
const C_REGULAR: readonly string[] = Object.freeze([CONDITION.REGULAR]);
const C_ODD: readonly string[] = Object.freeze([CONDITION.ODD_LOT]);
const C_LATE: readonly string[] = Object.freeze([CONDITION.LATE]);
const C_LATE_ODD: readonly string[] = Object.freeze([CONDITION.LATE, CONDITION.ODD_LOT]);
const C_OPEN: readonly string[] = Object.freeze([CONDITION.OPENING]);
const C_CLOSE: readonly string[] = Object.freeze([CONDITION.CLOSING]);

/** Approximate shares of lit volume by venue (US consolidated tape, recent years). */
const LIT_VENUE_WEIGHTS: Readonly<Record<keyof typeof LIT_EQUITY_VENUES, number>> = {
  NASDAQ: 14,
  NYSE: 11,
  ARCA: 8,
  EDGX: 7,
  BZX: 6,
  MEMX: 5,
  IEX: 3,
  EDGA: 1.5,
  BYX: 1.5,
  BX: 1,
  PSX: 0.7,
  CHX: 0.5,
  NSX: 0.5,
  MIAX: 0.5,
  AMEX: 0.3,
  LTSE: 0.05,
};
const DARK_VENUE_WEIGHTS: Readonly<Record<keyof typeof OFF_EXCHANGE_VENUES, number>> = { TRFN: 55, TRFY: 28, TRFC: 15, ADF: 2 };
/** The listing exchange's lit venue code (auctions print there, and it draws more flow). */
const LISTING_VENUE: Readonly<Record<string, keyof typeof LIT_EQUITY_VENUES>> = { NYSE: 'NYSE', NASDAQ: 'NASDAQ', NYSEARCA: 'ARCA', AMEX: 'AMEX' };

// Local aliases of Math: these run several times per print, and inside jest's vm sandbox every
// lookup of the global Math costs about 100x more than a module binding.
const { ceil, exp, floor, log, log10, max, min, pow, round, sqrt } = Math;

const clamp = (x: number, lo: number, hi: number) => min(hi, max(lo, x));

/** Pareto draw over one uniform of the stream (minimum xm, tail index 1 / invAlpha). */
const pareto = (r: Rand, xm: number, invAlpha: number) => xm / pow(1 - r.next(), invAlpha);

/** Relative print activity: market cap and options interest, mega caps and SPY ~10x a small cap. */
export function printWeight(inst: Instrument): number {
  if (inst.isIndex) return 0;
  const cap = pow(inst.marketCap / 5e10, 0.35);
  const interest = pow(inst.optionsActivityWeight / 5, 0.4);
  return clamp(0.5 * cap + 0.5 * interest, 0.25, 5);
}

const intradayCache = new Map<number, Float64Array>();

/** U-shaped activity by minute of the session, mean 1: heavy at the open, heavy into the close. */
export function intradayFactors(minutes: number): Float64Array {
  let f = intradayCache.get(minutes);
  if (f) return f;
  f = new Float64Array(minutes);
  let sum = 0;
  for (let m = 0; m < minutes; m++) {
    const x = (m + 0.5) / minutes;
    f[m] = 0.6 + 0.8 * (2 * x - 1) ** 2 + 2.5 * exp(-m / 8) + 2 * exp(-(minutes - 1 - m) / 10);
    sum += f[m];
  }
  for (let m = 0; m < minutes; m++) f[m] *= minutes / sum;
  intradayCache.set(minutes, f);
  return f;
}

function cumulative(weights: readonly number[]): Float64Array {
  const c = new Float64Array(weights.length);
  let s = 0;
  for (let i = 0; i < weights.length; i++) c[i] = s += weights[i];
  return c;
}

export class EquityPrintGenerator {
  /** Minutes in the session; reportedInMinute accepts 0 .. minutes - 1. */
  readonly minutes: number;
  private readonly symbol: string;
  private readonly idPrefix: string;
  private readonly meanPerMinute: Float64Array;
  private readonly halts: readonly HaltWindow[];
  private readonly litVenues: readonly string[];
  private readonly litCumulative: Float64Array;
  private readonly darkVenues: readonly string[];
  private readonly darkCumulative: Float64Array;
  private readonly listingVenue: string;
  private readonly weight: number;
  private readonly spreadBps: number;
  private readonly oddLot: number;
  private readonly sizeScale: number;
  private readonly displayMeanShares: number;
  private readonly prices: Float64Array;
  /** Expected shares of the continuous session, which auction sizes are a share of. */
  private readonly sessionShares: number;
  /** The NBBO of the print being built, in cents (scratch, so quoting allocates nothing). */
  private bidC = 0;
  private askC = 0;
  /** Trades by trade minute, the last few kept because callers walk minute by minute. */
  private readonly byTradeMinute = new Map<number, SimEvent[]>();

  constructor(
    private readonly ctx: SessionContext,
    private readonly inst: Instrument,
    private readonly path: SessionPath,
  ) {
    this.minutes = ceil((path.closeMs - path.openMs) / MINUTE);
    this.prices = path.prices;
    this.symbol = inst.symbol;
    this.idPrefix = `E-${compactDate(ctx.date)}-${inst.symbol}-`;
    this.weight = printWeight(inst);
    const factors = intradayFactors(this.minutes);
    this.meanPerMinute = factors.map((f) => f * ctx.profile.equityPrintsPerMinute * this.weight);
    this.halts = inst.isIndex ? [] : haltWindows(ctx, inst);
    this.listingVenue = LISTING_VENUE[inst.exchange] ?? 'NASDAQ';
    this.litVenues = Object.keys(LIT_VENUE_WEIGHTS);
    // The listing exchange draws about twice its usual share of the lit flow.
    this.litCumulative = cumulative(this.litVenues.map((v) => LIT_VENUE_WEIGHTS[v as keyof typeof LIT_VENUE_WEIGHTS] * (v === this.listingVenue ? 2 : 1)));
    this.darkVenues = Object.keys(DARK_VENUE_WEIGHTS);
    this.darkCumulative = cumulative(this.darkVenues.map((v) => DARK_VENUE_WEIGHTS[v as keyof typeof DARK_VENUE_WEIGHTS]));
    // ETFs quote tighter than stocks of the same activity: arbitrage keeps them near their NAV.
    this.spreadBps = clamp(2.5 / pow(this.weight, 1.5), 0.3, 15) * (inst.isETF ? 0.4 : 1);
    const ref = max(1, path.open);
    // Odd lots: about 10% of prints for a $5 stock, 50% above $500 (expensive shares trade in pieces).
    this.oddLot = clamp(0.12 + 0.18 * log10(ref / 5), 0.1, 0.5);
    // Cheap shares trade in bigger share counts.
    this.sizeScale = clamp(sqrt(50 / ref), 0.5, 5);
    this.displayMeanShares = (60_000 * sqrt(this.weight)) / max(0.5, path.open);
    // Expected continuous volume (mean round-lot count of the size law is about 1.9).
    const meanSize = (1 - this.oddLot) * 190 * this.sizeScale + this.oddLot * 50;
    this.sessionShares = this.meanPerMinute.reduce((a, b) => a + b, 0) * meanSize;
  }

  /** Prints whose reportTime falls in the minute (0 = the first minute after the open), sorted by (reportTime, id). */
  reportedInMinute(minute: number): SimEvent[] {
    if (!Number.isInteger(minute) || minute < 0 || minute >= this.minutes) throw new RangeError(`minute ${minute} is outside 0..${this.minutes - 1}`);
    const out: SimEvent[] = [];
    for (let k = max(0, minute - LOOKBACK); k <= minute; k++) {
      for (const e of this.tradesOf(k)) if (this.reportMinute(e.time) === minute) out.push(e);
    }
    return out.sort(byTimeThenId);
  }

  private reportMinute(reportTime: number): number {
    // The closing auction prints at the close instant and belongs to the last minute.
    return min(this.minutes - 1, floor((reportTime - this.path.openMs) / MINUTE));
  }

  /** The trades executed in a minute (memoised for the last few minutes). */
  private tradesOf(minute: number): SimEvent[] {
    let t = this.byTradeMinute.get(minute);
    if (!t) {
      t = this.generate(minute);
      this.byTradeMinute.set(minute, t);
      if (this.byTradeMinute.size > LOOKBACK + 2) this.byTradeMinute.delete(this.byTradeMinute.keys().next().value as number);
    }
    return t;
  }

  private halted(t: number): boolean {
    for (const h of this.halts) if (t >= h.start && t < h.end) return true;
    return false;
  }

  private generate(minute: number): SimEvent[] {
    const out: SimEvent[] = [];
    if (this.inst.isIndex) return out;
    const r = Rand.of(this.ctx.seed, 'equity', this.symbol, this.ctx.date, minute);
    const start = this.path.openMs + minute * MINUTE;
    const end = min(start + MINUTE, this.path.closeMs);
    const count = r.poisson(this.meanPerMinute[minute] * ((end - start) / MINUTE));
    const times = new Float64Array(count);
    for (let i = 0; i < count; i++) times[i] = start + floor(r.next() * (end - start));
    times.sort();
    let n = 0;
    if (minute === 0 && !this.halted(start)) out.push(this.auction(r, start, this.path.open, n++, C_OPEN, OPENING_AUCTION_SHARE));
    for (let i = 0; i < count; i++) {
      const t = times[i];
      if (this.halted(t)) continue;
      out.push(this.trade(r, t, minute, n++));
    }
    if (minute === this.minutes - 1 && !this.halted(this.path.closeMs))
      out.push(this.auction(r, this.path.closeMs, this.path.close, n++, C_CLOSE, CLOSING_AUCTION_SHARE));
    return out;
  }

  /** An opening or closing auction print on the listing exchange at the daily open or close. */
  private auction(r: Rand, t: number, price: number, n: number, conditions: readonly string[], shareOfDay: number): SimEvent {
    this.quote(r, t, price);
    const lots = max(1, round((this.sessionShares * shareOfDay * r.lognormal(0, 0.3)) / 100));
    return this.emit(r, t, t, this.reportMinute(t), n, price, lots * 100, this.listingVenue, 'LIT', false, conditions);
  }

  private trade(r: Rand, t: number, minute: number, n: number): SimEvent {
    const mid = this.priceAt(t);
    this.quote(r, t, mid);
    const dark = r.next() < DARK_PROBABILITY;
    // Buyers lift the ask more often while the price is rising, sellers hit the bid when falling.
    const price = dark ? darkPrice(r, this.bidC, this.askC) : litPrice(r, this.bidC, this.askC, mid - this.priceAt(t - 10_000));
    const size = this.tradeSize(r, dark);
    const delayed = r.next() < (dark ? DELAYED_DARK : DELAYED_LIT);
    const reportTime = delayed ? t + r.int(REPORT_DELAY_MS[0], REPORT_DELAY_MS[1]) : t;
    // A late report must still fall inside the session, where the minutes are.
    const late = delayed && reportTime < this.path.closeMs;
    const odd = size < 100;
    const conditions = late ? (odd ? C_LATE_ODD : C_LATE) : odd ? C_ODD : C_REGULAR;
    const venue = dark ? this.darkVenues[r.pickCumulative(this.darkCumulative)] : this.litVenues[r.pickCumulative(this.litCumulative)];
    return this.emit(r, t, late ? reportTime : t, minute, n, price, size, venue, dark ? 'DARK_POOL' : 'LIT', late, conditions);
  }

  /** Sets the NBBO (bidC, askC, in cents) around mid: whole cents, at least one apart. */
  private quote(r: Rand, t: number, mid: number): void {
    const openingWide = t < this.path.openMs + 10 * MINUTE ? 2 : 1;
    const ticks = max(1, round(((mid * this.spreadBps) / 100) * openingWide * (0.6 + 0.8 * r.next())));
    this.bidC = max(1, round(mid * 100 - ticks / 2));
    this.askC = this.bidC + ticks;
  }

  /** The print event, with the NBBO last set by quote(). */
  private emit(
    r: Rand,
    t: number,
    reportTime: number,
    minute: number,
    n: number,
    price: number,
    size: number,
    venue: string,
    printType: 'LIT' | 'DARK_POOL',
    isDelayedPrint: boolean,
    conditions: readonly string[],
  ): SimEvent {
    return {
      type: 'equity-print',
      time: reportTime,
      data: {
        id: this.idPrefix + minute + '-' + n,
        ticker: this.symbol,
        time: t,
        reportTime,
        price,
        size,
        venue,
        printType,
        bidPrice: this.bidC / 100,
        askPrice: this.askC / 100,
        bidSize: this.displayLots(r) * 100,
        askSize: this.displayLots(r) * 100,
        isDelayedPrint,
        conditions,
      },
    };
  }

  /** Displayed round lots on one side of the NBBO: exponential, mean about $60k x sqrt(weight). */
  private displayLots(r: Rand): number {
    const shares = -this.displayMeanShares * log(1 - r.next());
    return min(100_000, max(1, round(shares / 100)));
  }

  /** path.priceAt, on the module's Math aliases (it runs twice a print). */
  private priceAt(ms: number): number {
    const t = floor((ms - this.path.openMs) / 1000);
    return this.prices[max(0, min(this.prices.length - 1, t))];
  }

  /** Heavy-tailed trade size: odd lots, round lots, mixed lots, occasional 10k+ blocks. */
  private tradeSize(r: Rand, dark: boolean): number {
    if (r.next() < (dark ? BLOCK_DARK : BLOCK_LIT)) return min(250_000, round(pareto(r, 100, 1 / 2.2)) * 100);
    if (r.next() < this.oddLot * (dark ? 1.2 : 1)) return r.int(1, 99);
    const lots = max(1, round(min(200, floor(pareto(r, 1, 1 / 1.8))) * this.sizeScale));
    return lots * 100 + (r.next() < 0.15 ? r.int(1, 99) : 0);
  }
}

/** A lit print: at the bid or ask (leaning with the trend), sometimes inside the spread (hidden or midpoint liquidity). */
function litPrice(r: Rand, bidC: number, askC: number, trend: number): number {
  const u = r.next();
  if (u < 0.15) {
    const ticks = askC - bidC;
    return ticks >= 2 ? (bidC + r.int(1, ticks - 1)) / 100 : (bidC + askC) / 200;
  }
  const pAsk = trend > 0 ? 0.6 : trend < 0 ? 0.4 : 0.5;
  return r.next() < pAsk ? askC / 100 : bidC / 100;
}

/** An off-exchange print: midpoint, sub-penny improvement inside the NBBO, or at the NBBO. */
function darkPrice(r: Rand, bidC: number, askC: number): number {
  const u = r.next();
  if (u < 0.45) return (bidC + askC) / 200;
  const buyer = r.next() < 0.5;
  if (u < 0.85) {
    // In units of $0.0001: at most half the spread, so the price stays inside [bid, ask].
    const improvement = r.int(1, min(99, (askC - bidC) * 50));
    return buyer ? (askC * 100 - improvement) / 10_000 : (bidC * 100 + improvement) / 10_000;
  }
  return buyer ? askC / 100 : bidC / 100;
}

function byTimeThenId(a: SimEvent, b: SimEvent): number {
  if (a.time !== b.time) return a.time - b.time;
  const x = a.data.id as string;
  const y = b.data.id as string;
  return x < y ? -1 : x > y ? 1 : 0;
}
