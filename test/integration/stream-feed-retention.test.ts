import { EventEmitter } from 'events';
import type { Response } from 'express';
import type { EndpointContext } from '../../api/request/endpoint';
import { readFeed, type FeedTailer } from '../../api/streams/feed-tailer';
import { startPosition } from '../../api/streams/position';
import { RowStream, type RowStreamSettings } from '../../api/streams/row-stream';
import type { CompiledStream, TableStreamSource } from '../../api/tables/table-endpoint';
import { createRedis, type RedisClient as Redis } from '../../services/redis/client';
import { feedAppend, feedTrim } from '../../services/views/feed';
import { PartitionKeys } from '../../services/views/keys';
import { testConfig } from '../support/env';

/**
 * A resume id older than what a feed keeps (docs/streams.md, "Older than what is kept"): the
 * projectors trim feeds with XTRIM MINID, which leaves XINFO's max-deleted-entry-id at 0-0, so the
 * trim must be found otherwise. A stream resumed from before the oldest entry kept says so with a
 * `gap` event, then sends every entry kept, once.
 */

const config = testConfig('feed-retention');
const VIEW = 'retention-test';
const P = 3;
let redis: Redis;

beforeAll(() => {
  redis = createRedis(config.viewsRedisUrl);
});
afterAll(() => redis.disconnect());

/** A feed of one partition with entries at `offsets`, then the trim a chunk ending at `lastOffset` makes. */
async function feed(version: number, offsets: number[], lastOffset: number, retention: number): Promise<void> {
  const k = new PartitionKeys(config.keyPrefix, VIEW, version, P);
  for (const o of offsets) {
    const [command, ...args] = feedAppend(k, o, '2026-11-20', `r${o}`, Buffer.from(String(o)));
    await redis.call(command, ...args);
  }
  const trim = feedTrim(k, lastOffset, retention);
  if (trim) await redis.call(trim[0], ...trim.slice(1));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('readFeed', () => {
  it('reports the entries a trim dropped', async () => {
    await feed(1, range(0, 99), 99, 40); // keeps 60..99
    const behind = await readFeed(redis, config.keyPrefix, VIEW, 1, P, 10, 5);
    expect(behind.droppedThrough).toBe(59);
    expect(behind.entries.map((e) => e.offset)).toEqual([60, 61, 62, 63, 64]);
    const within = await readFeed(redis, config.keyPrefix, VIEW, 1, P, 70, 3);
    expect(within.droppedThrough).toBeLessThanOrEqual(70);
    expect(within.entries.map((e) => e.offset)).toEqual([71, 72, 73]);
  });

  it('reports a feed that a trim emptied', async () => {
    await feed(2, [0, 3, 5], 100, 40);
    const read = await readFeed(redis, config.keyPrefix, VIEW, 2, P, 2, 10);
    expect(read).toEqual({ entries: [], droppedThrough: 5 });
  });

  it('reports nothing dropped from a feed never trimmed, or one that does not exist', async () => {
    await feed(3, range(0, 9), 9, 40);
    expect((await readFeed(redis, config.keyPrefix, VIEW, 3, P, -1, 100)).droppedThrough).toBe(-1);
    expect(await readFeed(redis, config.keyPrefix, VIEW, 4, P, -1, 100)).toEqual({ entries: [], droppedThrough: -1 });
  });
});

class ReadingResponse extends EventEmitter {
  writableLength = 0;
  text = '';
  write(s: string): boolean {
    this.text += s;
    return true;
  }
  end(): void {}
  destroy(): void {}
}

it('a stream resumed from before the oldest entry kept sends a gap event, then every entry kept once', async () => {
  await feed(5, range(0, 99), 99, 40); // keeps 60..99
  // A tailer whose ring reaches back to nothing: the stream reads the feed itself (readFeed).
  const tailer = { head: startPosition(), version: 5, subscribe: async () => () => undefined, after: () => null } as unknown as FeedTailer;
  const compiled: CompiledStream = { matches: () => true, render: async (rows) => rows as object[], serialize: (r) => JSON.stringify(r) };
  const source: TableStreamSource = { view: VIEW, requestSchema: {}, decode: (stored) => ({ n: Number(stored.toString()) }), compile: () => compiled };
  const ctx = { redis, keyPrefix: config.keyPrefix, log: { warn: () => undefined } } as unknown as EndpointContext;
  const settings: RowStreamSettings = { heartbeatMs: 60_000, highWaterBytes: 64 * 1024, stallMs: 10_000, catchUpCount: 25 };
  const position = startPosition();
  position[P] = 10;
  const res = new ReadingResponse();
  const stream = new RowStream(res as unknown as Response, source, compiled, tailer, ctx, position, settings, () => undefined);
  await stream.start('resume');
  const events = () => res.text.split('\n\n').filter(Boolean);
  const deadline = Date.now() + 10_000;
  while (!res.text.includes('"n":99') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  res.emit('close');
  const gaps = events().filter((e) => e.includes('event: gap'));
  expect(gaps).toEqual([`event: gap\ndata: ${JSON.stringify({ partition: P, after: 10, resumedAfter: 59 })}`]);
  const rows = events().filter((e) => e.includes('event: row'));
  expect(rows.map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)).n)).toEqual(range(60, 99));
  // The gap comes before the first row.
  expect(res.text.indexOf('event: gap')).toBeLessThan(res.text.indexOf('event: row'));
});
