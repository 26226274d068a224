import prand from 'pure-rand';
import { loadUniverse, Instrument } from '../../services/domain/universe';
import { nyUtcOffsetMinutes } from '../../services/domain/calendar';
import { NEWS_FIRMS, NEWS_TEMPLATES, sentimentRange } from './news-templates';

/**
 * A deterministic news feed: the articles of each UTC minute are a pure function of (seed,
 * minute), so a backfill, a live run and a re-run after a crash produce the same ids and
 * contents, and the view (keyed by article id) ends up the same however often a minute is sent.
 * Article id = minute * 10 + n (at most 10 articles a minute). Headlines, topics and sentiment
 * come together from one template (news-templates.ts), so they agree.
 */

export interface NewsArticle {
  id: number;
  publishedTime: number;
  title: string;
  body: string | null;
  topics: string[];
  tickers: { ticker: string; sentiment: string }[];
}

const MINUTE = 60_000;

function hash32(a: number, b: number): number {
  // A fixed integer mix of seed and minute (FNV-1a style) giving each minute its own RNG stream.
  let h = 0x811c9dc5 ^ a;
  h = Math.imul(h ^ (b & 0xffff), 0x01000193);
  h = Math.imul(h ^ Math.floor(b / 0x10000), 0x01000193);
  return h >>> 0;
}

let universe: Instrument[] | null = null;

export function newsForMinute(seed: number, minute: number): NewsArticle[] {
  universe ??= loadUniverse().filter((i) => !i.isIndex);
  const rng = prand.xoroshiro128plus(hash32(seed, minute));
  const int = (lo: number, hi: number) => prand.unsafeUniformIntDistribution(lo, hi, rng);
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)];
  // More news in New York business hours (07:00-20:00 ET) than at night.
  const nyHour = Math.floor(((((minute * MINUTE + nyUtcOffsetMinutes(minute * MINUTE) * MINUTE) % 86_400_000) + 86_400_000) % 86_400_000) / 3_600_000);
  const busy = nyHour >= 7 && nyHour < 20;
  const roll = int(0, 99);
  const count = busy ? (roll < 40 ? 0 : roll < 80 ? 1 : roll < 95 ? 2 : 3) : roll < 85 ? 0 : 1;
  const out: NewsArticle[] = [];
  for (let n = 0; n < count; n++) {
    const main = pick(universe);
    const tickers = [main];
    if (int(0, 3) === 0) {
      const peer = pick(universe.filter((u) => u.sector === main.sector && u.symbol !== main.symbol));
      if (peer) tickers.push(peer);
    }
    const t = pick(NEWS_TEMPLATES);
    const title = t.title.replace('{co}', main.companyName).replace('{sym}', main.symbol).replace('{firm}', pick(NEWS_FIRMS));
    const body =
      int(0, 4) === 0
        ? null
        : `${main.companyName} (${main.symbol}) was in focus on ${t.about}. ` +
          `The ${main.sector.toLowerCase().replace(/_/g, ' ')} name ${t.tone === 'bullish' ? 'drew buyers' : t.tone === 'bearish' ? 'drew sellers' : 'traded quietly'} as investors weighed the update.`;
    out.push({
      id: minute * 10 + n,
      publishedTime: minute * MINUTE + int(0, MINUTE - 1),
      title,
      body,
      topics: [...t.topics],
      tickers: tickers.map((inst, k) => ({ ticker: inst.symbol, sentiment: pick(sentimentRange(t.tone, k > 0)) })),
    });
  }
  return out.sort((a, b) => a.publishedTime - b.publishedTime || a.id - b.id);
}

/** Articles of every minute in [fromMinute, toMinute). */
export function newsBetween(seed: number, fromMinute: number, toMinute: number): NewsArticle[] {
  const out: NewsArticle[] = [];
  for (let m = fromMinute; m < toMinute; m++) out.push(...newsForMinute(seed, m));
  return out;
}
