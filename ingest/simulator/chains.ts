import { fromDayNumber, isTradingDay, optionExpiryMs, previousTradingDay, toDayNumber, type LocalDate } from '../../services/domain/calendar';
import type { Instrument } from '../../services/domain/universe';
import { osiSymbol } from '../../services/domain/osi';
import { dailySigma, dayIndexOnOrAfter, MarketModel } from './market';
import type { Profile } from './profiles';
import { seedOf } from './random';

/**
 * Listed option chains. An expiration belongs to a family (daily, weekly, monthly, quarterly,
 * LEAPS) with a listing horizon: it is listed from the first trading day within `horizon`
 * calendar days of it until it expires. Its strike grid is fixed when it is listed — centred on
 * the previous close, as wide as the volatility over its life suggests, at the exchange's
 * spacing — so a contract exists on every day of its life and its open interest has a history.
 */

export type Family = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'LEAPS';
export type Right = 'CALL' | 'PUT';

export interface Contract {
  /** 21-character OSI symbol: root padded to 6, yymmdd, C/P, strike x 1000 padded to 8 */
  osi: string;
  ticker: string;
  expiration: LocalDate;
  strike: number;
  right: Right;
  family: Family;
  /** epoch-ms of expiry (16:00 ET on the expiration date), cached: pricing needs it per quote */
  expiryMs: number;
  /** trading-day index of the first day listed / of the expiration day */
  firstDay: number;
  expDay: number;
  /** reference price the grid was centred on */
  reference: number;
  /** open-interest scale in contracts */
  scale: number;
  /** traded on several exchanges (sweeps possible); cash-index options are single-listed */
  multiListed: boolean;
  /** per-contract phases of the open-interest wiggle */
  phase1: number;
  phase2: number;
}

/** Symbols with expirations every trading day (0DTE). */
const DAILY_SYMBOLS = new Set(['SPY', 'QQQ', 'IWM', 'SPX', 'NDX']);
/** Cash indexes whose options list only on their home exchange. */
const SINGLE_LISTED = new Set(['SPX', 'NDX', 'RUT', 'VIX']);
/** PM-settled weekly/daily roots of index options; monthlies keep the index root. */
const WEEKLY_ROOTS: Record<string, string> = { SPX: 'SPXW', NDX: 'NDXP', RUT: 'RUTW' };

const FAMILY_FACTOR: Record<Family, number> = { DAILY: 0.5, WEEKLY: 0.8, MONTHLY: 1.5, QUARTERLY: 1.0, LEAPS: 0.7 };
/** Trading days for open interest to build up after listing. */
export const FAMILY_RAMP: Record<Family, number> = { DAILY: 1.5, WEEKLY: 4, MONTHLY: 12, QUARTERLY: 20, LEAPS: 30 };

/** A Friday expiration moves to the previous trading day when the Friday is a holiday. */
function adjust(d: LocalDate): LocalDate {
  return isTradingDay(d) ? d : previousTradingDay(d);
}
function thirdFriday(year: number, month: number): LocalDate {
  const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
  const day = 1 + ((5 - first + 7) % 7) + 14;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
function lastTradingDayOfMonth(year: number, month: number): LocalDate {
  return adjust(fromDayNumber(toDayNumber(`${year}-${String(month).padStart(2, '0')}-01`) + new Date(Date.UTC(year, month, 0)).getUTCDate() - 1));
}

function baseSpacing(inst: Instrument, ref: number): number {
  if (inst.symbol === 'SPX' || inst.symbol === 'RUT') return 5;
  if (inst.symbol === 'NDX') return 10;
  if (['SPY', 'QQQ', 'IWM', 'DIA', 'VIX'].includes(inst.symbol)) return 1;
  const active = inst.optionsActivityWeight >= 3;
  if (ref < 5) return 0.5;
  if (ref < 25) return active ? 0.5 : 1;
  if (ref < 100) return active ? 1 : 2.5;
  if (ref < 300) return active ? 2.5 : 5;
  if (ref < 1000) return active ? 5 : 10;
  return active ? 10 : 25;
}
const WIDER = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250];
function widen(sp: number): number {
  return WIDER.find((w) => w > sp) ?? sp * 2;
}

export class ChainBook {
  private readonly byExpiration = new Map<string, Contract[]>();
  private readonly byDay = new Map<string, Contract[]>();

  constructor(
    private readonly model: MarketModel,
    private readonly profile: Profile,
  ) {}

  private families(inst: Instrument): { family: Family; horizon: number }[] {
    const h = this.profile.horizons;
    const out: { family: Family; horizon: number }[] = [];
    if (DAILY_SYMBOLS.has(inst.symbol) && h.daily) out.push({ family: 'DAILY', horizon: h.daily });
    if (inst.optionsActivityWeight >= 1 && h.weekly) out.push({ family: 'WEEKLY', horizon: h.weekly });
    out.push({ family: 'MONTHLY', horizon: inst.optionsActivityWeight >= 2 ? h.monthlyActive : h.monthly });
    if ((inst.isIndex || (inst.isETF && inst.optionsActivityWeight >= 10)) && h.quarterly) out.push({ family: 'QUARTERLY', horizon: h.quarterly });
    if (inst.optionsActivityWeight >= 3 && h.leaps) out.push({ family: 'LEAPS', horizon: h.leaps });
    return out;
  }

  /** Expirations listed on trading day `date`, ascending, each with its family and horizon. */
  expirations(inst: Instrument, date: LocalDate): { expiration: LocalDate; family: Family; horizon: number }[] {
    const d0 = toDayNumber(date);
    const start = new Date(`${date}T00:00:00Z`);
    const found = new Map<LocalDate, { family: Family; horizon: number }>();
    const add = (e: LocalDate, family: Family, horizon: number) => {
      const n = toDayNumber(e);
      if (n < d0 || n > d0 + horizon) return;
      const prev = found.get(e);
      if (!prev || prev.horizon < horizon) found.set(e, { family, horizon });
    };
    for (const { family, horizon } of this.families(inst)) {
      if (family === 'DAILY') {
        for (let n = d0; n <= d0 + horizon; n++) if (isTradingDay(fromDayNumber(n))) add(fromDayNumber(n), family, horizon);
      } else if (family === 'WEEKLY') {
        const dow = start.getUTCDay();
        for (let n = d0 + ((5 - dow + 7) % 7); n <= d0 + horizon + 7; n += 7) add(adjust(fromDayNumber(n)), family, horizon);
      } else {
        for (let m = 0; m <= Math.ceil(horizon / 28) + 1; m++) {
          const y = start.getUTCFullYear() + Math.floor((start.getUTCMonth() + m) / 12);
          const mo = ((start.getUTCMonth() + m) % 12) + 1;
          if (family === 'MONTHLY') add(adjust(thirdFriday(y, mo)), family, horizon);
          else if (family === 'QUARTERLY' && mo % 3 === 0) add(lastTradingDayOfMonth(y, mo), family, horizon);
          else if (family === 'LEAPS' && mo === 1) add(adjust(thirdFriday(y, mo)), family, horizon);
        }
      }
    }
    return [...found.entries()].map(([expiration, v]) => ({ expiration, ...v })).sort((a, b) => (a.expiration < b.expiration ? -1 : 1));
  }

  /** Every contract of one expiration, fixed for its whole life. */
  contractsOf(inst: Instrument, expiration: LocalDate, family: Family, horizon: number): Contract[] {
    const key = `${inst.symbol}|${expiration}`;
    let list = this.byExpiration.get(key);
    if (list) return list;
    const firstDay = dayIndexOnOrAfter(fromDayNumber(toDayNumber(expiration) - horizon));
    const expDay = dayIndexOnOrAfter(expiration);
    const reference = this.model.previousClose(inst, firstDay);
    const sd = dailySigma(inst) * Math.sqrt(252);
    const band = Math.min(0.7, Math.max(horizon < 14 ? 0.06 : 0.1, 2.2 * sd * Math.sqrt(horizon / 365)));
    let sp = baseSpacing(inst, reference);
    const count = (s: number) => Math.floor((reference * Math.exp(band)) / s) - Math.ceil((reference * Math.exp(-band)) / s) + 1;
    while (count(sp) > this.profile.maxStrikes) sp = widen(sp);
    const lo = Math.max(1, Math.ceil((reference * Math.exp(-band)) / sp));
    const hi = Math.floor((reference * Math.exp(band)) / sp);
    const monthly = family === 'MONTHLY' || family === 'LEAPS' || family === 'QUARTERLY';
    const root = (!monthly && WEEKLY_ROOTS[inst.symbol]) || inst.symbol.replace(/\./g, '');
    const expiryMs = optionExpiryMs(expiration);
    list = [];
    for (let i = lo; i <= hi; i++) {
      const strike = Math.round(i * sp * 1000) / 1000;
      const x = Math.log(strike / reference) / band;
      const bell = Math.exp(-4 * x * x) + 0.04;
      for (const right of ['CALL', 'PUT'] as const) {
        const otm = right === 'CALL' ? strike >= reference : strike <= reference;
        const rightFactor = right === 'CALL' ? (otm ? 1 : 0.45) : otm ? 1.1 : 0.4;
        const osi = osiSymbol(root, expiration, right, strike);
        const h = seedOf('oi-phase', osi);
        list.push({
          osi,
          ticker: inst.symbol,
          expiration,
          expiryMs,
          strike,
          right,
          family,
          firstDay,
          expDay,
          reference,
          scale: this.profile.openInterestScale * inst.optionsActivityWeight * FAMILY_FACTOR[family] * bell * rightFactor,
          multiListed: !SINGLE_LISTED.has(inst.symbol),
          phase1: ((h & 0xffff) / 0x10000) * 2 * Math.PI,
          phase2: ((h >>> 16) / 0x10000) * 2 * Math.PI,
        });
      }
    }
    if (this.byExpiration.size > 20_000) this.byExpiration.clear(); // bounded memory over long backfills
    this.byExpiration.set(key, list);
    return list;
  }

  /** Every contract listed on a trading day, by expiration then strike then right. */
  listed(inst: Instrument, date: LocalDate): Contract[] {
    const key = `${inst.symbol}|${date}`;
    let all = this.byDay.get(key);
    if (!all) {
      all = this.expirations(inst, date).flatMap((e) => this.contractsOf(inst, e.expiration, e.family, e.horizon));
      if (this.byDay.size > 2000) this.byDay.clear();
      this.byDay.set(key, all);
    }
    return all;
  }
}
