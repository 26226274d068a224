import type { RedisClient as Redis } from '../../services/redis/client';
import { topicFor } from '../../schemas/catalog';
import { fromDayNumber, nyLocalToEpochMs, sessionDateOf, toDayNumber } from '../../services/domain/calendar';
import { parseOsi } from '../../services/domain/osi';
import { RISK_FREE_RATE, dividendYield } from '../../services/domain/rates';
import { atmIv, surfaceIv } from '../../services/domain/volatility';
import type { PartitionKeys } from '../../services/views/keys';
import {
  PRICE_KIND_RANK,
  VOLATILITY_LAYOUT_FORMAT,
  VOLATILITY_VIEW,
  decodeOpenInterest,
  decodeSurface,
  encodeOpenInterest,
  encodeSurface,
  osiParts,
  spotAt,
  volKey,
  type IvIndexEntry,
  type Surface,
} from '../../services/views/volatility';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';

interface QuoteEvent {
  osi: string;
  ticker: string;
  time: number;
  bidPrice: number;
  askPrice: number;
}
interface PriceEvent {
  ticker: string;
  sessionDate: string;
  time: number;
  price: number;
  kind: 'OPEN' | 'TICK' | 'CLOSE';
}
interface OpenInterestEvent {
  osi: string;
  ticker: string;
  sessionDate: string;
  openInterest: number | bigint;
}

const MINUTE_MS = 60_000;

function rateFromEnv(): number {
  const raw = process.env.MDQ_RISK_FREE_RATE;
  const v = raw === undefined || raw === '' ? RISK_FREE_RATE : Number(raw);
  if (!Number.isFinite(v) || v <= -1 || v >= 1) throw new Error(`MDQ_RISK_FREE_RATE must be a rate between -1 and 1, got ${raw}`);
  return v;
}

/** New York midnight that ends `date` (the date's snapshots lie before it). */
function dayEndMs(date: string): number {
  return nyLocalToEpochMs(fromDayNumber(toDayNumber(date) + 1), 0, 0);
}

/**
 * What one chunk reads and changes of a partition's volatility view. Every value is read from
 * Redis once and then kept, so later events of the chunk see the chunk's own earlier changes.
 */
class ChunkState {
  readonly ops: RedisOp[] = [];
  private readonly prices = new Map<string, Map<number, string>>();
  private readonly surfaces = new Map<string, { ticker: string; ms: number; surface: Surface; dirty: boolean }>();
  private readonly oi = new Map<string, { ticker: string; date: string; values: Map<string, number>; dirty: boolean }>();
  private readonly addedSnaps = new Map<string, Set<number>>();

  constructor(
    readonly k: PartitionKeys,
    private readonly redis: Redis,
    readonly rate: number,
  ) {}

  /** A session's prices: read by preload, or here on a miss. */
  async pricesOf(ticker: string, date: string): Promise<Map<number, string>> {
    await this.preload([{ ticker, date }], []);
    return this.prices.get(`${ticker}|${date}`)!;
  }

  /**
   * Reads what a set of groups needs in one pipeline: their sessions' prices and snapshots'
   * surfaces not read yet. One round trip per value read serially was the view's bottleneck
   * beside other views' transactions (tens of ms each under a catch-up).
   */
  async preload(prices: readonly { ticker: string; date: string }[], surfaces: readonly { ticker: string; ms: number }[]): Promise<void> {
    const pipe = this.redis.pipeline();
    const wantPrices = [...new Map(prices.filter((x) => !this.prices.has(`${x.ticker}|${x.date}`)).map((x) => [`${x.ticker}|${x.date}`, x])).values()];
    const wantSurfaces = [...new Map(surfaces.filter((x) => !this.surfaces.has(`${x.ticker}|${x.ms}`)).map((x) => [`${x.ticker}|${x.ms}`, x])).values()];
    if (!wantPrices.length && !wantSurfaces.length) return;
    for (const x of wantPrices) pipe.hgetall(volKey.prices(this.k, x.ticker, x.date));
    for (const x of wantSurfaces) pipe.getBuffer(volKey.surface(this.k, x.ticker, x.ms));
    const res = (await pipe.exec())!;
    for (const [err] of res) if (err) throw err;
    wantPrices.forEach((x, i) => {
      const h = res[i][1] as Record<string, string>;
      this.prices.set(`${x.ticker}|${x.date}`, new Map(Object.entries(h).map(([t, v]) => [Number(t), v])));
    });
    wantSurfaces.forEach((x, i) => this.keepSurface(x.ticker, x.ms, res[wantPrices.length + i][1] as Buffer | null));
  }

  private keepSurface(ticker: string, ms: number, stored: Buffer | null): void {
    // The stored rate and dividend are this projection's own: a view is built by one configuration.
    this.surfaces.set(`${ticker}|${ms}`, { ticker, ms, surface: stored ? decodeSurface(stored) : { spot: null, contracts: new Map() }, dirty: false });
    if (!stored) this.addSnapshot(ticker, ms);
  }

  /** Snapshot instants in [fromMs, toMs) of each query, stored or added by this chunk, in one pipeline. */
  async snapshotsInMany(queries: readonly { ticker: string; fromMs: number; toMs: number }[]): Promise<number[][]> {
    if (!queries.length) return [];
    const pipe = this.redis.pipeline();
    for (const q of queries) pipe.zrangebyscore(volKey.snaps(this.k, q.ticker), q.fromMs, `(${q.toMs}`);
    const res = (await pipe.exec())!;
    return queries.map((q, i) => {
      if (res[i][0]) throw res[i][0];
      const stored = (res[i][1] as string[]).map(Number);
      const added = [...(this.addedSnaps.get(q.ticker) ?? [])].filter((t) => t >= q.fromMs && t < q.toMs);
      return [...new Set([...stored, ...added])].sort((a, b) => a - b);
    });
  }

  async surfaceOf(ticker: string, ms: number): Promise<{ surface: Surface; dirty: boolean }> {
    await this.preload([], [{ ticker, ms }]);
    return this.surfaces.get(`${ticker}|${ms}`)!;
  }

  private addSnapshot(ticker: string, ms: number): void {
    let set = this.addedSnaps.get(ticker);
    if (!set) this.addedSnaps.set(ticker, (set = new Set()));
    set.add(ms);
    this.ops.push(['ZADD', volKey.snaps(this.k, ticker), String(ms), String(ms)]);
  }

  async openInterestOf(ticker: string, date: string) {
    const id = `${ticker}|${date}`;
    let o = this.oi.get(id);
    if (!o) {
      const stored = await this.redis.getBuffer(volKey.openInterest(this.k, ticker, date));
      o = { ticker, date, values: stored ? decodeOpenInterest(stored) : new Map<string, number>(), dirty: false };
      this.oi.set(id, o);
    }
    return o;
  }

  /** Re-prices every contract of a surface at its spot. */
  reprice(ticker: string, ms: number, surface: Surface): void {
    const dividend = dividendYield(ticker);
    for (const c of surface.contracts.values()) {
      const p = parseOsi(c.osi)!;
      c.iv =
        surface.spot === null
          ? null
          : surfaceIv({ right: p.right, strike: p.strike, expiration: p.expiration, bid: c.bid, ask: c.ask }, surface.spot, ms, this.rate, dividend);
    }
  }

  markDirty(ticker: string, ms: number): void {
    this.surfaces.get(`${ticker}|${ms}`)!.dirty = true;
  }

  async finish(): Promise<RedisOp[]> {
    for (const o of this.oi.values()) {
      if (!o.dirty) continue;
      this.ops.push(['SET', volKey.openInterest(this.k, o.ticker, o.date), encodeOpenInterest(o.values)]);
    }
    const dirty = [...this.surfaces.values()].filter((s) => s.dirty);
    const later = await this.snapshotsInMany(dirty.map((s) => ({ ticker: s.ticker, fromMs: s.ms + 1, toMs: dayEndMs(sessionDateOf(s.ms)) })));
    dirty.forEach((s, i) => {
      const pricing = { rate: this.rate, dividend: dividendYield(s.ticker) };
      this.ops.push(['SET', volKey.surface(this.k, s.ticker, s.ms), encodeSurface(s.surface, pricing)]);
      if (!later[i].length) this.indexLast(s.ticker, s.ms, s.surface);
    });
    return this.ops;
  }

  /** The iv-rank record of a date comes from its last snapshot (the end-of-day one once the session closed). */
  private indexLast(ticker: string, ms: number, surface: Surface): void {
    const date = sessionDateOf(ms);
    const field = volKey.ivIndex(this.k, ticker);
    if (surface.spot === null) {
      this.ops.push(['HDEL', field, date]);
      return;
    }
    this.ops.push(['HSET', field, date, JSON.stringify(ivIndexEntry(surface))]);
  }
}

/** The at-the-money IV of each expiration of a surface, per leg (services/domain/volatility.ts atmIv). */
export function ivIndexEntry(surface: Surface): IvIndexEntry {
  const byExp = new Map<string, { CALL: { strike: number; iv: number }[]; PUT: { strike: number; iv: number }[] }>();
  for (const c of surface.contracts.values()) {
    const p = c.iv === null ? null : osiParts(c.osi);
    if (!p) continue;
    let e = byExp.get(p.expiration);
    if (!e) byExp.set(p.expiration, (e = { CALL: [], PUT: [] }));
    e[p.right].push({ strike: p.strike, iv: c.iv! });
  }
  const spot = surface.spot!;
  const e: IvIndexEntry['e'] = [...byExp.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([exp, legs]) => [exp, atmIv(legs.CALL, spot), atmIv(legs.PUT, spot)]);
  return { p: spot, e };
}

async function applyPrices(st: ChunkState, events: PriceEvent[]): Promise<void> {
  const groups = new Map<string, PriceEvent[]>();
  for (const e of events) {
    // Ticks off the whole minute are never a snapshot's price (snapshots are on the minute grid).
    if (e.kind === 'TICK' && Number(e.time) % MINUTE_MS !== 0) continue;
    const id = `${e.ticker}|${e.sessionDate}`;
    const g = groups.get(id);
    if (g) g.push(e);
    else groups.set(id, [e]);
  }
  await st.preload(
    [...groups.values()].map((g) => ({ ticker: g[0].ticker, date: g[0].sessionDate })),
    [],
  );
  // The snapshots each changed session prices again, read together, then their surfaces.
  const changed: { ticker: string; date: string; px: Map<number, string>; minT: number }[] = [];
  for (const g of groups.values()) {
    const { ticker, sessionDate: date } = g[0];
    const px = await st.pricesOf(ticker, date);
    const fields: string[] = [];
    let minT = Infinity;
    for (const e of g) {
      const t = Number(e.time);
      const code = e.kind[0];
      const cur = px.get(t);
      if (cur !== undefined && PRICE_KIND_RANK[cur[0]] > PRICE_KIND_RANK[code]) continue;
      const value = `${code}${e.price}`;
      if (cur === value) continue;
      px.set(t, value);
      fields.push(String(t), value);
      minT = Math.min(minT, t);
    }
    if (!fields.length) continue;
    st.ops.push(['HSET', volKey.prices(st.k, ticker, date), ...fields]);
    changed.push({ ticker, date, px, minT });
  }
  // Snapshots priced before these prices arrived are priced again.
  const snaps = await st.snapshotsInMany(changed.map((c) => ({ ticker: c.ticker, fromMs: c.minT, toMs: dayEndMs(c.date) })));
  await st.preload(
    [],
    changed.flatMap((c, i) => snaps[i].map((ms) => ({ ticker: c.ticker, ms }))),
  );
  for (const [i, { ticker, px }] of changed.entries()) {
    for (const ms of snaps[i]) {
      const s = await st.surfaceOf(ticker, ms);
      const spot = spotAt(px, ms);
      if (spot === s.surface.spot) continue;
      s.surface.spot = spot;
      st.reprice(ticker, ms, s.surface);
      st.markDirty(ticker, ms);
    }
  }
}

async function applyQuotes(st: ChunkState, events: QuoteEvent[]): Promise<void> {
  const groups = new Map<string, QuoteEvent[]>();
  for (const e of events) {
    const id = `${e.ticker}|${Number(e.time)}`;
    const g = groups.get(id);
    if (g) g.push(e);
    else groups.set(id, [e]);
  }
  const heads = [...groups.values()].map((g) => ({ ticker: g[0].ticker, ms: Number(g[0].time) }));
  await st.preload(
    heads.map((h) => ({ ticker: h.ticker, date: sessionDateOf(h.ms) })),
    heads,
  );
  for (const g of groups.values()) {
    const ticker = g[0].ticker;
    const ms = Number(g[0].time);
    const px = await st.pricesOf(ticker, sessionDateOf(ms));
    const spot = spotAt(px, ms);
    const s = await st.surfaceOf(ticker, ms);
    if (s.surface.spot !== spot) {
      s.surface.spot = spot;
      st.reprice(ticker, ms, s.surface);
    }
    const dividend = dividendYield(ticker);
    for (const e of g) {
      const p = parseOsi(e.osi);
      if (!p) continue;
      const q = { right: p.right, strike: p.strike, expiration: p.expiration, bid: e.bidPrice, ask: e.askPrice };
      s.surface.contracts.set(e.osi, { osi: e.osi, bid: e.bidPrice, ask: e.askPrice, iv: spot === null ? null : surfaceIv(q, spot, ms, st.rate, dividend) });
    }
    st.markDirty(ticker, ms);
  }
}

async function applyOpenInterest(st: ChunkState, events: OpenInterestEvent[]): Promise<void> {
  for (const e of events) {
    const o = await st.openInterestOf(e.ticker, e.sessionDate);
    const v = Number(e.openInterest);
    if (o.values.get(e.osi) === v) continue;
    o.values.set(e.osi, v);
    o.dirty = true;
  }
}

/**
 * The volatility surfaces (services/views/volatility.ts). Prices are the lead topic, so on a
 * replay quotes mostly find their snapshot's price already there; a quote whose price comes
 * later is priced again when it does, so the view is the same in any order of the topics.
 */
export function volatilityProjection(rate = rateFromEnv()): Projection {
  const prices = topicFor('underlying-price')!;
  return {
    view: VOLATILITY_VIEW,
    format: VOLATILITY_LAYOUT_FORMAT,
    topics: [prices, topicFor('option-quote')!, topicFor('open-interest')!],
    lead: prices,
    waitForLeadAlways: true,
    async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
      const st = new ChunkState(keys, redis, rate);
      const px: PriceEvent[] = [];
      const quotes: QuoteEvent[] = [];
      const oi: OpenInterestEvent[] = [];
      for (const e of events) {
        const v = e.value;
        if (v === null) continue;
        if ('kind' in v) px.push(v as unknown as PriceEvent);
        else if ('openInterest' in v) oi.push(v as unknown as OpenInterestEvent);
        else if ('bidPrice' in v) quotes.push(v as unknown as QuoteEvent);
      }
      if (px.length) await applyPrices(st, px);
      if (quotes.length) await applyQuotes(st, quotes);
      if (oi.length) await applyOpenInterest(st, oi);
      return st.finish();
    },
  };
}

export const volatilityViewProjection = volatilityProjection();
