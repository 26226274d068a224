import { LexMerge, type LexSource } from '../../api/tables/lex-merge';
import { createRedis, unlinkKeys } from '../../services/redis/client';
import { testConfig } from '../support/env';
import { rng } from '../support/order-flow-data';

/**
 * The k-way merge over lexicographic zsets on a real Redis: every member of every source exactly
 * once (a member in two sources once), in order, in either direction, whatever the chunk sizes
 * and however the caller batches its calls.
 */

const config = testConfig('lex-merge');
const redis = createRedis(config.viewsRedisUrl);

const SOURCES = 60;
const r = rng(11);
const members: string[][] = [];
const sources: LexSource[] = [];

beforeAll(async () => {
  const pipe = redis.pipeline();
  for (let i = 0; i < SOURCES; i++) {
    // Skewed sizes (a few large sources, many small or empty) and some members shared by two sources.
    const n = i % 10 === 0 ? 400 : Math.floor(r() * 12);
    const ms = Array.from({ length: n }, () => `m${String(Math.floor(r() * 1e6)).padStart(7, '0')}`);
    if (i > 0 && members[i - 1].length) ms.push(members[i - 1][0]);
    members.push(ms);
    const key = `${config.keyPrefix}:z:${i}`;
    sources.push({ partition: i % 12, key });
    if (ms.length) pipe.zadd(key, ...ms.flatMap((m) => ['0', m]));
  }
  await pipe.exec();
});

afterAll(async () => {
  await unlinkKeys(
    redis,
    sources.map((s) => s.key),
  );
  redis.disconnect();
});

async function drain(merge: LexMerge, batches: number[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const hits = await merge.next(batches[i % batches.length]);
    if (!hits.length) return out;
    out.push(...hits.map((h) => h.member));
  }
}

describe('LexMerge', () => {
  const all = () => [...new Set(members.flat())].sort();

  it.each([
    [false, 1, [1]],
    [false, 2, [7, 50]],
    [true, 1, [3]],
    [true, 16, [51, 102, 204]],
  ])('descending=%s, first chunk %i, batches %j: every member once, in order', async (descending, firstChunk, batches) => {
    const got = await drain(new LexMerge(redis, sources, { descending, firstChunk, maxChunk: 64 }), batches);
    expect(got).toEqual(descending ? all().reverse() : all());
  });

  it('respects the merge bounds and each source its own', async () => {
    const lo = 'm0300000';
    const hi = 'm0700000';
    const own = { ...sources[0], min: '[m0500000' };
    const merge = new LexMerge(redis, [own, ...sources.slice(1)], { descending: false, min: `[${lo}`, max: `(${hi}`, firstChunk: 3 });
    const expected = [
      ...new Set([
        ...members[0].filter((m) => m >= 'm0500000' && m < hi),
        ...members
          .slice(1)
          .flat()
          .filter((m) => m >= lo && m < hi),
      ]),
    ].sort();
    expect(await drain(merge, [10])).toEqual(expected);
  });

  it('reports each hit with the source it came from', async () => {
    const hits = await new LexMerge(redis, sources, { descending: false, firstChunk: 4 }).next(500);
    for (const h of hits) expect(members[sources.indexOf(h.source)]).toContain(h.member);
    expect(hits.map((h) => h.member)).toEqual(all().slice(0, 500));
  });
});
