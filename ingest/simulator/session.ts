import { nyLocalToEpochMs, sessionBounds, type LocalDate } from '../../services/domain/calendar';
import { loadUniverse, type Instrument } from '../../services/domain/universe';
import { ChainBook, type Contract } from './chains';
import { darkPoolSample } from './dark-pool-sample';
import { EquityPrintGenerator } from './equity-prints';
import type { SessionContext, SimEvent } from './events';
import { dayIndex, MarketModel, type SessionPath } from './market';
import { sessionNews } from './session-news';
import { haltWindows, sessionNotifications, type HaltWindow } from './notifications';
import { activity, contractOrders, dailyVolume, nbbo, openInterest, orderPrints, OrderKind, quoteSizes } from './options';
import type { OptionPrint } from '../../services/domain/order-flow';
import type { Profile } from './profiles';

/**
 * One simulated session, cut into fixed chunks so that any part of it can be produced on its own
 * (a live minute, a resumed backfill) and comes out identical:
 *
 *   chunk 0          before the open (open interest at 07:00 ET, pre-market news)
 *   chunks 1..N      consecutive 5-second slices of the regular session
 *   chunk N+1        the close and after (closing prices, end-of-day quotes, late reports)
 *
 * Two tiers share that chunking. The `daily` tier is what 400+ sessions of history hold: open
 * interest, official open and close, end-of-day NBBO of every listed contract, notifications and
 * news. The `tick` tier adds the per-second underlying prices, intraday NBBO snapshots, option
 * prints and equity prints. A session produced at tick level holds both tiers; the tiers are
 * separate streams so a session first backfilled at daily level can later gain its ticks
 * without repeating anything. The daily tier of a session that has (or is going to get) its tick
 * tier leaves out the off-exchange sample (dark-pool-sample.ts): the tape holds those prints.
 *
 * An order's prints stay together in the chunk of the order's start, so the last legs of a sweep
 * or split begun just before a slice ends carry times up to a second past that slice.
 */

export type Tier = 'daily' | 'tick';

export interface TierOptions {
  /**
   * The session has, or is going to get, its tick tier: its daily tier then leaves out the
   * off-exchange sample, whose prints the tape carries anyway.
   */
  withTicks?: boolean;
}
export const SLICE_MS = 5_000;
const TYPE_ORDER: Record<string, number> = {
  'open-interest': 0,
  'underlying-price': 1,
  'option-quote': 2,
  'option-print': 3,
  'equity-print': 4,
  'exchange-notification': 5,
  news: 6,
};

function compareEvents(a: SimEvent, b: SimEvent): number {
  if (a.time !== b.time) return a.time - b.time;
  if (a.type !== b.type) return TYPE_ORDER[a.type] - TYPE_ORDER[b.type];
  const ka = String(a.data.id ?? a.data.osi ?? a.data.ticker);
  const kb = String(b.data.id ?? b.data.osi ?? b.data.ticker);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Chunks of a session (5-second slices plus the pre-open and close chunks). */
export function sessionChunkCount(date: LocalDate): number {
  const b = sessionBounds(date);
  if (!b) throw new RangeError(`${date} is not an NYSE trading day`);
  return Math.ceil((b.close - b.open) / SLICE_MS) + 2;
}

/** Shared, cached state of one simulated market (seed + profile). */
export class SimulatedMarket {
  readonly model: MarketModel;
  readonly chains: ChainBook;
  readonly instruments: Instrument[];
  readonly bySymbol: Map<string, Instrument>;

  constructor(
    readonly seed: number,
    readonly profile: Profile,
  ) {
    this.model = new MarketModel(seed);
    this.chains = new ChainBook(this.model, profile);
    this.instruments = profile.selectSymbols(loadUniverse());
    this.bySymbol = new Map(this.instruments.map((i) => [i.symbol, i]));
  }

  context(date: LocalDate): SessionContext {
    return { seed: this.seed, date, profile: this.profile, model: this.model };
  }

  /**
   * A tier of a session. The tick tier can be limited to a subset of symbols (a shard): every
   * tick event is keyed by its symbol, and each symbol's events do not depend on the others'.
   * The daily tier is by default that of a history session (with the off-exchange sample).
   */
  session(date: LocalDate, tier: Tier, symbols?: ReadonlySet<string>, opts: TierOptions = {}): SessionGenerator {
    if (tier === 'daily') return new DailyTier(this, date, opts.withTicks ?? false);
    return new TickTier(this, date, symbols ? this.instruments.filter((i) => symbols.has(i.symbol)) : this.instruments);
  }
}

export abstract class SessionGenerator {
  readonly open: number;
  readonly close: number;
  /** number of 5-second slices */
  readonly slices: number;
  readonly day: number;

  constructor(
    readonly market: SimulatedMarket,
    readonly date: LocalDate,
    readonly tier: Tier,
  ) {
    const b = sessionBounds(date);
    if (!b) throw new RangeError(`${date} is not an NYSE trading day`);
    this.open = b.open;
    this.close = b.close;
    this.slices = Math.ceil((b.close - b.open) / SLICE_MS);
    this.day = dayIndex(date);
  }

  get chunks(): number {
    return this.slices + 2;
  }

  /** The chunk an instant belongs to. */
  chunkOf(ms: number): number {
    if (ms < this.open) return 0;
    if (ms >= this.close) return this.slices + 1;
    return 1 + Math.floor((ms - this.open) / SLICE_MS);
  }

  /** The instant after which chunk k is complete (live mode waits for it). */
  chunkEnd(k: number): number {
    if (k === 0) return this.open;
    if (k > this.slices) return this.close + 5 * 60_000;
    return Math.min(this.close, this.open + k * SLICE_MS);
  }

  /** The events of chunk k, in stream order (time, then type, then id). */
  abstract chunk(k: number): SimEvent[];
}

/**
 * Open interest, official open/close, end-of-day quotes, notifications, news and, for a session
 * without ticks, the off-exchange sample.
 */
class DailyTier extends SessionGenerator {
  private readonly events: SimEvent[];
  private readonly starts: number[];

  constructor(market: SimulatedMarket, date: LocalDate, withTicks: boolean) {
    super(market, date, 'daily');
    const ctx = market.context(date);
    const out: SimEvent[] = [];
    const published = nyLocalToEpochMs(date, 7, 0);
    for (const inst of market.instruments) {
      const series = market.model.series(inst);
      const open = series.open[this.day];
      const close = series.close[this.day];
      out.push({ type: 'underlying-price', time: this.open, data: { ticker: inst.symbol, sessionDate: date, time: this.open, price: open, kind: 'OPEN' } });
      out.push({ type: 'underlying-price', time: this.close, data: { ticker: inst.symbol, sessionDate: date, time: this.close, price: close, kind: 'CLOSE' } });
      const thin = inst.optionsActivityWeight < 1;
      for (const c of market.chains.listed(inst, date)) {
        out.push({
          type: 'open-interest',
          time: published,
          data: {
            osi: c.osi,
            ticker: c.ticker,
            expirationDate: c.expiration,
            strikePrice: c.strike,
            contractType: c.right,
            sessionDate: date,
            openInterest: openInterest(c, this.day),
            time: published,
          },
        });
        const q = nbbo(c, close, series.atmIv[this.day], this.close, thin);
        out.push({
          type: 'option-quote',
          time: this.close,
          data: { osi: c.osi, ticker: c.ticker, time: this.close, bidPrice: q.bid, askPrice: q.ask, ...quoteSizes(c.osi, this.close) },
        });
      }
    }
    out.push(...sessionNotifications(ctx, market.instruments), ...sessionNews(ctx, market.instruments));
    if (!withTicks) out.push(...darkPoolSample(market, date, market.instruments, market.profile.darkPoolSampleMinutes));
    out.sort(compareEvents);
    this.events = out;
    // First event index of each chunk (events are sorted, so chunks are contiguous runs).
    this.starts = new Array(this.chunks + 1).fill(out.length);
    for (let i = out.length - 1; i >= 0; i--) this.starts[this.chunkOf(out[i].time)] = i;
    for (let k = this.chunks - 1; k >= 0; k--) this.starts[k] = Math.min(this.starts[k], this.starts[k + 1]);
  }

  chunk(k: number): SimEvent[] {
    return this.events.slice(this.starts[k], this.starts[k + 1]);
  }
}

/** Per-second prices, intraday quotes, option prints and equity prints. */
class TickTier extends SessionGenerator {
  private readonly paths: SessionPath[];
  private readonly contracts: Contract[] = [];
  private readonly contractInst: number[] = [];
  private readonly quoted: number[] = [];
  /** orders bucketed by chunk: orderStart[k]..orderStart[k+1] index the columns below */
  private readonly orderStart: Int32Array;
  private readonly orderTime: Float64Array;
  private readonly orderContract: Int32Array;
  private readonly orderSize: Int32Array;
  private readonly orderKind: Uint8Array;
  private readonly orderSeq: Int32Array;
  private readonly equity: EquityPrintGenerator[];
  /** per instrument: halts and pauses, during which nothing trades and the last sale stands */
  private readonly halts: HaltWindow[][];
  private readonly equityMinute = new Map<number, SimEvent[]>();

  constructor(
    market: SimulatedMarket,
    date: LocalDate,
    private readonly instruments: readonly Instrument[],
  ) {
    super(market, date, 'tick');
    const { model, chains, profile, seed } = market;
    const ctx = market.context(date);
    this.paths = this.instruments.map((i) => model.sessionPath(i, date));
    this.equity = this.instruments.map((inst, i) => new EquityPrintGenerator(ctx, inst, this.paths[i]));
    this.halts = this.instruments.map((inst) => haltWindows(ctx, inst).filter((w) => w.end > this.open && w.start < this.close));
    const cdf = intradayCdf(Math.round((this.close - this.open) / 1000));
    const times: number[] = [];
    const cidx: number[] = [];
    const sizes: number[] = [];
    const kinds: number[] = [];
    const seqs: number[] = [];
    this.instruments.forEach((inst, ii) => {
      const act = activity(model, inst, this.day);
      const open = this.paths[ii].open;
      for (const c of chains.listed(inst, date)) {
        const ci = this.contracts.length;
        this.contracts.push(c);
        this.contractInst.push(ii);
        if (isQuoted(c, open, this.day, profile)) this.quoted.push(ci);
        const v = dailyVolume(seed, c, this.day, act);
        if (v === 0) continue;
        const halts = this.halts[ii];
        contractOrders(seed, c, date, v, (size, kind, seq, r) => {
          let t = this.open + r.pickCumulative(cdf) * 1000 + Math.floor(r.next() * 1000);
          // An order that would fall in a halt waits for the reopening (within two seconds of it).
          const w = halts.find((h) => t >= h.start && t < h.end);
          if (w) t = Math.min(this.close - 1, w.end + ((t - w.start) % 2_000));
          times.push(t);
          cidx.push(ci);
          sizes.push(size);
          kinds.push(kind);
          seqs.push(seq);
        });
      }
    });
    // Counting sort of the orders into their chunks (stable, so order within a chunk is by contract).
    const n = times.length;
    const start = new Int32Array(this.chunks + 1);
    for (let i = 0; i < n; i++) start[this.chunkOf(times[i]) + 1]++;
    for (let k = 0; k < this.chunks; k++) start[k + 1] += start[k];
    const fill = start.slice(0, this.chunks);
    this.orderTime = new Float64Array(n);
    this.orderContract = new Int32Array(n);
    this.orderSize = new Int32Array(n);
    this.orderKind = new Uint8Array(n);
    this.orderSeq = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const j = fill[this.chunkOf(times[i])]++;
      this.orderTime[j] = times[i];
      this.orderContract[j] = cidx[i];
      this.orderSize[j] = sizes[i];
      this.orderKind[j] = kinds[i];
      this.orderSeq[j] = seqs[i];
    }
    this.orderStart = start;
  }

  /** Orders placed over the session (each becomes one or more prints). */
  get orderCount(): number {
    return this.orderTime.length;
  }

  chunk(k: number): SimEvent[] {
    const out: SimEvent[] = [];
    const { profile, seed } = this.market;
    const { instruments } = this;
    if (k >= 1 && k <= this.slices) {
      const from = this.open + (k - 1) * SLICE_MS;
      const to = Math.min(this.close, from + SLICE_MS);
      // Per-second last-sale prices (the official open and close belong to the daily tier).
      for (let ii = 0; ii < instruments.length; ii++) {
        const p = this.paths[ii];
        const ticker = instruments[ii].symbol;
        const halts = this.halts[ii];
        for (let t = Math.max(1, (from - this.open) / 1000); t < (to - this.open) / 1000 && t < p.seconds; t++) {
          const time = this.open + t * 1000;
          // While halted the last sale stands: the price of the second the halt began.
          const w = halts.length ? halts.find((h) => time >= h.start && time < h.end) : undefined;
          const price = w ? p.priceAt(w.start) : p.prices[t];
          out.push({ type: 'underlying-price', time, data: { ticker, sessionDate: this.date, time, price, kind: 'TICK' } });
        }
      }
      // NBBO snapshots of the quoted contracts every quoteIntervalSec.
      const every = profile.quoteIntervalSec * 1000;
      for (let snap = this.open + every * Math.ceil((from - this.open) / every || 1); snap < to; snap += every) {
        if (snap < from) continue;
        for (const ci of this.quoted) {
          const c = this.contracts[ci];
          const ii = this.contractInst[ci];
          if (this.halts[ii].some((h) => snap >= h.start && snap < h.end)) continue; // no market while halted
          const p = this.paths[ii];
          const q = nbbo(c, p.priceAt(snap), p.atmIvAt(snap), snap, instruments[ii].optionsActivityWeight < 1);
          out.push({
            type: 'option-quote',
            time: snap,
            data: { osi: c.osi, ticker: c.ticker, time: snap, bidPrice: q.bid, askPrice: q.ask, ...quoteSizes(c.osi, snap) },
          });
        }
      }
    }
    // Option prints of the orders placed in this chunk.
    const prints: OptionPrint[] = [];
    for (let j = this.orderStart[k]; j < this.orderStart[k + 1]; j++) {
      const ci = this.orderContract[j];
      const ii = this.contractInst[ci];
      const p = this.paths[ii];
      const t = this.orderTime[j];
      orderPrints(
        seed,
        this.contracts[ci],
        this.date,
        t,
        this.orderSize[j],
        this.orderKind[j] as OrderKind,
        this.orderSeq[j],
        p.priceAt(t),
        p.atmIvAt(t),
        instruments[ii].optionsActivityWeight < 1,
        prints,
      );
    }
    for (const pr of prints) out.push({ type: 'option-print', time: pr.time, data: pr as unknown as Record<string, unknown> });
    // Equity prints reported in this chunk (the closing auction print, at the close, is in the last).
    if (k >= 1) {
      const from = k <= this.slices ? this.open + (k - 1) * SLICE_MS : this.close;
      const to = k <= this.slices ? Math.min(this.close, from + SLICE_MS) : Infinity;
      const lastMinute = Math.ceil((this.close - this.open) / 60_000) - 1;
      const m0 = Math.min(lastMinute, Math.floor((from - this.open) / 60_000));
      const m1 = k <= this.slices ? Math.floor((to - 1 - this.open) / 60_000) : lastMinute;
      for (let m = m0; m <= m1; m++) {
        for (const e of this.equityInMinute(m)) if (e.time >= from && e.time < to) out.push(e);
      }
    }
    return out.sort(compareEvents);
  }

  private equityInMinute(m: number): SimEvent[] {
    let list = this.equityMinute.get(m);
    if (!list) {
      list = [];
      for (const g of this.equity) list.push(...g.reportedInMinute(m));
      if (this.equityMinute.size > 4) this.equityMinute.clear();
      this.equityMinute.set(m, list);
    }
    return list;
  }
}

function isQuoted(c: Contract, spot: number, day: number, profile: Profile): boolean {
  return c.expDay - day <= profile.quoteMaxDte && Math.abs(Math.log(c.strike / spot)) <= profile.quoteMaxMoneyness;
}

/** Cumulative intraday activity over the session's seconds: busy open, quieter midday, busy close. */
function intradayCdf(seconds: number): Float64Array {
  const cdf = new Float64Array(seconds);
  let acc = 0;
  for (let t = 0; t < seconds; t++) {
    acc += 1 + 2.2 * Math.exp(-t / 1200) + 1.6 * Math.exp(-(seconds - t) / 1500);
    cdf[t] = acc;
  }
  return cdf;
}
