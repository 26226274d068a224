import { LocalDate, sessionBounds, tradingDaysBetween } from '../../services/domain/calendar';
import type { Instrument } from '../../services/domain/universe';
import { Rand } from './random';

/**
 * The price and volatility model. Daily closes follow a mean-reverting log process driven by a
 * market factor (fat-tailed, shared by every symbol) and an idiosyncratic part, so closes stay
 * near each instrument's typical price over years and move together on market days. A session
 * opens with a gap from the previous close and travels to its close along a per-second Brownian
 * bridge with jumps, correlated with the market's own intraday path. The at-the-money implied
 * volatility level rises when the market falls (the leverage effect).
 *
 * Every value is a pure function of (seed, trading day, symbol): the whole history is iterated
 * once from a fixed anchor date and cached, so the close of a given day never depends on which
 * day was asked for first.
 */

export const HISTORY_ANCHOR: LocalDate = '2022-01-03';
const HISTORY_END: LocalDate = '2029-12-31';
export const TRADING_DAYS: readonly LocalDate[] = tradingDaysBetween(HISTORY_ANCHOR, HISTORY_END);
const DAY_INDEX = new Map(TRADING_DAYS.map((d, i) => [d, i]));

export function dayIndex(d: LocalDate): number {
  const i = DAY_INDEX.get(d);
  if (i === undefined) throw new RangeError(`${d} is not an NYSE trading day between ${HISTORY_ANCHOR} and ${HISTORY_END}`);
  return i;
}

/** Index of the first trading day on or after d (d may be a weekend or holiday). */
export function dayIndexOnOrAfter(d: LocalDate): number {
  let lo = 0;
  let hi = TRADING_DAYS.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (TRADING_DAYS[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const MARKET_SIGMA = 0.011;
const MARKET_DRIFT = 0.0003;
const TRADING_DAYS_PER_YEAR = 252;
const REVERSION = 0.012;
const DEFENSIVE = new Set(['GLD', 'SLV', 'TLT', 'GDX', 'USO', 'HYG', 'LQD', 'IBIT']);

/** Correlation of an instrument's returns with the market factor. */
export function marketCorrelation(i: Instrument): number {
  if (i.symbol === 'VIX') return -0.8;
  if (DEFENSIVE.has(i.symbol)) return 0.2;
  if (i.isIndex || i.isETF) return 0.9;
  return 0.55;
}

export function dailySigma(i: Instrument): number {
  return i.annualVolatility / Math.sqrt(TRADING_DAYS_PER_YEAR);
}

export interface DailySeries {
  /** Close of each trading day (index as TRADING_DAYS). */
  close: Float64Array;
  open: Float64Array;
  /** Close-to-close log return. */
  ret: Float64Array;
  /** At-the-money implied volatility level at the close. */
  atmIv: Float64Array;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

export class MarketModel {
  private marketReturns: Float64Array | null = null;
  private readonly daily = new Map<string, DailySeries>();

  constructor(readonly seed: number) {}

  /** The market factor's daily returns (fat tails: 5% of days three times as wide). */
  private market(): Float64Array {
    if (!this.marketReturns) {
      const r = Rand.of(this.seed, 'market-daily');
      const m = new Float64Array(TRADING_DAYS.length);
      for (let i = 0; i < m.length; i++) m[i] = MARKET_DRIFT + MARKET_SIGMA * r.fatNormal();
      this.marketReturns = m;
    }
    return this.marketReturns;
  }

  series(inst: Instrument): DailySeries {
    let s = this.daily.get(inst.symbol);
    if (s) return s;
    const m = this.market();
    const n = TRADING_DAYS.length;
    const rho = marketCorrelation(inst);
    const sd = dailySigma(inst);
    const beta = (rho * sd) / MARKET_SIGMA;
    const idio = sd * Math.sqrt(1 - rho * rho);
    const kappa = inst.symbol === 'VIX' ? 0.06 : REVERSION;
    const r = Rand.of(this.seed, 'daily', inst.symbol);
    const close = new Float64Array(n);
    const open = new Float64Array(n);
    const ret = new Float64Array(n);
    const atmIv = new Float64Array(n);
    let y = 0.12 * r.normal();
    let v = 0.15 * r.normal();
    let prev = inst.typicalPrice * Math.exp(y);
    for (let i = 0; i < n; i++) {
      const shock = beta * (m[i] - MARKET_DRIFT) + idio * r.fatNormal() + 0.0002;
      const yNext = (1 - kappa) * y + shock;
      const c = Math.max(0.5, round2(inst.typicalPrice * Math.exp(yNext)));
      // Part of the day's move happens overnight: the open gaps from the previous close.
      const gap = 0.3 * (yNext - y) + 0.15 * sd * r.normal();
      open[i] = Math.max(0.5, round2(prev * Math.exp(gap)));
      close[i] = c;
      ret[i] = Math.log(c / prev);
      // Volatility mean-reverts and jumps up when the market sells off.
      v = 0.9 * v + 0.05 * r.normal() - ((4 * (m[i] - MARKET_DRIFT)) / MARKET_SIGMA) * 0.02;
      atmIv[i] = Math.min(4 * inst.annualVolatility, Math.max(0.4 * inst.annualVolatility, inst.annualVolatility * Math.exp(v)));
      y = yNext;
      prev = c;
    }
    s = { close, open, ret, atmIv };
    this.daily.set(inst.symbol, s);
    return s;
  }

  /** Close of the trading day before `day` (its reference price). */
  previousClose(inst: Instrument, day: number): number {
    const s = this.series(inst);
    return day > 0 ? s.close[day - 1] : s.open[0];
  }

  /** The market's intraday path (cumulative log moves per second) for one session. */
  private marketIntraday(date: LocalDate, seconds: number): Float64Array {
    const r = Rand.of(this.seed, 'market-intraday', date);
    const w = new Float64Array(seconds + 1);
    const s = (MARKET_SIGMA * 0.8) / Math.sqrt(seconds);
    for (let t = 1; t <= seconds; t++) w[t] = w[t - 1] + s * r.normal();
    return w;
  }

  /**
   * The session's price jumps: rare, larger for volatile names. They are decided from daily-level
   * data only, so daily-level generators (notifications, news) know of them without building the
   * per-second path, and the path then contains exactly these jumps.
   */
  jumps(inst: Instrument, date: LocalDate): Jump[] {
    const bounds = sessionBounds(date);
    if (!bounds) return [];
    const seconds = Math.round((bounds.close - bounds.open) / 1000);
    const sd = dailySigma(inst);
    const r = Rand.of(this.seed, 'jumps', inst.symbol, date);
    const count = r.poisson(inst.isIndex || inst.isETF ? 0.03 : 0.12 * Math.min(3, inst.annualVolatility / 0.3));
    const out: Jump[] = [];
    for (let j = 0; j < count; j++) {
      const logMove = (r.bool(0.5) ? 1 : -1) * (2 + 4 * r.next()) * sd;
      const atSec = r.int(60, seconds - 60);
      out.push({ atSec, atMs: bounds.open + atSec * 1000, logMove });
    }
    return out.sort((a, b) => a.atSec - b.atSec);
  }

  private readonly intradayCache = new Map<string, Float64Array>();

  /**
   * Per-second prices of one session: index t is the price at open + t seconds, index 0 the open
   * and the last index the close. A Brownian bridge pins both ends to the daily series.
   */
  sessionPath(inst: Instrument, date: LocalDate): SessionPath {
    const bounds = sessionBounds(date);
    if (!bounds) throw new RangeError(`${date} is not a trading day`);
    const day = dayIndex(date);
    const seconds = Math.round((bounds.close - bounds.open) / 1000);
    const key = `${date}`;
    let mkt = this.intradayCache.get(key);
    if (!mkt) {
      this.intradayCache.clear();
      mkt = this.marketIntraday(date, seconds);
      this.intradayCache.set(key, mkt);
    }
    const series = this.series(inst);
    const rho = marketCorrelation(inst);
    const sd = dailySigma(inst);
    const beta = (rho * sd) / MARKET_SIGMA;
    const idio = (sd * 0.8 * Math.sqrt(1 - rho * rho)) / Math.sqrt(seconds);
    const r = Rand.of(this.seed, 'intraday', inst.symbol, date);
    const w = new Float64Array(seconds + 1);
    const jumpAt = new Map<number, number>();
    for (const j of this.jumps(inst, date)) jumpAt.set(j.atSec, (jumpAt.get(j.atSec) ?? 0) + j.logMove);
    for (let t = 1; t <= seconds; t++) {
      w[t] = w[t - 1] + beta * (mkt[t] - mkt[t - 1]) + idio * r.normal() + (jumpAt.get(t) ?? 0);
    }
    const lo = Math.log(series.open[day]);
    const lc = Math.log(series.close[day]);
    const end = w[seconds];
    const prices = new Float64Array(seconds + 1);
    for (let t = 0; t <= seconds; t++) {
      const x = lo + w[t] - (t / seconds) * (end - (lc - lo));
      prices[t] = Math.max(0.01, round2(Math.exp(x)));
    }
    prices[0] = series.open[day];
    prices[seconds] = series.close[day];
    const ivOpen = day > 0 ? series.atmIv[day - 1] : series.atmIv[0];
    return new SessionPath(inst, date, bounds.open, bounds.close, prices, ivOpen, series.atmIv[day]);
  }
}

export interface Jump {
  /** seconds after the open */
  atSec: number;
  atMs: number;
  /** log price move at that second */
  logMove: number;
}

export class SessionPath {
  constructor(
    readonly inst: Instrument,
    readonly date: LocalDate,
    readonly openMs: number,
    readonly closeMs: number,
    /** one price per second, open at index 0, close at the last index */
    readonly prices: Float64Array,
    private readonly ivOpen: number,
    private readonly ivClose: number,
  ) {}

  get seconds(): number {
    return this.prices.length - 1;
  }

  get open(): number {
    return this.prices[0];
  }

  get close(): number {
    return this.prices[this.prices.length - 1];
  }

  /** Price in effect at an instant (the last per-second price at or before it). */
  priceAt(ms: number): number {
    const t = Math.floor((ms - this.openMs) / 1000);
    return this.prices[Math.max(0, Math.min(this.prices.length - 1, t))];
  }

  /**
   * At-the-money implied volatility at an instant: the open-to-close drift of the level, plus an
   * intraday response to the underlying (down moves lift volatility).
   */
  atmIvAt(ms: number): number {
    const f = Math.max(0, Math.min(1, (ms - this.openMs) / (this.closeMs - this.openMs)));
    const base = this.ivOpen + (this.ivClose - this.ivOpen) * f;
    const move = Math.log(this.priceAt(ms) / this.open);
    // Volatility of VIX itself rises with VIX; for everything else it rises as prices fall.
    const iv = base * Math.exp(this.inst.symbol === 'VIX' ? 1.5 * move : -3 * move);
    return Math.min(4 * this.inst.annualVolatility, Math.max(0.3 * this.inst.annualVolatility, iv));
  }

  /** Largest absolute log move over any window of `windowSec` seconds, with the time it ended. */
  largestMove(windowSec: number): { move: number; atMs: number } {
    let best = 0;
    let at = this.openMs;
    for (let t = windowSec; t < this.prices.length; t += 5) {
      const m = Math.log(this.prices[t] / this.prices[t - windowSec]);
      if (Math.abs(m) > Math.abs(best)) {
        best = m;
        at = this.openMs + t * 1000;
      }
    }
    return { move: best, atMs: at };
  }
}
