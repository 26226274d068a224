import { newsBetween } from '../../ingest/sources/news-simulator';
import { NEWS_TEMPLATES } from '../../ingest/sources/news-templates';
import { NEWS_TOPICS, sentimentScore } from '../../services/domain/news';
import { loadUniverse } from '../../services/domain/universe';

/**
 * The background news feed reads true: over a few thousand generated articles, every topic an
 * article carries is one its headline speaks of, the headline's direction is its company's
 * sentiment, and no ticker leans against the story. The oracle below reads headlines by their
 * words, independently of the templates that wrote them.
 */

/** Words in a headline that justify each topic. */
const TOPIC_WORDS: Partial<Record<string, RegExp>> = {
  EARNINGS: /Estimates|Expectations|Earnings/,
  EARNINGS_BEATS: /Beats|Tops .*Estimates/,
  EARNINGS_MISSES: /Misses/,
  PRICE_TARGET: /Targets?\b/,
  GUIDANCE: /Guid|Outlook/,
  ANALYST_RATINGS: /Upgrades|Downgrades|Reiterates|Initiates Coverage/,
  UPGRADES: /Upgrades/,
  DOWNGRADES: /Downgrades/,
  REITERATION: /Reiterates/,
  INITIATION: /Initiates Coverage/,
  PRESS_RELEASES: /Announces/,
  MOVERS: /Higher|Falling/,
  WIIM: /^Why /,
  BUYBACKS: /Buyback/,
  DIVIDENDS: /Dividend/,
  CONTRACTS: /Contract/,
  LEGAL: /Probe/,
  REGULATIONS: /Regulatory/,
  OFFERINGS: /Offering/,
  FINANCING: /Offering/,
  SHORT_SELLERS: /Short Seller/,
  SHORT_IDEAS: /Short Seller/,
  EVENTS: /Conference|Earnings Call/,
  SEC: /Files .*Report/,
  MANAGEMENT: /Board|CEO/,
};
const BULLISH_WORDS = /Beats|Tops|Raises|Upgrades|Higher|Buyback|Wins/;
const BEARISH_WORDS = /Misses|Cuts|Downgrades|Falling|Probe|Offering|Short Seller|Suspends/;

const start = Math.floor(Date.UTC(2026, 2, 2, 12) / 60_000);
const articles = newsBetween(42, start, start + 14 * 24 * 60);

it('generates a few thousand articles over two weeks', () => {
  expect(articles.length).toBeGreaterThan(3_000);
});

it('tags every article only with topics its headline speaks of, and with at least one', () => {
  const topicSet = new Set<string>(NEWS_TOPICS);
  for (const a of articles) {
    expect(a.topics.length).toBeGreaterThan(0);
    for (const t of a.topics) {
      expect(topicSet.has(t)).toBe(true);
      const words = TOPIC_WORDS[t];
      if (!words || !words.test(a.title)) throw new Error(`article ${a.id} "${a.title}" is tagged ${t}, which its headline does not speak of`);
    }
  }
});

it("gives the story's company the headline's direction and never leans a ticker against it", () => {
  const seen = { bullish: 0, bearish: 0, neutral: 0 };
  for (const a of articles) {
    const up = BULLISH_WORDS.test(a.title);
    const down = BEARISH_WORDS.test(a.title);
    expect(up && down).toBe(false);
    const [main, ...peers] = a.tickers.map((t) => sentimentScore(t.sentiment));
    const what = `article ${a.id} "${a.title}" ${JSON.stringify(a.tickers)}`;
    if (up) {
      seen.bullish++;
      if (!(main > 0 && peers.every((p) => p >= 0))) throw new Error(`bullish headline, sentiment not: ${what}`);
    } else if (down) {
      seen.bearish++;
      if (!(main < 0 && peers.every((p) => p <= 0))) throw new Error(`bearish headline, sentiment not: ${what}`);
    } else {
      seen.neutral++;
      if (![main, ...peers].every((p) => p === 0)) throw new Error(`neutral headline, sentiment not neutral: ${what}`);
    }
    // A peer named beside the company moves less than the company does.
    for (const p of peers) expect(Math.abs(p)).toBeLessThanOrEqual(1);
  }
  // All three tones occur in quantity, so each branch above was exercised.
  for (const n of Object.values(seen)) expect(n).toBeGreaterThan(articles.length / 6);
});

it('names the story company in the headline, by name or symbol', () => {
  const names = new Map(loadUniverse().map((i) => [i.symbol, i.companyName]));
  for (const a of articles) {
    const sym = a.tickers[0].ticker;
    if (!a.title.includes(sym) && !a.title.includes(names.get(sym)!)) throw new Error(`article ${a.id} "${a.title}" does not name ${sym}`);
  }
  // Every template is used: the feed is not stuck on a few.
  const titles = new Set(articles.map((a) => a.title.replace(/^Why \S+ /, 'Why {sym} ')));
  for (const t of NEWS_TEMPLATES.filter((x) => x.title.startsWith('Why'))) expect(titles.has(t.title)).toBe(true);
});
