import type { NewsArticle } from '../../ingest/sources/news-simulator';
import { avroTypeOf, topicFor } from '../../schemas/catalog';
import crypto from 'crypto';
import { newsForMinute } from '../../ingest/sources/news-simulator';
import type { SessionContext } from '../../ingest/simulator/events';
import { MarketModel, TRADING_DAYS, dailySigma, dayIndex } from '../../ingest/simulator/market';
import { ipoListings, newsHalts } from '../../ingest/simulator/notifications';
import { PROFILES } from '../../ingest/simulator/profiles';
import { SESSION_NEWS_ID_BASE, SESSION_NEWS_IDS_PER_DAY, sessionNews, sessionStories, shortName } from '../../ingest/simulator/session-news';
import { nyLocalToEpochMs, sessionBounds } from '../../services/domain/calendar';
import { NEWS_TOPICS, SENTIMENTS, sentimentScore } from '../../services/domain/news';
import { type Instrument, loadUniverse } from '../../services/domain/universe';

const schema = avroTypeOf(topicFor('news')!);
const model = new MarketModel(42);
const universe = loadUniverse();
const dev = PROFILES.dev.selectSymbols(universe);
const bySymbol = new Map(universe.map((i) => [i.symbol, i]));
const topicSet = new Set<string>(NEWS_TOPICS);
const sentimentSet = new Set<string>(SENTIMENTS);

type Article = NewsArticle;

const ctxOf = (date: string, seed = 42): SessionContext => ({ seed, date, profile: PROFILES.full, model });
const articles = (ctx: SessionContext, instruments: readonly Instrument[]) => sessionNews(ctx, instruments).map((e) => e.data as unknown as Article);
const hash = (x: unknown) => crypto.createHash('sha256').update(JSON.stringify(x)).digest('hex');

/** 60 sessions of the full universe from 2025-01-02. */
const START = dayIndex('2025-01-02');
const DAYS = Array.from({ length: 60 }, (_, k) => {
  const date = TRADING_DAYS[START + k];
  return { date, articles: articles(ctxOf(date), universe) };
});

describe('session news', () => {
  it('is deterministic: the same inputs give identical articles, another seed different ones', () => {
    const a = hash(sessionNews(ctxOf('2025-03-12'), universe));
    expect(hash(sessionNews(ctxOf('2025-03-12'), universe))).toBe(a);
    expect(hash(sessionNews(ctxOf('2025-03-12', 43), universe))).not.toBe(a);
  });

  it('validates against news-article.avsc with canonical topics, valid sentiments and distinct upper-case tickers', () => {
    for (const day of DAYS) {
      expect(day.articles.length).toBeGreaterThan(10);
      const bad = day.articles.filter(
        (a) =>
          !schema.isValid(a) ||
          !a.title.trim() ||
          !a.body ||
          a.topics.length === 0 ||
          !a.topics.every((t) => topicSet.has(t)) ||
          new Set(a.topics).size !== a.topics.length ||
          a.tickers.length === 0 ||
          !a.tickers.every((t) => sentimentSet.has(t.sentiment) && /^[A-Z0-9.\-/^]{1,21}$/.test(t.ticker)) ||
          new Set(a.tickers.map((t) => t.ticker)).size !== a.tickers.length,
      );
      expect(bad).toEqual([]);
    }
  });

  it('uses its own id space: unique, sequential per session, and disjoint from the background feed', () => {
    const all = DAYS.flatMap((d) => d.articles.map((a) => a.id));
    expect(new Set(all).size).toBe(all.length);
    for (const day of DAYS) {
      const base = SESSION_NEWS_ID_BASE + dayIndex(day.date) * SESSION_NEWS_IDS_PER_DAY;
      expect(day.articles.map((a) => a.id)).toEqual(day.articles.map((_, n) => base + n));
      expect(day.articles.length).toBeLessThan(SESSION_NEWS_IDS_PER_DAY);
    }
    // The background feed's ids (minute * 10 + n) for the same days never reach the session space.
    const first = Math.floor(nyLocalToEpochMs(DAYS[0].date, 0, 0) / 60_000);
    const last = Math.floor(nyLocalToEpochMs(DAYS[DAYS.length - 1].date, 23, 59) / 60_000);
    const session = new Set(all);
    for (let m = first; m <= last; m += 7) for (const a of newsForMinute(42, m)) expect(session.has(a.id)).toBe(false);
    // Even the year 9999's last minute stays below the session-news base.
    expect(Math.floor(Date.UTC(9999, 11, 31, 23, 59) / 60_000) * 10 + 9).toBeLessThan(SESSION_NEWS_ID_BASE);
  });

  it('publishes in time order, from 07:00 ET to shortly after the close', () => {
    for (const day of DAYS) {
      const b = sessionBounds(day.date) as { open: number; close: number };
      expect(day.articles.filter((a, k) => k > 0 && a.publishedTime < day.articles[k - 1].publishedTime)).toEqual([]);
      expect(day.articles.filter((a) => a.publishedTime < nyLocalToEpochMs(day.date, 7, 0) || a.publishedTime > b.close + 20 * 60_000)).toEqual([]);
    }
  });

  it("gives the primary ticker the move's sign, stronger for bigger moves, and peers a milder one", () => {
    let stories = 0;
    const strength = new Map<number, number[]>();
    for (const day of DAYS.slice(0, 30)) {
      const byTime = new Map(day.articles.map((a) => [`${a.publishedTime}|${a.tickers[0].ticker}`, a]));
      for (const s of sessionStories(ctxOf(day.date), universe)) {
        stories++;
        const a = byTime.get(`${s.time}|${s.inst.symbol}`) as Article;
        expect(a).toBeDefined();
        const score = sentimentScore(a.tickers[0].sentiment);
        expect(Math.sign(score)).toBe(Math.sign(s.move));
        const z = Math.abs(s.move) / dailySigma(s.inst);
        strength.set(Math.abs(score), [...(strength.get(Math.abs(score)) ?? []), z]);
        for (const peer of a.tickers.slice(1)) {
          const p = sentimentScore(peer.sentiment);
          expect(Math.abs(p)).toBeLessThan(Math.abs(score));
          expect(p === 0 || Math.sign(p) === Math.sign(score)).toBe(true);
          expect((bySymbol.get(peer.ticker) as Instrument).sector).toBe(s.inst.sector);
        }
      }
    }
    expect(stories).toBeGreaterThan(500);
    // Every strength occurs, and EXTREMELY_* is only used for moves of 4 sigmas or more.
    expect([...strength.keys()].sort()).toEqual([1, 2, 3]);
    expect(Math.min(...(strength.get(3) as number[]))).toBeGreaterThanOrEqual(4);
    expect(Math.max(...(strength.get(1) as number[]))).toBeLessThan(2.5);
  });

  it('ties stories to the model: jumps at their time, big movers, gaps before the open', () => {
    for (const day of DAYS.slice(0, 30)) {
      const d = dayIndex(day.date);
      const b = sessionBounds(day.date) as { open: number; close: number };
      for (const s of sessionStories(ctxOf(day.date), universe)) {
        const series = model.series(s.inst);
        if (s.kind === 'jump') {
          const jump = model.jumps(s.inst, day.date).find((j) => j.logMove === s.move);
          expect(jump && s.time <= jump.atMs && s.time >= jump.atMs - 10_000).toBeTruthy();
        } else if (s.kind === 'premarket') {
          expect(s.move).toBeCloseTo(Math.log(series.open[d] / series.close[d - 1]), 12);
          expect(s.time).toBeLessThan(b.open);
        } else if (s.kind === 'mover') {
          expect(s.move).toBe(series.ret[d]);
          expect(Math.abs(s.move)).toBeGreaterThan(2 * dailySigma(s.inst));
        }
      }
      // Every single stock that moved more than 2 daily sigmas has an article that day.
      const covered = new Set(day.articles.flatMap((a) => a.tickers.map((t) => t.ticker)));
      const movers = universe.filter((i) => !i.isETF && !i.isIndex && Math.abs(model.series(i).ret[d]) > 2 * dailySigma(i));
      expect(movers.filter((i) => !covered.has(i.symbol))).toEqual([]);
    }
  });

  it('publishes the news of a news-pending halt right after T2, with a fitting topic', () => {
    let halts = 0;
    for (const day of DAYS) {
      for (const h of newsHalts(ctxOf(day.date), universe)) {
        halts++;
        const a = day.articles.find((x) => x.tickers[0].ticker === h.inst.symbol && x.publishedTime >= h.newsTime && x.publishedTime <= h.newsTime + 60_000);
        expect(a).toBeDefined();
        expect((a as Article).topics).toContain('PRESS_RELEASES');
        expect(Math.sign(sentimentScore((a as Article).tickers[0].sentiment))).toBe(Math.sign(h.move));
      }
    }
    expect(halts).toBeGreaterThan(10);
  });

  it('uses topics that fit: FDA only for drug makers, earnings for pre-market gaps, WIIM for movers', () => {
    const drugMakers = new Set(['BIOTECHNOLOGY', 'DRUG_MANUFACTURERS__GENERAL', 'DRUG_MANUFACTURERS__SPECIALTY_AND_GENERIC', 'MEDICAL__PHARMACEUTICALS']);
    const all = DAYS.flatMap((d) => d.articles);
    for (const a of all.filter((x) => x.topics.includes('FDA'))) expect(drugMakers.has((bySymbol.get(a.tickers[0].ticker) as Instrument).industry)).toBe(true);
    const bullishBeats = all.filter((x) => x.topics.includes('EARNINGS_BEATS'));
    expect(bullishBeats.length).toBeGreaterThan(0);
    expect(bullishBeats.every((x) => sentimentScore(x.tickers[0].sentiment) > 0)).toBe(true);
    expect(all.filter((x) => x.topics.includes('EARNINGS_MISSES')).every((x) => sentimentScore(x.tickers[0].sentiment) < 0)).toBe(true);
    expect(all.filter((x) => x.topics.includes('UPGRADES')).every((x) => sentimentScore(x.tickers[0].sentiment) > 0)).toBe(true);
    expect(all.filter((x) => x.topics.includes('DOWNGRADES')).every((x) => sentimentScore(x.tickers[0].sentiment) < 0)).toBe(true);
    for (const t of ['WIIM', 'MOVERS', 'PRE_MARKET_OUTLOOK', 'M_AND_A', 'ANALYST_RATINGS', 'GUIDANCE'])
      expect(all.some((x) => x.topics.includes(t))).toBe(true);
    // Headlines name the company (short form) and bodies the symbol.
    for (const a of all.filter((x) => !x.topics.includes('MARKET_SUMMARY') && !x.topics.includes('IPOS'))) {
      const inst = bySymbol.get(a.tickers[0].ticker) as Instrument;
      expect(a.title).toContain(shortName(inst.companyName));
      expect(a.body).toContain(`(${inst.symbol})`);
    }
  });

  it('wraps the market after the close with the index move and matching ETF sentiment', () => {
    for (const day of DAYS) {
      const close = (sessionBounds(day.date) as { close: number }).close;
      const wraps = day.articles.filter((a) => a.topics.includes('MARKET_SUMMARY'));
      expect(wraps.length).toBe(1);
      const w = wraps[0];
      expect(w.publishedTime).toBeGreaterThan(close);
      const spx = model.series(bySymbol.get('SPX') as Instrument).ret[dayIndex(day.date)];
      expect(w.body).toContain(`S&P 500 ${spx >= 0 ? 'rose' : 'fell'} ${(100 * Math.abs(Math.exp(spx) - 1)).toFixed(1)}%`);
      const spy = w.tickers.find((t) => t.ticker === 'SPY') as { sentiment: string };
      const spyRet = model.series(bySymbol.get('SPY') as Instrument).ret[dayIndex(day.date)];
      const score = sentimentScore(spy.sentiment);
      expect(score === 0 || Math.sign(score) === Math.sign(spyRet)).toBe(true);
    }
  });

  it('announces IPO pricings (or postponements) of the fictional new issues', () => {
    let ipos = 0;
    for (const day of DAYS) {
      for (const ipo of ipoListings(ctxOf(day.date))) {
        ipos++;
        const a = day.articles.find((x) => x.tickers[0].ticker === ipo.ticker);
        expect(a?.topics).toContain('IPOS');
        expect(a?.title).toContain(ipo.companyName);
      }
    }
    expect(ipos).toBeGreaterThan(0);
  });

  it('works on a small universe (dev profile) too', () => {
    const a = articles(ctxOf('2025-03-12'), dev);
    expect(a.some((x) => x.topics.includes('MARKET_SUMMARY'))).toBe(true);
    const devSymbols = new Set(dev.map((i) => i.symbol));
    const ipoTickers = new Set(ipoListings(ctxOf('2025-03-12')).map((i) => i.ticker));
    expect(a.every((x) => x.tickers.every((t) => devSymbols.has(t.ticker) || ipoTickers.has(t.ticker)))).toBe(true);
  });
});
