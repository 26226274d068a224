import type { NewsTopic, Sentiment } from '../../services/domain/news';

/**
 * The background feed's headlines. Each template knows its topics and its tone, so an article's
 * topics and its tickers' sentiment follow from its headline: an earnings miss is tagged EARNINGS
 * and EARNINGS_MISSES and is bearish for its company, a board appointment is MANAGEMENT and
 * neutral. Placeholders: {co} company name, {sym} symbol, {firm} research firm.
 */

export type Tone = 'bullish' | 'bearish' | 'neutral';

export interface NewsTemplate {
  title: string;
  tone: Tone;
  topics: readonly NewsTopic[];
  /** What the story is about, for the body: "{co} ({sym}) ... {about}". */
  about: string;
}

export const NEWS_TEMPLATES: readonly NewsTemplate[] = [
  // bullish
  {
    tone: 'bullish',
    title: '{co} Beats Expectations; Analysts Raise Targets',
    topics: ['EARNINGS', 'EARNINGS_BEATS', 'PRICE_TARGET'],
    about: 'quarterly results',
  },
  { tone: 'bullish', title: '{co} Tops Quarterly Estimates On Strong Demand', topics: ['EARNINGS', 'EARNINGS_BEATS'], about: 'quarterly results' },
  { tone: 'bullish', title: '{co} Raises Full-Year Guidance', topics: ['GUIDANCE'], about: 'its outlook' },
  { tone: 'bullish', title: '{firm} Upgrades {co} To Buy', topics: ['ANALYST_RATINGS', 'UPGRADES'], about: 'an analyst upgrade' },
  { tone: 'bullish', title: '{co} Announces Expansion, Stock Moves Higher', topics: ['PRESS_RELEASES', 'MOVERS'], about: 'an expansion plan' },
  { tone: 'bullish', title: 'Why {sym} Is Trading Higher Today', topics: ['WIIM', 'MOVERS'], about: 'a move higher' },
  { tone: 'bullish', title: '{co} Unveils Share Buyback Program', topics: ['BUYBACKS'], about: 'a share repurchase' },
  { tone: 'bullish', title: '{co} Raises Quarterly Dividend', topics: ['DIVIDENDS'], about: 'a dividend increase' },
  { tone: 'bullish', title: '{co} Wins Multi-Year Contract', topics: ['CONTRACTS'], about: 'a contract award' },
  // bearish
  { tone: 'bearish', title: '{co} Misses Estimates, Guides Lower', topics: ['EARNINGS', 'EARNINGS_MISSES', 'GUIDANCE'], about: 'quarterly results' },
  { tone: 'bearish', title: '{co} Cuts Outlook As Demand Softens', topics: ['GUIDANCE'], about: 'its outlook' },
  { tone: 'bearish', title: '{firm} Downgrades {co} To Sell', topics: ['ANALYST_RATINGS', 'DOWNGRADES'], about: 'an analyst downgrade' },
  { tone: 'bearish', title: 'Why {sym} Shares Are Falling Today', topics: ['WIIM', 'MOVERS'], about: 'a move lower' },
  { tone: 'bearish', title: '{co} Faces Regulatory Probe', topics: ['LEGAL', 'REGULATIONS'], about: 'a regulatory investigation' },
  { tone: 'bearish', title: '{co} Prices Secondary Stock Offering', topics: ['OFFERINGS', 'FINANCING'], about: 'a dilutive share sale' },
  { tone: 'bearish', title: 'Short Seller Report Targets {co}', topics: ['SHORT_SELLERS', 'SHORT_IDEAS'], about: 'a short-seller report' },
  { tone: 'bearish', title: '{co} Suspends Dividend', topics: ['DIVIDENDS'], about: 'a dividend suspension' },
  // neutral
  { tone: 'neutral', title: '{co} To Present At Industry Conference', topics: ['EVENTS'], about: 'an upcoming conference' },
  { tone: 'neutral', title: '{co} Files Quarterly Report', topics: ['SEC'], about: 'a regulatory filing' },
  { tone: 'neutral', title: '{co} Names New Board Member', topics: ['MANAGEMENT'], about: 'a board appointment' },
  { tone: 'neutral', title: '{firm} Reiterates Hold On {co}', topics: ['ANALYST_RATINGS', 'REITERATION'], about: 'an unchanged rating' },
  { tone: 'neutral', title: '{firm} Initiates Coverage Of {co} At Neutral', topics: ['ANALYST_RATINGS', 'INITIATION'], about: 'new analyst coverage' },
  { tone: 'neutral', title: '{co} Schedules Quarterly Earnings Call', topics: ['EARNINGS', 'EVENTS'], about: 'its earnings date' },
];

/** Fictional research firms: the feed names no real one. */
export const NEWS_FIRMS = ['Halvorsen Capital', 'Redwood Securities', 'Marlow & Finch', 'Ketterly Research', 'Northgate Partners'];

/**
 * The sentiment range for a ticker: the story's company gets the tone in full (any strength),
 * a peer named beside it at most a slight move the same way, and neutral stories stay neutral.
 */
export function sentimentRange(tone: Tone, peer: boolean): readonly Sentiment[] {
  if (tone === 'neutral') return ['NEUTRAL'];
  if (tone === 'bullish') return peer ? ['NEUTRAL', 'SLIGHTLY_BULLISH'] : ['SLIGHTLY_BULLISH', 'MODERATELY_BULLISH', 'EXTREMELY_BULLISH'];
  return peer ? ['NEUTRAL', 'SLIGHTLY_BEARISH'] : ['SLIGHTLY_BEARISH', 'MODERATELY_BEARISH', 'EXTREMELY_BEARISH'];
}
