import crypto from 'crypto';
import { validateEvent } from '../../ingest/validate';
import { newsBetween, newsForMinute } from '../../ingest/sources/news-simulator';

const good = {
  type: 'news',
  data: {
    id: 7,
    publishedTime: 1714570200000,
    title: 'Apple beats',
    body: null,
    topics: ['EARNINGS'],
    tickers: [{ ticker: 'AAPL', sentiment: 'SLIGHTLY_BULLISH' }],
  },
};

describe('event validation', () => {
  it('accepts a valid news event and fills schema defaults', () => {
    const v = validateEvent({ type: 'news', data: { id: 1, publishedTime: 5, title: 'x' } });
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.data).toEqual({ id: 1, publishedTime: 5, title: 'x', body: null, topics: [], tickers: [] });
    expect(validateEvent(good).ok).toBe(true);
  });

  it.each([
    [null, /JSON object/],
    [{ type: 'trade', data: {} }, /unknown event type "trade"/],
    [{ type: 'news' }, /data must be an object/],
    [{ type: 'news', data: {}, extra: 1 }, /unexpected field/],
    [{ type: 'news', data: { ...good.data, id: -1 } }, /id must be a non-negative integer/],
    [{ type: 'news', data: { ...good.data, id: 1.5 } }, /id/],
    [{ type: 'news', data: { ...good.data, title: 3 } }, /title/],
    [{ type: 'news', data: { ...good.data, title: '  ' } }, /title must be a non-empty string/],
    [{ type: 'news', data: { ...good.data, topics: ['Earnings'] } }, /topics\[0\].*canonical/],
    [{ type: 'news', data: { ...good.data, tickers: [{ ticker: 'AAPL', sentiment: 'HAPPY' }] } }, /sentiment/],
    [{ type: 'news', data: { ...good.data, tickers: [{ ticker: 'aapl', sentiment: 'NEUTRAL' }] } }, /upper-case symbol/],
    [
      {
        type: 'news',
        data: {
          ...good.data,
          tickers: [
            { ticker: 'A', sentiment: 'NEUTRAL' },
            { ticker: 'A', sentiment: 'NEUTRAL' },
          ],
        },
      },
      /listed twice/,
    ],
    [{ type: 'news', data: { ...good.data, author: 'x' } }, /not in the news schema: author/],
  ])('rejects %j', (line, reason) => {
    const v = validateEvent(line);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(reason);
  });
});

describe('news simulator', () => {
  const start = Math.floor(Date.UTC(2024, 4, 1, 12) / 60_000);
  const digest = (seed: number) =>
    crypto
      .createHash('sha256')
      .update(JSON.stringify(newsBetween(seed, start, start + 24 * 60)))
      .digest('hex');

  it('is deterministic for a seed and differs between seeds', () => {
    expect(digest(42)).toBe(digest(42));
    expect(digest(42)).not.toBe(digest(43));
  });

  it('produces schema-valid articles with unique ids inside their minute', () => {
    const day = newsBetween(42, start, start + 24 * 60);
    expect(day.length).toBeGreaterThan(200);
    expect(new Set(day.map((a) => a.id)).size).toBe(day.length);
    for (const a of day) {
      const v = validateEvent({ type: 'news', data: a });
      if (!v.ok) throw new Error(`${a.id}: ${v.reason}`);
      const minute = Math.floor(a.id / 10);
      expect(Math.floor(a.publishedTime / 60_000)).toBe(minute);
    }
    for (let i = 1; i < day.length; i++) expect(day[i].publishedTime).toBeGreaterThanOrEqual(day[i - 1].publishedTime);
  });

  it('a minute is the same whether generated alone or in a range', () => {
    expect(newsForMinute(7, start + 100)).toEqual(newsBetween(7, start + 100, start + 101));
  });
});
