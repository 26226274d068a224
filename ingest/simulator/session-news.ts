import { type LocalDate, nyLocalToEpochMs, sessionBounds } from '../../services/domain/calendar';
import type { NewsTopic, Sentiment } from '../../services/domain/news';
import type { Instrument } from '../../services/domain/universe';
import type { SessionContext, SimEvent } from './events';
import { dailySigma, dayIndex } from './market';
import { etClock, instrumentSituation, ipoListings, type IpoListing } from './notifications';
import { Rand } from './random';

/**
 * Market-moving news of one session, tied to the price moves of the market model and decided
 * from DAILY-level data only (daily series, jump schedule, the notification situations), so a
 * daily backfill and a tick-level session publish the same articles:
 *
 * - a news-pending halt (notifications.newsHaltFor): the article is published at T2 (news
 *   released), a few seconds after it, about the move trading resumes into;
 * - every other price jump: a breaking article up to 10 s before the jump (the headline is what
 *   moves the price), mentioning the LULD pause when one followed;
 * - a day with |return| > 2 daily sigmas and no jump: a pre-market article (07:00-09:25 ET)
 *   when the open gapped at least one sigma the same way, else a "why is it moving" article in
 *   the last 90-15 minutes of the session quoting roughly the day's move;
 * - new listings (notifications.ipoListings): a pricing article before the open, or a
 *   postponement when the offering is withdrawn;
 * - a market wrap (MARKET_SUMMARY) 5-15 minutes after the close with the index moves.
 *
 * Sentiment of the primary ticker has the sign of the move and a strength from its size in
 * daily sigmas: >= 4 EXTREMELY, >= 2.5 MODERATELY, else SLIGHTLY. 30% of stock stories also tag
 * a peer from the same industry (else sector) one step milder (SLIGHTLY becomes NEUTRAL).
 * Topics come from the catalyst (earnings, guidance, analyst action, FDA for drug makers,
 * M&A, contracts, legal, offerings, management, short sellers, rumors, buybacks) plus MOVERS,
 * WIIM, a sector topic and a size topic (LARGE_CAP / MID_CAP / SMALL_CAP, PENNY_STOCKS).
 * Analyst firms and acquirers are fictional.
 *
 * Ids live in their own space: SESSION_NEWS_ID_BASE (1e12) + dayIndex * 1e4 + n, n the article's
 * rank in the session. The 24/7 background feed (ingest/sources/news-simulator.ts) uses
 * minute * 10 + n (about 3e8 today, 4e10 in the year 9999), so the two never collide.
 */

export const SESSION_NEWS_ID_BASE = 1e12;
export const SESSION_NEWS_IDS_PER_DAY = 1e4;

const MINUTE = 60_000;
const MOVER_SIGMAS = 2;
const PEER_PROBABILITY = 0.3;

export type StoryKind = 'halt' | 'jump' | 'premarket' | 'mover';

/** One instrument's newsworthy move: what an article is about. */
export interface Story {
  inst: Instrument;
  kind: StoryKind;
  /** publication time, epoch-ms */
  time: number;
  /** the log move the article reports */
  move: number;
  /** extra facts for the body */
  haltTime?: number;
  resumeTime?: number;
  paused?: boolean;
}

export function sessionNewsId(date: LocalDate, n: number): number {
  if (!Number.isInteger(n) || n < 0 || n >= SESSION_NEWS_IDS_PER_DAY) throw new RangeError(`article rank ${n} is outside 0..${SESSION_NEWS_IDS_PER_DAY - 1}`);
  return SESSION_NEWS_ID_BASE + dayIndex(date) * SESSION_NEWS_IDS_PER_DAY + n;
}

// --- sentiment ---------------------------------------------------------------------------------

const BEARISH: readonly Sentiment[] = ['SLIGHTLY_BEARISH', 'MODERATELY_BEARISH', 'EXTREMELY_BEARISH'];
const BULLISH: readonly Sentiment[] = ['SLIGHTLY_BULLISH', 'MODERATELY_BULLISH', 'EXTREMELY_BULLISH'];

/** Sentiment of a move of `sigmas` daily sigmas (signed); strength 0 is NEUTRAL. */
function sentimentOf(sign: number, strength: number): Sentiment {
  if (strength <= 0 || sign === 0) return 'NEUTRAL';
  return (sign > 0 ? BULLISH : BEARISH)[Math.min(3, strength) - 1];
}

function storyStrength(move: number, sigma: number): number {
  const z = Math.abs(move) / sigma;
  return z >= 4 ? 3 : z >= 2.5 ? 2 : 1;
}

// --- stories -----------------------------------------------------------------------------------

const isStock = (i: Instrument) => !i.isETF && !i.isIndex;

function timeBetween(r: Rand, lo: number, hi: number): number {
  return lo + 1000 * Math.floor((r.next() * (hi - lo)) / 1000);
}

/** The newsworthy moves of the session, one per article (market wrap and IPOs aside). */
export function sessionStories(ctx: SessionContext, instruments: readonly Instrument[]): Story[] {
  const b = sessionBounds(ctx.date);
  if (!b) throw new RangeError(`${ctx.date} is not a trading day`);
  const day = dayIndex(ctx.date);
  const out: Story[] = [];
  for (const inst of instruments) {
    if (!isStock(inst)) continue;
    const r = Rand.of(ctx.seed, 'session-news-story', inst.symbol, ctx.date);
    const situation = instrumentSituation(ctx, inst);
    const halt = situation.newsHalt;
    if (halt)
      out.push({ inst, kind: 'halt', time: halt.newsTime + r.int(5, 60) * 1000, move: halt.move, haltTime: halt.haltTime, resumeTime: halt.resumeTime });
    const jumps = ctx.model.jumps(inst, ctx.date).filter((j) => !halt?.jump || j.atSec !== halt.jump.atSec);
    for (const j of jumps) {
      const paused = situation.pauses.some((p) => p.jump.atSec === j.atSec);
      out.push({ inst, kind: 'jump', time: j.atMs - r.int(0, 10_000), move: j.logMove, paused });
    }
    if (halt || jumps.length) continue;
    const series = ctx.model.series(inst);
    const sigma = dailySigma(inst);
    const ret = series.ret[day];
    if (Math.abs(ret) <= MOVER_SIGMAS * sigma) continue;
    const gap = Math.log(series.open[day] / ctx.model.previousClose(inst, day));
    if (Math.sign(gap) === Math.sign(ret) && Math.abs(gap) >= sigma) {
      out.push({ inst, kind: 'premarket', time: timeBetween(r, nyLocalToEpochMs(ctx.date, 7, 0), nyLocalToEpochMs(ctx.date, 9, 25)), move: gap });
    } else {
      out.push({ inst, kind: 'mover', time: timeBetween(r, b.close - 90 * MINUTE, b.close - 15 * MINUTE), move: ret });
    }
  }
  return out;
}

// --- catalysts and text ------------------------------------------------------------------------

type Direction = 'up' | 'down';

interface Catalyst {
  name: string;
  topics: readonly NewsTopic[];
  /** topic added by direction (e.g. EARNINGS_BEATS when up) */
  upTopic?: NewsTopic;
  downTopic?: NewsTopic;
  up: readonly string[];
  down: readonly string[];
  /** body lead by direction */
  upLead: readonly string[];
  downLead: readonly string[];
  /** only for drug makers and biotech */
  drugMakersOnly?: boolean;
}

const CATALYSTS: Record<string, Catalyst> = {
  earnings: {
    name: 'earnings',
    topics: ['EARNINGS'],
    upTopic: 'EARNINGS_BEATS',
    downTopic: 'EARNINGS_MISSES',
    up: [
      '{short} Tops Q{q} Estimates As Revenue Climbs',
      '{short} Beats On Earnings, Lifts Margins; Shares {rise} {pct}%',
      '{short} Q{q} Earnings Beat: Here Is What Drove The Quarter',
    ],
    down: [
      '{short} Misses Q{q} Estimates As Demand Softens',
      '{short} Earnings Fall Short; Shares {fall} {pct}%',
      '{short} Q{q} Results Disappoint On Margin Pressure',
    ],
    upLead: ['{name} ({sym}) reported fiscal Q{q} earnings ahead of analyst estimates, with revenue up {growth}% from a year ago.'],
    downLead: ['{name} ({sym}) reported fiscal Q{q} earnings below analyst estimates as {revenue}.'],
  },
  guidance: {
    name: 'guidance',
    topics: ['GUIDANCE'],
    up: ['{short} Raises Full-Year Outlook; Stock {rises} {pct}%', '{short} Lifts Guidance On Strong Orders'],
    down: ['{short} Cuts Full-Year Guidance; Shares {fall} {pct}%', '{short} Warns On Outlook, Citing Weaker Demand'],
    upLead: ['{name} ({sym}) raised its full-year revenue forecast, citing stronger-than-expected orders.'],
    downLead: ['{name} ({sym}) lowered its full-year forecast, citing softer demand and higher costs.'],
  },
  analyst: {
    name: 'analyst',
    topics: ['ANALYST_RATINGS', 'PRICE_TARGET'],
    upTopic: 'UPGRADES',
    downTopic: 'DOWNGRADES',
    up: ['{firm} Upgrades {short} To Buy, Sets ${pt} Price Target', '{short} {rises} {pct}% After {firm} Upgrade'],
    down: ['{firm} Downgrades {short} To Sell, Cuts Target To ${pt}', '{short} {falls} {pct}% After {firm} Downgrade'],
    upLead: ['{firm} upgraded {name} ({sym}) to Buy from Hold with a ${pt} price target, pointing to improving fundamentals.'],
    downLead: ['{firm} downgraded {name} ({sym}) to Sell from Hold and cut its price target to ${pt}, citing valuation.'],
  },
  fda: {
    name: 'fda',
    topics: ['FDA', 'BIOTECH'],
    drugMakersOnly: true,
    up: ['FDA Approves {short} Treatment; Shares {rise} {pct}%', '{short} Wins FDA Approval For Lead Drug'],
    down: ['FDA Rejects {short} Application; Stock {falls} {pct}%', '{short} Receives Complete Response Letter From FDA'],
    upLead: ['The U.S. Food and Drug Administration approved a treatment developed by {name} ({sym}), clearing the way for a launch this year.'],
    downLead: ['{name} ({sym}) said the FDA declined to approve its application in its current form and asked for additional data.'],
  },
  merger: {
    name: 'merger',
    topics: ['M_AND_A'],
    up: ['{short} To Be Acquired By {acquirer} In ${deal} Billion Deal', '{short} Agrees To Sale; Shares {rise} {pct}%'],
    down: ['{short} Announces ${deal} Billion Acquisition; Shares {fall} {pct}%', 'Investors Balk At {short} Deal For {target}'],
    upLead: ['{name} ({sym}) agreed to be acquired by {acquirer} in an all-cash deal valuing the company at about ${deal} billion.'],
    downLead: ['{name} ({sym}) agreed to buy {target} for about ${deal} billion, a price some investors called rich.'],
  },
  contract: {
    name: 'contract',
    topics: ['CONTRACTS'],
    up: ['{short} Wins ${deal} Billion Multi-Year Contract', '{short} {rises} {pct}% On Major Contract Award'],
    down: [],
    upLead: ['{name} ({sym}) was awarded a multi-year contract worth up to ${deal} billion.'],
    downLead: [],
  },
  legal: {
    name: 'legal',
    topics: ['LEGAL', 'REGULATIONS'],
    up: [],
    down: ['{short} Faces Federal Probe; Shares {fall} {pct}%', 'Regulators Open Investigation Into {short}'],
    upLead: [],
    downLead: ['{name} ({sym}) disclosed that regulators have opened an investigation into its business practices.'],
  },
  offering: {
    name: 'offering',
    topics: ['OFFERINGS', 'FINANCING'],
    up: [],
    down: ['{short} Prices ${deal} Billion Stock Offering', '{short} {falls} {pct}% On Share Sale'],
    upLead: [],
    downLead: ['{name} ({sym}) priced an offering of common stock worth about ${deal} billion, diluting existing holders.'],
  },
  management: {
    name: 'management',
    topics: ['MANAGEMENT'],
    up: ['{short} Names New CEO; Shares {rise} {pct}%'],
    down: ['{short} CEO Steps Down Unexpectedly', '{short} {falls} {pct}% After Surprise Leadership Change'],
    upLead: ['{name} ({sym}) named a new chief executive, a move analysts welcomed.'],
    downLead: ['{name} ({sym}) said its chief executive is stepping down effective immediately.'],
  },
  shortReport: {
    name: 'shortReport',
    topics: ['SHORT_SELLERS', 'SHORT_IDEAS'],
    up: [],
    down: ['Short Seller {firm} Targets {short}; Stock {falls} {pct}%'],
    upLead: [],
    downLead: ['{firm} disclosed a short position in {name} ({sym}) and questioned its accounting.'],
  },
  rumor: {
    name: 'rumor',
    topics: ['RUMORS', 'M_AND_A'],
    up: ['{short} Explores Sale, People Familiar Say', '{short} {rises} {pct}% On Takeover Chatter'],
    down: [],
    upLead: ['{name} ({sym}) is exploring strategic options including a sale, according to people familiar with the matter.'],
    downLead: [],
  },
  buyback: {
    name: 'buyback',
    topics: ['BUYBACKS'],
    up: ['{short} Unveils ${deal} Billion Buyback'],
    down: [],
    upLead: ['{name} ({sym}) authorized a share repurchase program of up to ${deal} billion.'],
    downLead: [],
  },
};

/** Catalyst weights by kind of story (a story picks among those that fit its direction). */
const CATALYST_WEIGHTS: Record<StoryKind, Readonly<Record<string, number>>> = {
  premarket: { earnings: 60, guidance: 15, analyst: 15, fda: 10, merger: 5 },
  jump: { analyst: 20, fda: 15, merger: 10, rumor: 8, contract: 8, legal: 8, guidance: 8, offering: 6, shortReport: 6, management: 6, buyback: 3 },
  halt: { merger: 35, fda: 25, legal: 10, guidance: 10, management: 10, offering: 10 },
  mover: { analyst: 40, guidance: 15, rumor: 10, legal: 10, contract: 10, shortReport: 10, management: 5 },
};

const FIRMS = ['Halvorsen Capital', 'Redwood Securities', 'Marlow & Finch', 'Ketterly Research', 'Northgate Partners', 'Bramblecroft Advisors'];
const ACQUIRERS = ['a private equity consortium', 'Castlerock Partners', 'a larger industry rival', 'Orion Strategic Holdings'];
const TARGETS = ['a software maker', 'a European rival', 'a privately held supplier', 'a specialty distributor'];
const DRUG_MAKERS = new Set(['BIOTECHNOLOGY', 'DRUG_MANUFACTURERS__GENERAL', 'DRUG_MANUFACTURERS__SPECIALTY_AND_GENERIC', 'MEDICAL__PHARMACEUTICALS']);

function pickCatalyst(r: Rand, kind: StoryKind, dir: Direction, inst: Instrument): Catalyst {
  const names: string[] = [];
  const cumulative: number[] = [];
  let total = 0;
  for (const [name, w] of Object.entries(CATALYST_WEIGHTS[kind])) {
    const c = CATALYSTS[name];
    if ((dir === 'up' ? c.up : c.down).length === 0) continue;
    if (c.drugMakersOnly && !DRUG_MAKERS.has(inst.industry)) continue;
    names.push(name);
    cumulative.push((total += w));
  }
  return CATALYSTS[names[r.pickCumulative(cumulative)]];
}

const RISE = ['Rise', 'Jump', 'Climb', 'Surge'];
const FALL = ['Fall', 'Slide', 'Sink', 'Drop'];

/** "Apple Inc." -> "Apple", "The Home Depot, Inc." -> "Home Depot", "Merck & Co., Inc." -> "Merck", for headlines. */
export function shortName(companyName: string): string {
  const s = companyName
    .replace(/^The\s+/u, '')
    .replace(
      /,?\s+(Inc\.?|Incorporated|Corporation|Corp\.?|&\s*Co\.?|Co\.?|Company|Companies|Ltd\.?|Limited|plc|PLC|N\.V\.|S\.A\.|SE|AG|Holdings?|Group|Class [A-Z])$/u,
      '',
    )
    .replace(/\s+&$/u, '');
  return s === companyName ? s : shortName(s);
}

function fill(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? k);
}

const pctText = (logMove: number) => (100 * Math.abs(Math.exp(logMove) - 1)).toFixed(1);

function sectorTopics(inst: Instrument, price: number): NewsTopic[] {
  const t: NewsTopic[] = [];
  if (inst.sector === 'TECHNOLOGY') t.push('TECH');
  if (inst.sector === 'HEALTHCARE') t.push('HEALTH_CARE');
  if (inst.sector === 'REAL_ESTATE') t.push(inst.industry.startsWith('REIT') ? 'REIT' : 'REAL_ESTATE');
  if (inst.industry === 'RESTAURANTS') t.push('RESTAURANTS');
  if (inst.industry.startsWith('INSURANCE')) t.push('INSURANCE');
  if (inst.industry === 'ASSET_MANAGEMENT__CRYPTOCURRENCY' || inst.industry === 'FINANCIAL__CAPITAL_MARKETS') t.push('FINTECH');
  t.push(inst.marketCap >= 10e9 ? 'LARGE_CAP' : inst.marketCap >= 2e9 ? 'MID_CAP' : 'SMALL_CAP');
  if (price < 5) t.push('PENNY_STOCKS');
  return t;
}

/** The sentence about the move itself, by kind of story. */
function moveSentence(s: Story, dir: Direction, pct: string): string {
  const up = dir === 'up';
  switch (s.kind) {
    case 'halt':
      return `Trading in {sym} was halted at ${etClock(s.haltTime as number)} pending the announcement and resumes at ${etClock(s.resumeTime as number)}; the stock is indicated ${up ? 'up' : 'down'} about ${pct}%.`;
    case 'jump':
      return `The stock ${up ? 'jumped' : 'tumbled'} ${pct}% within seconds of the headline${s.paused ? ', triggering a limit up-limit down trading pause' : ''}.`;
    case 'premarket':
      return `Shares were indicated ${up ? 'higher' : 'lower'} by ${pct}% in pre-market trading ahead of the open.`;
    case 'mover':
      return `Shares were ${up ? 'up' : 'down'} about ${pct}% in afternoon trading, among the session's ${up ? 'top gainers' : 'biggest decliners'}.`;
  }
}

interface Article {
  time: number;
  title: string;
  body: string | null;
  topics: NewsTopic[];
  tickers: { ticker: string; sentiment: Sentiment }[];
}

function peerOf(r: Rand, inst: Instrument, instruments: readonly Instrument[]): Instrument | undefined {
  const sameIndustry = instruments.filter((i) => isStock(i) && i.symbol !== inst.symbol && i.industry === inst.industry);
  const pool = sameIndustry.length ? sameIndustry : instruments.filter((i) => isStock(i) && i.symbol !== inst.symbol && i.sector === inst.sector);
  return pool.length ? r.pick(pool) : undefined;
}

function storyArticle(ctx: SessionContext, s: Story, instruments: readonly Instrument[]): Article {
  const r = Rand.of(ctx.seed, 'session-news-text', s.inst.symbol, ctx.date, s.kind, s.time);
  const dir: Direction = s.move > 0 ? 'up' : 'down';
  const prev = ctx.model.previousClose(s.inst, dayIndex(ctx.date));
  const pct = pctText(s.move);
  const catalyst = pickCatalyst(r, s.kind, dir, s.inst);
  const month = Number(ctx.date.slice(5, 7));
  const verb = r.int(0, RISE.length - 1);
  const growth = dir === 'up' ? r.int(8, 35) : r.int(-6, 5);
  const vars: Record<string, string> = {
    name: s.inst.companyName,
    short: shortName(s.inst.companyName),
    sym: s.inst.symbol,
    pct,
    // Verbs for plural subjects ("Shares Rise") and singular ones ("Stock Rises").
    rise: RISE[verb],
    rises: RISE[verb] + 's',
    fall: FALL[verb],
    falls: FALL[verb] + 's',
    // Results published in a month cover the previous calendar quarter.
    q: String(((Math.ceil(month / 3) + 2) % 4) + 1),
    growth: String(growth),
    revenue: growth < 0 ? `revenue fell ${-growth}% from a year ago` : `revenue growth slowed to ${growth}%`,
    firm: r.pick(FIRMS),
    pt: String(Math.max(1, Math.round(prev * Math.exp(s.move) * (dir === 'up' ? 1.2 : 0.8)))),
    acquirer: r.pick(ACQUIRERS),
    target: r.pick(TARGETS),
    deal: Math.max(0.1, (s.inst.marketCap / 1e9) * (dir === 'up' ? 1.25 : 0.15) * (0.6 + 0.4 * r.next())).toFixed(1),
  };
  const title = fill(r.pick(dir === 'up' ? catalyst.up : catalyst.down), vars);
  const lead = fill(r.pick(dir === 'up' ? catalyst.upLead : catalyst.downLead), vars);
  const body = `${lead} ${fill(moveSentence(s, dir, pct), vars)} ${vars.short} closed at $${prev.toFixed(2)} in the previous session.`;
  const strength = storyStrength(s.move, dailySigma(s.inst));
  const sign = Math.sign(s.move);
  const tickers = [{ ticker: s.inst.symbol, sentiment: sentimentOf(sign, strength) }];
  const peer = r.bool(PEER_PROBABILITY) ? peerOf(r, s.inst, instruments) : undefined;
  if (peer) tickers.push({ ticker: peer.symbol, sentiment: sentimentOf(sign, strength - 1) });
  const topics: NewsTopic[] = [...catalyst.topics];
  const directional = dir === 'up' ? catalyst.upTopic : catalyst.downTopic;
  if (directional) topics.push(directional);
  if (s.kind === 'mover') topics.push('WIIM');
  if (s.kind === 'premarket') topics.push('PRE_MARKET_OUTLOOK');
  if (s.kind === 'halt') topics.push('PRESS_RELEASES');
  if (strength >= 2) topics.push('MOVERS');
  topics.push(...sectorTopics(s.inst, prev));
  return { time: s.time, title, body, topics: [...new Set(topics)], tickers };
}

// --- IPOs and the market wrap --------------------------------------------------------------------

function ipoArticle(ctx: SessionContext, ipo: IpoListing): Article {
  const r = Rand.of(ctx.seed, 'session-news-ipo', ipo.ticker, ctx.date);
  const shares = (ipo.shares / 1e6).toFixed(0);
  if (ipo.withdrawn) {
    return {
      time: (ipo.deleteTime as number) + r.int(60, 600) * 1000,
      title: `${ipo.companyName} Postpones IPO, Citing Market Conditions`,
      body: `${ipo.companyName} postponed its planned initial public offering of ${shares} million shares, which had been expected to price around $${ipo.offerPrice} and trade under the ticker ${ipo.ticker}.`,
      topics: ['IPOS', 'EQUITIES'],
      tickers: [{ ticker: ipo.ticker, sentiment: 'SLIGHTLY_BEARISH' }],
    };
  }
  return {
    time: timeBetween(r, nyLocalToEpochMs(ctx.date, 7, 0), nyLocalToEpochMs(ctx.date, 8, 30)),
    title: `${ipo.companyName} Prices IPO Of ${shares} Million Shares At $${ipo.offerPrice}`,
    body: `${ipo.companyName} priced its initial public offering of ${shares} million shares at $${ipo.offerPrice} apiece, raising about $${((ipo.shares * ipo.offerPrice) / 1e6).toFixed(0)} million. The shares are expected to begin trading today under the ticker ${ipo.ticker}.`,
    topics: ['IPOS', 'EQUITIES'],
    tickers: [{ ticker: ipo.ticker, sentiment: 'NEUTRAL' }],
  };
}

interface IndexLine {
  label: string;
  symbols: readonly string[];
}

const WRAP_INDEXES: readonly IndexLine[] = [
  { label: 'S&P 500', symbols: ['SPX', 'SPY'] },
  { label: 'Nasdaq-100', symbols: ['NDX', 'QQQ'] },
  { label: 'Russell 2000', symbols: ['RUT', 'IWM'] },
  { label: 'Dow Jones Industrial Average', symbols: ['DIA'] },
];
const WRAP_TICKERS = ['SPY', 'QQQ', 'IWM', 'DIA'];

/** Sentiment of an index-like move: NEUTRAL below a quarter sigma, then 1, 2, >2 sigmas. */
function marketSentiment(ret: number, sigma: number): Sentiment {
  const z = Math.abs(ret) / sigma;
  return sentimentOf(Math.sign(ret), z < 0.25 ? 0 : z < 1 ? 1 : z < 2 ? 2 : 3);
}

function marketWrap(ctx: SessionContext, instruments: readonly Instrument[], close: number): Article | null {
  const day = dayIndex(ctx.date);
  const bySymbol = new Map(instruments.map((i) => [i.symbol, i]));
  const ret = (i: Instrument) => ctx.model.series(i).ret[day];
  const lines: string[] = [];
  let lead: { label: string; ret: number } | null = null;
  for (const idx of WRAP_INDEXES) {
    const inst = idx.symbols.map((s) => bySymbol.get(s)).find((i) => i !== undefined);
    if (!inst) continue;
    const x = ret(inst);
    lead ??= { label: idx.label, ret: x };
    lines.push(`the ${idx.label} ${x >= 0 ? 'rose' : 'fell'} ${pctText(x)}%`);
  }
  if (!lead) return null;
  const r = Rand.of(ctx.seed, 'session-news-wrap', ctx.date);
  const up = lead.ret >= 0;
  const size = Math.abs(Math.exp(lead.ret) - 1);
  const verb = up ? (size >= 0.015 ? 'Rally' : size >= 0.005 ? 'Climb' : 'Edge Higher') : size >= 0.015 ? 'Tumble' : size >= 0.005 ? 'Slide' : 'Edge Lower';
  const title = r.pick([
    `Stocks ${verb} As ${lead.label} ${up ? 'Gains' : 'Loses'} ${pctText(lead.ret)}%`,
    `Market Wrap: Wall Street Stocks ${verb}; ${lead.label} ${up ? '+' : '-'}${pctText(lead.ret)}%`,
  ]);
  const stocks = instruments
    .filter(isStock)
    .map((i) => ({ i, x: ret(i) }))
    .sort((a, b) => b.x - a.x || (a.i.symbol < b.i.symbol ? -1 : 1));
  const fmt = (e: { i: Instrument; x: number }) => `${e.i.symbol} (${e.x >= 0 ? '+' : '-'}${pctText(e.x)}%)`;
  const movers =
    stocks.length >= 4
      ? ` Leaders included ${fmt(stocks[0])} and ${fmt(stocks[1])}; laggards included ${fmt(stocks[stocks.length - 1])} and ${fmt(stocks[stocks.length - 2])}.`
      : '';
  const vixInst = bySymbol.get('VIX');
  const vix = vixInst ? ` The Cboe Volatility Index ended at ${ctx.model.series(vixInst).close[day].toFixed(2)}.` : '';
  const body = `U.S. stocks closed ${up ? 'higher' : 'lower'} on ${ctx.date}: ${lines.join(', ')}.${movers}${vix}`;
  const tickers: Article['tickers'] = [];
  for (const s of WRAP_TICKERS) {
    const i = bySymbol.get(s);
    if (i) tickers.push({ ticker: s, sentiment: marketSentiment(ret(i), dailySigma(i)) });
  }
  const topics: NewsTopic[] = ['MARKET_SUMMARY', 'MARKETS', 'EQUITIES', 'BROAD_US_EQUITY_ETFS'];
  if (size >= 0.02) topics.push('TOP_STORIES');
  return { time: close + r.int(5, 15) * MINUTE + r.int(0, 59) * 1000, title, body, topics, tickers };
}

// --- the session -------------------------------------------------------------------------------------

/** Every session-news article, sorted by publication time, ids in the session-news space. */
export function sessionNews(ctx: SessionContext, instruments: readonly Instrument[]): SimEvent[] {
  const b = sessionBounds(ctx.date);
  if (!b) throw new RangeError(`${ctx.date} is not a trading day`);
  const articles: Article[] = sessionStories(ctx, instruments).map((s) => storyArticle(ctx, s, instruments));
  for (const ipo of ipoListings(ctx)) articles.push(ipoArticle(ctx, ipo));
  const wrap = marketWrap(ctx, instruments, b.close);
  if (wrap) articles.push(wrap);
  articles.sort((a, b2) => a.time - b2.time || (a.title < b2.title ? -1 : a.title > b2.title ? 1 : 0));
  return articles.map((a, n) => {
    const id = sessionNewsId(ctx.date, n);
    return { type: 'news', time: a.time, data: { id, publishedTime: a.time, title: a.title, body: a.body, topics: a.topics, tickers: a.tickers } };
  });
}
