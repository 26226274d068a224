import { bsmPrice } from '../../services/domain/pricing';
import { RISK_FREE_RATE, dividendYield } from '../../services/domain/rates';
import type { LocalDate } from '../../services/domain/calendar';
import type { Instrument } from '../../services/domain/universe';
import { TRADE_SIDES, type OptionPrint, type TradeSide } from '../../services/domain/order-flow';
import { OPTION_EXCHANGE_CODES, type OptionExchange } from '../../services/domain/venues';
import { Contract, FAMILY_RAMP } from './chains';
import { compactDate } from './events';
import { dailySigma, MarketModel } from './market';
import { Rand, seedOf } from './random';

/**
 * Open interest, daily volume, NBBO and prints of option contracts.
 *
 * Open interest is a closed-form function of (contract, trading day) — it builds up after listing
 * and wanders — so any day's value is available without replaying history. A day's volume is
 * derived from it: |OI(next day) - OI(today)| contracts opened or closed on net, plus churn
 * (positions opened and closed against each other) and, near expiry, day trading. Hence open
 * interest is never negative and its change never exceeds the day's volume.
 */

export { RISK_FREE_RATE, dividendYield };

export function openInterest(c: Contract, day: number): number {
  if (day < c.firstDay || day > c.expDay) return 0;
  const age = day - c.firstDay;
  const wiggle = Math.exp(0.25 * Math.sin((2 * Math.PI * day) / 29 + c.phase1) + 0.15 * Math.sin((2 * Math.PI * day) / 7 + c.phase2));
  return Math.round(c.scale * (1 - Math.exp(-age / FAMILY_RAMP[c.family])) * wiggle);
}

/** How active a symbol's options are on a day: busier on big-move days. */
export function activity(model: MarketModel, inst: Instrument, day: number): number {
  const move = Math.abs(model.series(inst).ret[day]) / dailySigma(inst);
  return (0.6 + 0.5 * Math.min(4, move)) * Rand.of(model.seed, 'activity', inst.symbol, day).lognormal(0, 0.25);
}

/** Contracts traded by a contract on a day (0 on days it is not listed). */
export function dailyVolume(seed: number, c: Contract, day: number, act: number): number {
  if (day < c.firstDay || day > c.expDay) return 0;
  const oi = openInterest(c, day);
  const net = day < c.expDay ? openInterest(c, day + 1) - oi : 0;
  const r = new Rand(seedOf(seed, 'volume', c.osi, day));
  const daysLeft = c.expDay - day;
  const churnRate = 0.015 * act * r.lognormal(0, 0.9) * (1 + 3 * Math.exp(-daysLeft / 3));
  const churn = Math.floor(oi * churnRate + r.next());
  // Same-day round trips in the last two days of a contract: 0DTE volume dwarfs open interest.
  const dayTrade = daysLeft <= 1 ? Math.floor(c.scale * 0.4 * act * r.lognormal(0, 0.7)) : 0;
  return Math.abs(net) + 2 * churn + 2 * dayTrade;
}

// --- pricing and NBBO ------------------------------------------------------------------------

export function yearsToExpiry(c: Contract, atMs: number): number {
  return Math.max(1 / (365 * 24 * 12), (c.expiryMs - atMs) / (365 * 86_400_000));
}

/** Implied volatility of a contract given the at-the-money level: skew, smile and term structure. */
export function surfaceIv(c: Contract, spot: number, atmIv: number, years: number): number {
  const z = Math.max(-4, Math.min(4, Math.log(c.strike / spot) / (atmIv * Math.sqrt(years))));
  const term = 1 + 0.08 * (1 - Math.exp(-years / 0.5));
  const skew = c.ticker === 'VIX' ? 0.1 * z : -0.08 * z;
  return Math.max(0.05, atmIv * term * (1 + skew + 0.02 * z * z));
}

export interface Nbbo {
  bid: number;
  ask: number;
  theo: number;
  tick: number;
}

const INDEX_TICKS = new Set(['SPX', 'NDX', 'RUT']);
const cents = (x: number) => Math.round(x * 100) / 100;

/** The NBBO around the theoretical value: wider for far strikes and thin names; bid >= $0.01. */
export function nbbo(c: Contract, spot: number, atmIv: number, atMs: number, thin: boolean): Nbbo {
  const years = yearsToExpiry(c, atMs);
  const vol = surfaceIv(c, spot, atmIv, years);
  const theo = bsmPrice({ right: c.right, spot, strike: c.strike, t: years, vol, rate: RISK_FREE_RATE, dividend: dividendYield(c.ticker) });
  const index = INDEX_TICKS.has(c.ticker);
  const tick = theo < 3 ? (index ? 0.05 : 0.01) : index ? 0.1 : 0.05;
  const far = Math.min(1, Math.abs(Math.log(c.strike / spot)) / (atmIv * Math.sqrt(years) * 3));
  const half = Math.max(tick / 2, (theo * (0.03 + 0.1 * far + (thin ? 0.05 : 0))) / 2);
  const bid = Math.max(0.01, cents(Math.floor((theo - half) / tick + 1e-9) * tick));
  const ask = Math.max(cents(bid + tick), cents(Math.ceil((theo + half) / tick - 1e-9) * tick));
  return { bid, ask, theo, tick };
}

// --- orders and prints ---------------------------------------------------------------------

export const enum OrderKind {
  Single = 0,
  Split = 1,
  Sweep = 2,
  Block = 3,
}
export const ORDER_KIND_NAMES = ['SINGLE', 'SPLIT', 'SWEEP', 'BLOCK'] as const;

/** Cumulative side weights per order kind, in TRADE_SIDES order (ABOVE_ASK, ASK, MID, BID, BELOW_BID). */
const SIDE_WEIGHTS: Record<number, number[]> = {
  [OrderKind.Single]: [3, 36, 60, 94, 100],
  [OrderKind.Split]: [3, 38, 58, 94, 100],
  [OrderKind.Sweep]: [20, 60, 60, 90, 100],
  [OrderKind.Block]: [2, 27, 72, 97, 100],
};

/** Exchange weights (cumulative) roughly following US options market share. */
const EXCHANGE_SHARE: Record<OptionExchange, number> = {
  AMEX: 6,
  ARCA: 6,
  BOX: 3,
  BZX: 5,
  C2: 2,
  CBOE: 13,
  EDGX: 4,
  EMLD: 3,
  GEMX: 2,
  ISE: 7,
  MEMX: 3,
  MIAX: 6,
  MPRL: 5,
  MRX: 1,
  NOBO: 1,
  NSDQ: 6,
  PHLX: 10,
  SPHR: 2,
};
const EXCHANGE_CUM = (() => {
  let acc = 0;
  return OPTION_EXCHANGE_CODES.map((e) => (acc += EXCHANGE_SHARE[e]));
})();
const HOME_EXCHANGE: Record<string, OptionExchange> = { SPX: 'CBOE', VIX: 'CBOE', RUT: 'CBOE', NDX: 'PHLX' };

/** Orders of one contract-day: sizes summing to the day's volume and an execution style each. */
export function contractOrders(
  seed: number,
  c: Contract,
  date: LocalDate,
  volume: number,
  emit: (size: number, kind: OrderKind, seq: number, r: Rand) => void,
): void {
  const r = new Rand(seedOf(seed, 'orders', c.osi, date));
  let left = volume;
  let seq = 0;
  while (left > 0) {
    // Heavy-tailed order sizes: mostly 1-10 contracts, occasionally thousands.
    const size = Math.min(left, Math.min(5_000, Math.floor(r.pareto(1, 1.15))));
    left -= size;
    const u = r.next();
    let kind = OrderKind.Single;
    if (c.multiListed && size >= 10 && u < 0.14) kind = OrderKind.Sweep;
    else if (size >= 100 && u < 0.6) kind = OrderKind.Block;
    else if (size >= 6 && u < 0.22) kind = OrderKind.Split;
    emit(size, kind, seq++, r);
  }
}

function priceForSide(side: TradeSide, q: Nbbo, r: Rand): number {
  switch (side) {
    case 'ABOVE_ASK':
      return cents(q.ask + q.tick * r.int(1, 2));
    case 'ASK':
      return q.ask;
    case 'MID_MARKET':
      return Math.min(q.ask, Math.max(q.bid, cents((q.bid + q.ask) / 2)));
    case 'BID':
      return q.bid;
    case 'BELOW_BID':
      return cents(q.bid - q.tick) >= 0.01 ? cents(q.bid - q.tick) : q.bid;
  }
}

function split(total: number, parts: number, r: Rand): number[] {
  const w = Array.from({ length: parts }, () => 0.2 + r.next());
  const sum = w.reduce((a, b) => a + b, 0);
  const out = w.map((x) => Math.max(1, Math.floor((x / sum) * total)));
  let diff = total - out.reduce((a, b) => a + b, 0);
  for (let i = 0; diff !== 0; i = (i + 1) % parts) {
    if (diff > 0) {
      out[i]++;
      diff--;
    } else if (out[i] > 1) {
      out[i]--;
      diff++;
    }
  }
  return out;
}

/**
 * The prints of one order: a sweep hits 2-8 exchanges within a few milliseconds on one side
 * (later legs may go through the ask); a split fills on one exchange in pieces within a second;
 * a block is one large print, often negotiated at mid; a single is one print.
 */
export function orderPrints(
  seed: number,
  c: Contract,
  date: LocalDate,
  atMs: number,
  size: number,
  kind: OrderKind,
  seq: number,
  spot: number,
  atmIv: number,
  thin: boolean,
  out: OptionPrint[],
): void {
  const r = new Rand(seedOf(seed, 'order', c.osi, date, seq));
  const q = nbbo(c, spot, atmIv, atMs, thin);
  const side = TRADE_SIDES[r.pickCumulative(SIDE_WEIGHTS[kind])];
  const idBase = `${c.osi.replace(/ /g, '')}-${compactDate(date)}-${seq}`;
  const home = HOME_EXCHANGE[c.ticker];
  const exchange = () => home ?? OPTION_EXCHANGE_CODES[r.pickCumulative(EXCHANGE_CUM)];
  const base = { osi: c.osi, ticker: c.ticker, bidPrice: q.bid, askPrice: q.ask, underlyingPrice: spot };
  if (kind === OrderKind.Sweep) {
    const legs = Math.min(size, 2 + Math.min(6, r.poisson(1.5)));
    const sizes = split(size, legs, r);
    const used = new Set<string>();
    let t = atMs;
    for (let i = 0; i < legs; i++) {
      let ex = exchange();
      for (let k = 0; used.has(ex) && k < 20; k++) ex = exchange();
      if (used.has(ex)) ex = OPTION_EXCHANGE_CODES.find((e) => !used.has(e))!;
      used.add(ex);
      // Later legs walk the book: a buy sweep may pay through the ask, a sell sweep below the bid.
      let legSide = side;
      if (i > 0 && side === 'ASK' && r.bool(0.3)) legSide = 'ABOVE_ASK';
      if (i > 0 && side === 'BID' && r.bool(0.3)) legSide = 'BELOW_BID';
      out.push({ ...base, id: `${idBase}.${i}`, time: t, price: priceForSide(legSide, q, r), size: sizes[i], exchange: ex, conditions: ['ISOI'] });
      t += r.int(0, 3);
    }
    return;
  }
  if (kind === OrderKind.Split) {
    const parts = Math.min(size, r.int(2, 5));
    const sizes = split(size, parts, r);
    const ex = exchange();
    const price = priceForSide(side, q, r);
    let t = atMs;
    for (let i = 0; i < parts; i++) {
      out.push({ ...base, id: `${idBase}.${i}`, time: t, price, size: sizes[i], exchange: ex, conditions: ['AUTO'] });
      t += r.int(1, 250);
    }
    return;
  }
  const conditions = kind === OrderKind.Block ? ['SLCN'] : r.bool(0.1) ? ['SLAN'] : ['AUTO'];
  out.push({ ...base, id: `${idBase}.0`, time: atMs, price: priceForSide(side, q, r), size, exchange: exchange(), conditions });
}

/** NBBO sizes for a quote snapshot, from a cheap hash (quotes are the most numerous events). */
export function quoteSizes(osi: string, atMs: number): { bidSize: number; askSize: number } {
  const h = seedOf(osi, atMs);
  return { bidSize: 1 + ((h & 0x3ff) % 500), askSize: 1 + (((h >>> 10) & 0x3ff) % 500) };
}
