import { type LocalDate, nyLocalToEpochMs, nyUtcOffsetMinutes, sessionBounds } from '../../services/domain/calendar';
import { NOTIFICATION_TYPES, type NotificationType } from '../../services/domain/notifications';
import { type Instrument, instrument as universeInstrument, loadUniverse } from '../../services/domain/universe';
import { compactDate, type SessionContext, type SimEvent } from './events';
import { dailySigma, dayIndex, type Jump, TRADING_DAYS } from './market';
import { Rand } from './random';

/**
 * Exchange notifications of one session (halts, pauses, resumptions, IPOs, regulatory notices,
 * market-wide circuit breakers), derived from DAILY-level data only — the daily series and the
 * jump schedule of the market model, never a per-second path — so the same list comes out of a
 * 400-session daily backfill and of a live tick-level session. Every situation is decided from
 * its own named random stream, so one instrument's notices do not depend on which other
 * instruments are generated.
 *
 * Situations, sequences and rates (resumption codes picked from the 36 where the contract has
 * no dedicated one):
 * - LULD volatility pause: LUDP (80%) or LUDS (20%) at every jump whose % move exceeds the LULD
 *   band (below), then T3 ("resumption times") 5 minutes later; no T3 when the 5 minutes run
 *   into the close (the closing auction ends the pause).
 * - News-pending halt: T1 -> T2 news released (5-25 min) -> T3 resumption (5-10 min), on 20% of
 *   single-stock sessions with |ret| >= 3 daily sigmas. When the day has a jump in the move's
 *   direction, trading resumes exactly at the jump, so the reopening price gaps. Exported via
 *   newsHalts() so session news publishes the article at T2.
 * - Reg SHO Rule 201: REG_SHO when a stock closes at or below 90% of the previous close (at the
 *   open for a gap through -10%, at a down jump, else in the afternoon), and a carry-over
 *   REG_SHO 07:00-09:00 the next session.
 * - IPO of a fictional issuer: IPO1 at 09:30 -> IPOQ 11:00-13:30 -> [IPOE +15 min, 30%] -> R1
 *   new issue available +15 min; 6% are withdrawn: IPO1 -> IPOE -> D. Poisson(0.12) a session.
 * - Deletion of a fictional issuer: D pre-open (07:00-09:25) on 3% of sessions.
 * - Market-wide circuit breaker (ticker SPX): MWC1 -> MWCQ 15 min later [-> MWC2 -> MWCQ
 *   [-> MWC3, halted to the close; next session MWC0 08:00-09:00 -> MWCQ at 09:30]]. Real rule:
 *   SPX close-to-close <= -7% / -13% / -20% for levels 1 / 2 / 3 (the model essentially never
 *   does that). Synthetic, so every code exists in any 400-session history: the worst SPX day of
 *   each block of 200 trading days runs the full escalation (MWC1 12:00-13:40 ET, MWC2 before
 *   15:25, MWC3 before the close). A deliberate departure from reality's rarity.
 * - Rare background halts, each with its resolution, at most one per instrument-session:
 *   H10 SEC suspension -> C11 (45-150 min; real suspensions last 10 days, shortened here);
 *   H11 regulatory concern -> C11 or R4 (30-120 min); H4 non-compliance -> R4 or C4;
 *   H9 not current -> R9 or C9; T12 information requested -> C3 (20-60 min);
 *   T6 extraordinary activity -> T3 (10-40 min); T5 pause -> T7 quotation only (+5) -> T3 (+5);
 *   M1 corporate action pre-open (08:00-09:15) -> R2 (09:30-09:50): 1.2e-4 per stock-session
 *   each. O1 operations halt -> R2 (5-30 min), M2 quotation not available -> R2 (2-15 min),
 *   M volatility pause -> T3 (5 min): 1.2e-4 per instrument-session each. T8 ETF halt -> R2
 *   (10-45 min): 1e-3 per ETF-session.
 *
 * LULD bands (Limit Up-Limit Down plan, simplified): Tier 1 (ETFs and stocks with a market cap
 * of at least $5B, a proxy for S&P 500 / Russell 1000 membership) 5%, Tier 2 10%, any security
 * whose previous close is at most $3 20%; bands double in the first 15 minutes and the last 25
 * minutes of the session. A jump's own % move (|e^logMove - 1|) is compared with the band: the
 * model's jumps are 2-6 daily sigmas, so a pause follows most jumps of volatile names and some
 * of steady ones (about 38 pauses a session over the full universe, measured on seed 42).
 *
 * Cash indexes (SPX, NDX, RUT, VIX) do not trade, so they never get instrument notices; the
 * market-wide circuit breakers are published with ticker 'SPX', the index whose decline
 * triggers them. Fictional tickers (IPOs, deletions) are 3-4 letters, never a universe symbol.
 *
 * Event ids: N-<yyyymmdd>-<ticker>-<n>, n counting that ticker's notices of the session in time
 * order, so an id does not depend on which other instruments were generated.
 */

const MINUTE = 60_000;

/** One notice before it becomes an event. */
export interface Notice {
  ticker: string;
  type: NotificationType;
  /** publication time, epoch-ms */
  time: number;
  message: string;
}

/** An interval [start, end) in which a ticker does not trade. */
export interface HaltWindow {
  ticker: string;
  /** the code that opened the halt */
  reason: NotificationType;
  start: number;
  end: number;
}

export interface NewsHalt {
  inst: Instrument;
  /** T1: trading halted, news pending */
  haltTime: number;
  /** T2: news released (the session-news article is published then) */
  newsTime: number;
  /** T3: trading resumes */
  resumeTime: number;
  /** the log move the news causes: the jump's when trading resumes at a jump, else the day's return */
  move: number;
  /** the jump at which trading resumes, if any */
  jump: Jump | null;
}

export interface LuldPause {
  inst: Instrument;
  type: 'LUDP' | 'LUDS';
  jump: Jump;
  time: number;
  /** null when the pause runs into the close */
  resumeTime: number | null;
  /** the band that was breached, fractional */
  band: number;
  /** the jump's % move, fractional and signed */
  pctMove: number;
}

export interface IpoListing {
  ticker: string;
  companyName: string;
  /** offer price, dollars */
  offerPrice: number;
  shares: number;
  withdrawn: boolean;
  /** the positioning window was extended (IPOE) */
  extended: boolean;
  /** IPO1 */
  haltTime: number;
  /** IPOQ (null when withdrawn) */
  quoteTime: number | null;
  /** R1, first trade (null when withdrawn) */
  openTime: number | null;
  /** IPOE and D of a withdrawn offering (null otherwise) */
  extendTime: number | null;
  deleteTime: number | null;
}

/** Everything one instrument's session holds, from daily data. */
export interface InstrumentSituation {
  newsHalt: NewsHalt | null;
  pauses: LuldPause[];
  /** intervals without trading: the instrument's own halts and the market-wide ones */
  halts: HaltWindow[];
  notices: Notice[];
}

/** The code published when a LULD pause ends. */
export const LULD_RESUMPTION: NotificationType = 'T3';
export const LULD_PAUSE_MS = 5 * MINUTE;
/** The circuit-breaker ticker. */
export const MARKET_WIDE_TICKER = 'SPX';
/** A block of trading days whose worst SPX day runs the synthetic circuit-breaker sequence. */
export const CIRCUIT_BREAKER_BLOCK_DAYS = 200;

// --- session geometry --------------------------------------------------------------------------

interface Session {
  date: LocalDate;
  day: number;
  open: number;
  close: number;
}

function sessionOf(ctx: SessionContext): Session {
  const b = sessionBounds(ctx.date);
  if (!b) throw new RangeError(`${ctx.date} is not a trading day`);
  return { date: ctx.date, day: dayIndex(ctx.date), open: b.open, close: b.close };
}

/** Uniform epoch-ms in [lo, hi), whole seconds. */
function timeBetween(r: Rand, lo: number, hi: number): number {
  return lo + 1000 * Math.floor((r.next() * (hi - lo)) / 1000);
}

/** hh:mm:ss New York time, for messages. */
export function etClock(ms: number): string {
  const local = new Date(ms + nyUtcOffsetMinutes(ms) * MINUTE);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(local.getUTCHours())}:${p(local.getUTCMinutes())}:${p(local.getUTCSeconds())} ET`;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const overlaps = (w: readonly HaltWindow[], start: number, end: number) => w.some((h) => start < h.end && h.start < end);
const isSingleStock = (i: Instrument) => !i.isETF && !i.isIndex;

// --- LULD --------------------------------------------------------------------------------------

/** LULD percentage band for an instrument at an instant (see the header). */
export function luldBand(inst: Instrument, referencePrice: number, atMs: number, s: { open: number; close: number }): number {
  const tier1 = inst.isETF || inst.marketCap >= 5e9;
  const base = referencePrice <= 3 ? 0.2 : tier1 ? 0.05 : 0.1;
  const doubled = atMs < s.open + 15 * MINUTE || atMs >= s.close - 25 * MINUTE;
  return doubled ? 2 * base : base;
}

function previousClose(ctx: SessionContext, inst: Instrument, day: number): number {
  return ctx.model.previousClose(inst, day);
}

// --- news-pending halts ------------------------------------------------------------------------

const NEWS_HALT_SIGMAS = 3;
const NEWS_HALT_PROBABILITY = 0.2;

/** The news-pending halt of one instrument's session, if it has one. */
export function newsHaltFor(ctx: SessionContext, inst: Instrument): NewsHalt | null {
  const s = sessionOf(ctx);
  return newsHaltIn(ctx, s, inst, isSingleStock(inst) ? ctx.model.jumps(inst, s.date) : []);
}

// Streams are created only once a situation needs one: most instrument-days need none.
function newsHaltIn(ctx: SessionContext, s: Session, inst: Instrument, jumps: readonly Jump[]): NewsHalt | null {
  if (!isSingleStock(inst)) return null;
  const ret = ctx.model.series(inst).ret[s.day];
  if (Math.abs(ret) < NEWS_HALT_SIGMAS * dailySigma(inst)) return null;
  const r = Rand.of(ctx.seed, 'notif-news-halt', inst.symbol, s.date);
  if (!r.bool(NEWS_HALT_PROBABILITY)) return null;
  // Resume at the biggest jump in the day's direction: the halt is why the price gaps there.
  let jump: Jump | null = null;
  for (const j of jumps) {
    if (Math.sign(j.logMove) === Math.sign(ret) && (!jump || Math.abs(j.logMove) > Math.abs(jump.logMove))) jump = j;
  }
  let resumeTime: number;
  let newsTime: number;
  let haltTime: number;
  if (jump) {
    resumeTime = jump.atMs;
    newsTime = resumeTime - r.int(5, 10) * MINUTE;
    haltTime = newsTime - r.int(5, 25) * MINUTE;
  } else {
    haltTime = timeBetween(r, s.open + 15 * MINUTE, s.close - 90 * MINUTE);
    newsTime = haltTime + r.int(5, 25) * MINUTE;
    resumeTime = newsTime + r.int(5, 10) * MINUTE;
  }
  return { inst, haltTime, newsTime, resumeTime, move: jump ? jump.logMove : ret, jump };
}

/** The news-pending halts of a session (shared with session-news, which publishes at T2). */
export function newsHalts(ctx: SessionContext, instruments: readonly Instrument[]): NewsHalt[] {
  const out: NewsHalt[] = [];
  for (const inst of instruments) {
    const h = newsHaltFor(ctx, inst);
    if (h) out.push(h);
  }
  return out;
}

function newsHaltNotices(h: NewsHalt): Notice[] {
  const t = h.inst.symbol;
  return [
    { ticker: t, type: 'T1', time: h.haltTime, message: `Trading halted in ${t}: news pending` },
    { ticker: t, type: 'T2', time: h.newsTime, message: `News released by ${h.inst.companyName}; trading in ${t} remains halted` },
    { ticker: t, type: 'T3', time: h.resumeTime, message: `Trading in ${t} resumes at ${etClock(h.resumeTime)}` },
  ];
}

// --- background halts --------------------------------------------------------------------------

interface Step {
  /** one is drawn */
  types: readonly NotificationType[];
  /** minutes after the previous step */
  gap: readonly [number, number];
}

interface Scenario {
  who: 'stock' | 'etf' | 'any';
  rate: number;
  /** the first step is published before the open and trading resumes at a later step */
  preOpen?: boolean;
  steps: readonly Step[];
}

const BG = 1.2e-4;
const first = (...types: NotificationType[]): Step => ({ types, gap: [0, 0] });
const then = (lo: number, hi: number, ...types: NotificationType[]): Step => ({ types, gap: [lo, hi] });

/** Rare halts with their resolution, so every one of the 36 codes occurs in a long history. */
const SCENARIOS: readonly Scenario[] = [
  { who: 'stock', rate: BG, steps: [first('H10'), then(45, 150, 'C11')] },
  { who: 'stock', rate: BG, steps: [first('H11'), then(30, 120, 'C11', 'R4')] },
  { who: 'stock', rate: BG, steps: [first('H4'), then(30, 120, 'R4', 'C4')] },
  { who: 'stock', rate: BG, steps: [first('H9'), then(30, 120, 'R9', 'C9')] },
  { who: 'stock', rate: BG, steps: [first('T12'), then(20, 60, 'C3')] },
  { who: 'stock', rate: BG, steps: [first('T6'), then(10, 40, 'T3')] },
  { who: 'stock', rate: BG, steps: [first('T5'), then(5, 5, 'T7'), then(5, 5, 'T3')] },
  { who: 'stock', rate: BG, preOpen: true, steps: [first('M1'), then(0, 0, 'R2')] },
  { who: 'any', rate: BG, steps: [first('O1'), then(5, 30, 'R2')] },
  { who: 'any', rate: BG, steps: [first('M2'), then(2, 15, 'R2')] },
  { who: 'any', rate: BG, steps: [first('M'), then(5, 5, 'T3')] },
  { who: 'etf', rate: 1e-3, steps: [first('T8'), then(10, 45, 'R2')] },
];

const MESSAGES: Partial<Record<NotificationType, string>> = {
  H10: 'SEC trading suspension',
  H11: 'Trading halted: regulatory concern',
  H4: 'Trading halted: non-compliance with listing requirements',
  H9: 'Trading halted: issuer not current in required filings',
  T12: 'Trading halted: additional information requested by the exchange',
  T6: 'Trading halted: extraordinary market activity',
  T5: 'Single-stock trading pause in effect',
  T7: 'Quotation-only period before resumption',
  T8: 'ETF trading halted (exchange-traded fund)',
  M1: 'Trading halted: corporate action',
  O1: 'Operations halt; contact market operations',
  M2: 'Quotation not available',
  M: 'Volatility trading pause',
  C11: 'Halt ended by another regulatory authority; quotes and trades resume',
  R4: 'Qualification issues resolved; quoting and trading to resume',
  C4: 'Qualifications halt ended, maintenance requirements met; trading resumes',
  R9: 'Filing requirements satisfied; quoting and trading to resume',
  C9: 'Qualifications halt concluded, filings met; quotes and trades resume',
  C3: 'Issuer news not forthcoming; quoting and trading to resume',
  R2: 'Issue available; trading resumes',
  T3: 'Trading resumes',
};

function messageFor(type: NotificationType, ticker: string, time: number): string {
  const text = MESSAGES[type] ?? NOTIFICATION_TYPES[type];
  return `${ticker}: ${text} (${etClock(time)})`;
}

function eligible(s: Scenario, inst: Instrument): boolean {
  if (inst.isIndex) return false;
  return s.who === 'any' || (s.who === 'etf' ? inst.isETF : !inst.isETF);
}

/** The instrument's rare background halt, if one fires and fits beside its other halts. */
function backgroundHalt(ctx: SessionContext, s: Session, inst: Instrument, busy: readonly HaltWindow[]): { notices: Notice[]; halt: HaltWindow } | null {
  const r = Rand.of(ctx.seed, 'notif-background', inst.symbol, s.date);
  // One uniform draw walks the cumulative rates: at most one scenario a session.
  let u = r.next();
  const scenario = SCENARIOS.find((sc) => eligible(sc, inst) && (u -= sc.rate) < 0);
  if (!scenario) return null;
  const span = scenario.steps.reduce((sum, st) => sum + st.gap[1], 0) * MINUTE;
  let t = scenario.preOpen
    ? timeBetween(r, nyLocalToEpochMs(s.date, 8, 0), nyLocalToEpochMs(s.date, 9, 15))
    : timeBetween(r, s.open + 5 * MINUTE, s.close - span - 10 * MINUTE);
  const notices: Notice[] = [];
  for (const [i, st] of scenario.steps.entries()) {
    if (i > 0) t = scenario.preOpen && i === scenario.steps.length - 1 ? s.open + r.int(0, 20) * MINUTE : t + r.int(st.gap[0], st.gap[1]) * MINUTE;
    const type = r.pick(st.types);
    notices.push({ ticker: inst.symbol, type, time: t, message: messageFor(type, inst.symbol, t) });
  }
  const start = scenario.preOpen ? s.open : notices[0].time;
  const end = notices[notices.length - 1].time;
  if (overlaps(busy, start, end)) return null;
  return { notices, halt: { ticker: inst.symbol, reason: notices[0].type, start, end } };
}

// --- Reg SHO -------------------------------------------------------------------------------------

const REG_SHO_DROP = Math.log(0.9);

function regShoNotices(ctx: SessionContext, s: Session, inst: Instrument, jumps: readonly Jump[]): Notice[] {
  if (!isSingleStock(inst)) return [];
  const series = ctx.model.series(inst);
  const out: Notice[] = [];
  let stream: Rand | null = null;
  const rand = () => (stream ??= Rand.of(ctx.seed, 'notif-regsho', inst.symbol, s.date));
  // Rule 201 stays in effect through the next session: announce the carry-over before the open.
  if (s.day > 0 && series.ret[s.day - 1] <= REG_SHO_DROP) {
    const t = timeBetween(rand(), nyLocalToEpochMs(s.date, 7, 0), nyLocalToEpochMs(s.date, 9, 0));
    out.push({ ticker: inst.symbol, type: 'REG_SHO', time: t, message: `${inst.symbol}: Reg SHO Rule 201 short-sale price test remains in effect today` });
  }
  if (series.ret[s.day] <= REG_SHO_DROP) {
    const prev = previousClose(ctx, inst, s.day);
    const drop = jumps.find((j) => j.logMove < 0);
    const r = rand();
    // When the drop happened is known only roughly at the daily level: at the open for a gap
    // through -10%, at a down jump, else in the afternoon (a bridge to the close crosses late).
    const t =
      series.open[s.day] <= 0.9 * prev
        ? s.open + r.int(1, 30) * 1000
        : drop
          ? drop.atMs + r.int(1, 20) * 1000
          : timeBetween(r, s.open + Math.round(0.55 * (s.close - s.open)), s.close - 5 * MINUTE);
    out.push({
      ticker: inst.symbol,
      type: 'REG_SHO',
      time: t,
      message: `${inst.symbol}: Reg SHO Rule 201 short-sale price test triggered (down 10% from ${prev.toFixed(2)})`,
    });
  }
  return out;
}

// --- market-wide circuit breakers ----------------------------------------------------------------

const MWC_LEVELS = [Math.log(0.93), Math.log(0.87), Math.log(0.8)];
const MWC_HALT_MS = 15 * MINUTE;

function marketReference(): Instrument | undefined {
  return universeInstrument('SPX') ?? universeInstrument('SPY');
}

/** Circuit-breaker level reached on a trading day (0 = none): real rule or the block's synthetic day. */
function circuitBreakerLevel(ctx: SessionContext, day: number): number {
  const ref = marketReference();
  if (!ref) return 0;
  const ret = ctx.model.series(ref).ret;
  let level = 0;
  for (const [i, limit] of MWC_LEVELS.entries()) if (ret[day] <= limit) level = i + 1;
  const from = day - (day % CIRCUIT_BREAKER_BLOCK_DAYS);
  const to = Math.min(TRADING_DAYS.length, from + CIRCUIT_BREAKER_BLOCK_DAYS);
  let worst = from;
  for (let d = from + 1; d < to; d++) if (ret[d] < ret[worst]) worst = d;
  return worst === day ? 3 : level;
}

function circuitBreakers(ctx: SessionContext, s: Session): { notices: Notice[]; halts: HaltWindow[] } {
  const notices: Notice[] = [];
  const halts: HaltWindow[] = [];
  const T = MARKET_WIDE_TICKER;
  let stream: Rand | null = null;
  const rand = () => (stream ??= Rand.of(ctx.seed, 'notif-mwc', s.date));
  if (s.day > 0 && circuitBreakerLevel(ctx, s.day - 1) === 3) {
    const t = timeBetween(rand(), nyLocalToEpochMs(s.date, 8, 0), nyLocalToEpochMs(s.date, 9, 0));
    notices.push({ ticker: T, type: 'MWC0', time: t, message: 'Market-wide circuit breaker halt carried over from the previous session' });
    notices.push({ ticker: T, type: 'MWCQ', time: s.open, message: `Market-wide trading resumes at ${etClock(s.open)}` });
  }
  const level = circuitBreakerLevel(ctx, s.day);
  if (level === 0) return { notices, halts };
  // Levels 1 and 2 halt 15 minutes and only before 15:25; level 3 halts to the close. The gaps
  // are scaled to the session so a half day fits the whole escalation.
  const scale = (s.close - s.open) / (390 * MINUTE);
  const r = rand();
  const gap = (lo: number, hi: number) => Math.round(r.int(lo, hi) * scale) * MINUTE;
  let t = s.open + gap(150, 250);
  const percent = [7, 13, 20];
  for (let l = 1; l <= level; l++) {
    const type: NotificationType = l === 1 ? 'MWC1' : l === 2 ? 'MWC2' : 'MWC3';
    if (l > 1) t += MWC_HALT_MS + gap(l === 2 ? 20 : 15, l === 2 ? 60 : 40);
    t = Math.min(t, s.close - 5 * MINUTE);
    notices.push({ ticker: T, type, time: t, message: `Market-wide circuit breaker level ${l}: S&P 500 down ${percent[l - 1]}%` });
    if (l === 3) {
      // Halted through the close: no closing auction either.
      halts.push({ ticker: T, reason: type, start: t, end: s.close + 1 });
    } else {
      notices.push({ ticker: T, type: 'MWCQ', time: t + MWC_HALT_MS, message: `Market-wide trading resumes at ${etClock(t + MWC_HALT_MS)}` });
      halts.push({ ticker: T, reason: type, start: t, end: t + MWC_HALT_MS });
    }
  }
  return { notices, halts };
}

// --- fictional issuers: IPOs and deletions ---------------------------------------------------------

const STEMS = [
  'Ar',
  'Bel',
  'Cor',
  'Dax',
  'El',
  'Fen',
  'Gal',
  'Hal',
  'Iv',
  'Jun',
  'Kel',
  'Lum',
  'Mor',
  'Nov',
  'Or',
  'Pax',
  'Quel',
  'Rav',
  'Sol',
  'Tav',
  'Ul',
  'Ver',
  'Wyn',
  'Xan',
  'Zel',
];
const ENDINGS = ['ara', 'ent', 'ion', 'ova', 'ix', 'um', 'is', 'eo', 'yn', 'ora'];
const KINDS = [
  'Therapeutics',
  'Robotics',
  'Energy',
  'Labs',
  'Holdings',
  'Software',
  'Biosciences',
  'Networks',
  'Semiconductor',
  'Foods',
  'Aerospace',
  'Financial',
];

let universeSymbols: ReadonlySet<string> | null = null;

/** A plausible fictional issuer: name and a 3-4 letter ticker that is no universe symbol. */
function fictionalIssuer(r: Rand, taken: Set<string>): { ticker: string; companyName: string } {
  universeSymbols ??= new Set(loadUniverse().map((i) => i.symbol));
  for (;;) {
    const word = r.pick(STEMS) + r.pick(ENDINGS);
    const companyName = `${word} ${r.pick(KINDS)}`;
    // Ticker from the name's first letter and consonants, as exchanges usually assign them.
    const letters = word.toUpperCase().replace(/[^A-Z]/g, '');
    const consonants = letters.slice(1).replace(/[AEIOUY]/g, '');
    const ticker = (letters[0] + consonants + letters.slice(1)).slice(0, r.bool(0.5) ? 3 : 4);
    if (ticker.length >= 3 && !universeSymbols.has(ticker) && !taken.has(ticker)) {
      taken.add(ticker);
      return { ticker, companyName };
    }
  }
}

const IPO_RATE = 0.12;
const IPO_EXTENDED = 0.3;
const IPO_WITHDRAWN = 0.06;
const DELISTING_RATE = 0.03;

/** New listings of the session (fictional issuers), shared with session-news. */
export function ipoListings(ctx: SessionContext): IpoListing[] {
  const s = sessionOf(ctx);
  const r = Rand.of(ctx.seed, 'notif-ipo', s.date);
  const taken = new Set<string>();
  const out: IpoListing[] = [];
  const count = r.poisson(IPO_RATE);
  for (let k = 0; k < count; k++) {
    const issuer = fictionalIssuer(r, taken);
    const offerPrice = r.int(10, 40);
    const shares = r.int(5, 40) * 1_000_000;
    const withdrawn = r.bool(IPO_WITHDRAWN);
    const quoteTime = timeBetween(r, s.open + 90 * MINUTE, Math.min(s.open + 240 * MINUTE, s.close - 60 * MINUTE));
    const extended = withdrawn || r.bool(IPO_EXTENDED);
    const openTime = quoteTime + (extended ? 30 : 15) * MINUTE + r.int(0, 300) * 1000;
    const listing = { ...issuer, offerPrice, shares, withdrawn, extended, haltTime: s.open };
    if (withdrawn) out.push({ ...listing, quoteTime: null, openTime: null, extendTime: s.open + 120 * MINUTE, deleteTime: s.open + 180 * MINUTE });
    else out.push({ ...listing, quoteTime, openTime, extendTime: null, deleteTime: null });
  }
  return out;
}

function ipoNotices(ctx: SessionContext): Notice[] {
  const out: Notice[] = [];
  for (const ipo of ipoListings(ctx)) {
    const t = ipo.ticker;
    out.push({
      ticker: t,
      type: 'IPO1',
      time: ipo.haltTime,
      message: `${t} (${ipo.companyName}): IPO issue not yet trading; offer price ${ipo.offerPrice.toFixed(2)}`,
    });
    if (ipo.extendTime !== null && ipo.deleteTime !== null) {
      out.push({ ticker: t, type: 'IPOE', time: ipo.extendTime, message: `${t}: IPO positioning window extended` });
      out.push({ ticker: t, type: 'D', time: ipo.deleteTime, message: `${t}: offering withdrawn; security deleted` });
      continue;
    }
    const q = ipo.quoteTime as number;
    out.push({ ticker: t, type: 'IPOQ', time: q, message: `${t}: IPO security released for quotation` });
    if (ipo.extended) out.push({ ticker: t, type: 'IPOE', time: q + 15 * MINUTE, message: `${t}: IPO positioning window extended` });
    out.push({
      ticker: t,
      type: 'R1',
      time: ipo.openTime as number,
      message: `${t}: new issue available; trading begins at ${etClock(ipo.openTime as number)}`,
    });
  }
  return out;
}

function delistingNotices(ctx: SessionContext, s: Session): Notice[] {
  const r = Rand.of(ctx.seed, 'notif-delisting', s.date);
  if (!r.bool(DELISTING_RATE)) return [];
  const issuer = fictionalIssuer(r, new Set(ipoListings(ctx).map((i) => i.ticker)));
  const t = timeBetween(r, nyLocalToEpochMs(s.date, 7, 0), nyLocalToEpochMs(s.date, 9, 25));
  const why = r.pick(['merger completed', 'voluntary delisting', 'failure to meet listing standards']);
  return [{ ticker: issuer.ticker, type: 'D', time: t, message: `${issuer.ticker} (${issuer.companyName}): security deleted (${why})` }];
}

// --- per instrument ----------------------------------------------------------------------------------

/** LULD pauses at the jumps that breach the band (the jump a news halt resumes at excepted). */
function luldPauses(ctx: SessionContext, s: Session, inst: Instrument, jumps: readonly Jump[], skip: Jump | null, busy: HaltWindow[]): LuldPause[] {
  if (inst.isIndex || jumps.length === 0) return [];
  const r = Rand.of(ctx.seed, 'notif-luld', inst.symbol, s.date);
  const ref = previousClose(ctx, inst, s.day);
  const out: LuldPause[] = [];
  for (const jump of jumps) {
    if (skip && jump.atSec === skip.atSec) continue;
    const straddle = r.bool(0.2);
    const pctMove = Math.exp(jump.logMove) - 1;
    const band = luldBand(inst, ref, jump.atMs, s);
    if (Math.abs(pctMove) <= band || overlaps(busy, jump.atMs, jump.atMs + 1)) continue;
    const end = jump.atMs + LULD_PAUSE_MS;
    const resumeTime = end < s.close ? end : null;
    out.push({ inst, type: straddle ? 'LUDS' : 'LUDP', jump, time: jump.atMs, resumeTime, band, pctMove });
    busy.push({ ticker: inst.symbol, reason: straddle ? 'LUDS' : 'LUDP', start: jump.atMs, end: Math.min(end, s.close) });
  }
  return out;
}

function pauseNotices(p: LuldPause): Notice[] {
  const t = p.inst.symbol;
  const out: Notice[] = [
    {
      ticker: t,
      type: p.type,
      time: p.time,
      message: `${t}: LULD trading pause${p.type === 'LUDS' ? ' (straddle condition)' : ''}; price moved ${pct(p.pctMove)} against a ${pct(p.band)} band`,
    },
  ];
  if (p.resumeTime !== null)
    out.push({ ticker: t, type: LULD_RESUMPTION, time: p.resumeTime, message: `${t}: LULD pause ended; trading resumes at ${etClock(p.resumeTime)}` });
  return out;
}

function situationIn(ctx: SessionContext, s: Session, inst: Instrument, market: HaltWindow[]): InstrumentSituation {
  const jumps = inst.isIndex ? [] : ctx.model.jumps(inst, s.date);
  const newsHalt = newsHaltIn(ctx, s, inst, jumps);
  // Market-wide halts are shared by every instrument; its own halts are added as they are placed.
  const busy: HaltWindow[] = market.map((h) => ({ ...h, ticker: inst.symbol }));
  const notices: Notice[] = [];
  if (newsHalt) {
    busy.push({ ticker: inst.symbol, reason: 'T1', start: Math.max(newsHalt.haltTime, s.open), end: newsHalt.resumeTime });
    notices.push(...newsHaltNotices(newsHalt));
  }
  const pauses = luldPauses(ctx, s, inst, jumps, newsHalt?.jump ?? null, busy);
  for (const p of pauses) notices.push(...pauseNotices(p));
  const bg = backgroundHalt(ctx, s, inst, busy);
  if (bg) {
    busy.push(bg.halt);
    notices.push(...bg.notices);
  }
  notices.push(...regShoNotices(ctx, s, inst, jumps));
  return { newsHalt, pauses, halts: busy.filter((h) => h.end > h.start).sort((a, b) => a.start - b.start), notices };
}

/** One instrument's halts, pauses and notices of the session (market-wide halts included). */
export function instrumentSituation(ctx: SessionContext, inst: Instrument): InstrumentSituation {
  const s = sessionOf(ctx);
  return situationIn(ctx, s, inst, inst.isIndex ? [] : circuitBreakers(ctx, s).halts);
}

/** Intervals in which the instrument does not trade (used by the equity print generator). */
export function haltWindows(ctx: SessionContext, inst: Instrument): HaltWindow[] {
  return instrumentSituation(ctx, inst).halts;
}

/** Every exchange notification of the session for these instruments, plus market-level notices. */
export function sessionNotifications(ctx: SessionContext, instruments: readonly Instrument[]): SimEvent[] {
  const s = sessionOf(ctx);
  const mwc = circuitBreakers(ctx, s);
  const notices: Notice[] = [...mwc.notices, ...ipoNotices(ctx), ...delistingNotices(ctx, s)];
  for (const inst of instruments) {
    if (!inst.isIndex) notices.push(...situationIn(ctx, s, inst, mwc.halts).notices);
  }
  return toEvents(s.date, notices);
}

/** Ids count each ticker's notices in time order; events come out sorted by (time, id). */
function toEvents(date: LocalDate, notices: Notice[]): SimEvent[] {
  notices.sort((a, b) => a.time - b.time || (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0));
  const perTicker = new Map<string, number>();
  const d = compactDate(date);
  const events: SimEvent[] = notices.map((n) => {
    const k = perTicker.get(n.ticker) ?? 0;
    perTicker.set(n.ticker, k + 1);
    return {
      type: 'exchange-notification',
      time: n.time,
      data: { id: `N-${d}-${n.ticker}-${k}`, ticker: n.ticker, type: n.type, time: n.time, message: n.message },
    };
  });
  return events;
}
