import { readPriceBars } from '../../api/views/equities/minute-cells';
import { StockPrices } from '../../api/views/equities/stock-prices';
import { stockPricesProjection } from '../../projections/equities/stock-prices';
import type { SourceEvent } from '../../projections/runtime/projection';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import { partitionOf } from '../../services/kafka/partition';
import { createRedis, unlinkKeys } from '../../services/redis/client';
import { PartitionKeys } from '../../services/views/keys';
import { testConfig } from '../support/env';
import { snapshotView } from '../support/pipeline';
import { rand } from '../support/table-oracle';
import { keysMatching } from '../support/redis-keys';

/**
 * The stock-price view's reads on a real Redis, against the old layout's semantics (a zset per
 * ticker and session, member `<time>:<price>` scored by time): a price strictly before any instant
 * (inside a minute's events, on a minute's edge, between minutes, before and after the session),
 * a session's last price, the latest price, and the raw events of a window's cut minutes. The
 * events include dense seconds, sparse minutes (held by their bars alone), millisecond times, a
 * second with two prices, off-grid prices and events out of order; projected in chunks of 1, 7 and
 * 3,000, the three views are byte-identical.
 */

const config = testConfig('pxreads');
const redis = createRedis(config.viewsRedisUrl);
const VIEW = stockPricesProjection.view;
// A Saturday too: no regular session, so the reader's first guess of a minute's record never
// applies and every read takes its search.
const DATES = ['2024-05-01', '2024-05-02', '2024-05-04'];
const OPEN = (d: string) => Date.parse(`${d}T13:30:00Z`);
const TICKERS = ['AAPL', 'SPY', 'BRK.B'];
const MIN = 60_000;

interface Ev {
  ticker: string;
  sessionDate: string;
  time: number;
  price: number;
}

const r = rand(77);
const events: Ev[] = [];
for (const sessionDate of DATES)
  TICKERS.forEach((ticker, ti) => {
    const open = OPEN(sessionDate);
    const add = (time: number, price: number) => events.push({ ticker, sessionDate, time, price });
    add(open, 100 + ti); // the official open
    let p = 10_000 + ti * 100;
    for (let s = 1; s < 8 * 60; s++) {
      if (ti === 1 && s > 200 && s < 300) continue; // a gap of minutes without events
      p += Math.round((r() - 0.5) * 6);
      add(open + s * 1000, p / 100);
    }
    add(open + 10 * MIN + 250, 123.4567); // milliseconds, four decimals
    add(open + 10 * MIN + 251, 1 / 3); // off every grid
    add(open + 10 * MIN + 59_999, 124);
    add(open + 12 * MIN + 7_000, 125); // a minute with one event
    add(open + 13 * MIN, 126); // a minute with two
    add(open + 13 * MIN + 59_999, 127);
    add(open + 14 * MIN + 30_000, 128.5); // a second with two prices
    add(open + 14 * MIN + 30_000, 99.25);
    add(open + 390 * MIN, 130 + ti); // the official close
  });
// Every seventh event late, and some delivered twice.
const stream = [...events.filter((_, i) => i % 7 !== 3), ...events.filter((_, i) => i % 7 === 3), ...events.filter((_, i) => i % 50 === 0)];

/** The old zset's members of a ticker's session, in its order. */
function zset(ticker: string, date: string): Ev[] {
  const m = new Map<string, Ev>();
  for (const e of events) if (e.ticker === ticker && e.sessionDate === date) m.set(`${e.time}:${e.price}`, e);
  return [...m].sort(([a, x], [b, y]) => x.time - y.time || (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}

async function project(prefix: string, chunk: number): Promise<void> {
  const byPartition = new Map<number, SourceEvent[]>();
  for (const e of stream) {
    const p = partitionOf(e.ticker, MARKET_PARTITIONS);
    if (!byPartition.has(p)) byPartition.set(p, []);
    byPartition.get(p)!.push({ topic: 'x', partition: p, offset: 0, key: e.ticker, value: e as never });
  }
  for (const [p, list] of byPartition)
    for (let i = 0; i < list.length; i += chunk) {
      const ops = await stockPricesProjection.project(list.slice(i, i + chunk), new PartitionKeys(prefix, VIEW, 1, p), redis);
      const pipe = redis.multi();
      for (const [cmd, key, ...args] of ops) pipe.call(cmd, key, ...args);
      await pipe.exec();
    }
}

const prefixes = [1, 7, 3000].map((c) => [`${config.keyPrefix}c${c}`, c] as const);

beforeAll(async () => {
  for (const [prefix, chunk] of prefixes) await project(prefix, chunk);
}, 120_000);

afterAll(async () => {
  for (const [prefix] of prefixes) {
    await unlinkKeys(redis, await keysMatching(redis, `${prefix}:*`));
  }
  redis.disconnect();
});

describe('stock-price view reads', () => {
  it('chunks of 1, 7 and 3,000 build byte-identical views', async () => {
    const [a, ...rest] = await Promise.all(prefixes.map(([prefix]) => snapshotView(redis, prefix, VIEW, 1)));
    expect(Object.keys(a).some((k) => k.includes(':px:'))).toBe(true);
    for (const b of rest) expect(b).toEqual(a);
  });

  it('the price strictly before an instant, for every instant around the session’s events', async () => {
    const prices = new StockPrices(redis, prefixes[1][0], 1);
    for (const d of DATES) {
      const open = OPEN(d);
      const instants = [open - 1, open, open + 1, open + 1000, open + 1001, open + 390 * MIN, open + 390 * MIN + 1, open + 400 * MIN];
      for (let t = open + 9 * MIN; t <= open + 15 * MIN; t += 750) instants.push(t, t + 1);
      for (let t = open + 3 * MIN; t <= open + 6 * MIN; t += 10_000) instants.push(t, t - 1);
      for (const t of instants) {
        const got = await prices.at(TICKERS, d, t);
        const want = new Map(
          TICKERS.flatMap((tk) =>
            zset(tk, d)
              .filter((e) => e.time < t)
              .slice(-1)
              .map((e) => [tk, e.price] as [string, number]),
          ),
        );
        expect({ t: new Date(t).toISOString(), got }).toEqual({ t: new Date(t).toISOString(), got: want });
      }
      const last = new Map(TICKERS.map((tk) => [tk, zset(tk, d).pop()!.price]));
      expect(await prices.at(TICKERS, d, null)).toEqual(last);
    }
    expect(await prices.at(TICKERS, '2024-05-03', null)).toEqual(new Map());
  });

  it('the latest price is the newest session’s last event', async () => {
    const prices = new StockPrices(redis, prefixes[2][0], 1);
    for (const tk of TICKERS) {
      const e = zset(tk, DATES[2]).pop()!;
      expect(await prices.latest(tk)).toEqual({ sessionDate: DATES[2], time: e.time, price: e.price });
    }
    expect(await prices.latest('ZZZZ')).toBeNull();
  });

  it('a window cutting minutes reads their raw events, in order, from blocks or bars', async () => {
    let compared = 0;
    for (const tk of TICKERS)
      for (const d of DATES) {
        const open = OPEN(d);
        const windows: [number, number][] = [
          [open + 10 * MIN + 100, open + 13 * MIN + 30_000],
          [open + 10 * MIN + 251, open + 14 * MIN + 30_001],
          [open + 13 * MIN + 1, open + 14 * MIN + 30_000],
          [open + 2 * MIN + 500, open + 2 * MIN + 40_500],
          [open - 500, open + 1500],
          [open + 389 * MIN + 1, open + 390 * MIN + 1],
        ];
        for (const [startMs, endMs] of windows) {
          const got = await readPriceBars(redis, prefixes[0][0], 1, { ticker: tk, sessions: [d], window: { startMs, endMs }, sessionGrain: false });
          const headEnd = Math.min(endMs, Math.ceil(startMs / MIN) * MIN);
          const tailStart = Math.max(headEnd, Math.floor(endMs / MIN) * MIN);
          const inCut = (t: number) => (t >= startMs && t < headEnd) || (t >= tailStart && t < endMs);
          const want = zset(tk, d)
            .filter((e) => inCut(e.time))
            .map((e) => [e.time, { openTime: e.time, open: e.price, high: e.price, low: e.price, closeTime: e.time, close: e.price }]);
          expect({ tk, d, startMs, cut: got.filter(([t]) => inCut(t)) }).toEqual({ tk, d, startMs, cut: want });
          compared += want.length;
        }
      }
    expect(compared).toBeGreaterThan(300);
  });
});
