import { EventEmitter } from 'events';
import type { Response } from 'express';
import type { EndpointContext } from '../../api/request/endpoint';
import type { FeedTailer, TailEntry } from '../../api/streams/feed-tailer';
import { startPosition } from '../../api/streams/position';
import { RowStream, type RowStreamSettings } from '../../api/streams/row-stream';
import type { CompiledStream, TableStreamSource } from '../../api/tables/table-endpoint';

/**
 * The slow-consumer rule of a push stream, with a socket whose client reads nothing (every byte
 * written stays in its buffer) or reads everything. Pure logic: the feed is a fixed ring.
 */

class FakeResponse extends EventEmitter {
  writableLength = 0;
  text = '';
  ended = false;
  destroyed = false;
  constructor(private readonly reads: boolean) {
    super();
  }
  write(s: string): boolean {
    this.text += s;
    if (!this.reads) this.writableLength += Buffer.byteLength(s);
    return true;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

const ENTRIES: TailEntry[] = Array.from({ length: 5_000 }, (_, i) => ({ offset: i, segment: '', rowKey: `r${i}`, stored: Buffer.from(String(i)) }));

const tailer = {
  head: startPosition(),
  version: 1,
  subscribe: async () => () => undefined,
  after: (p: number, offset: number) => (p === 0 ? ENTRIES.filter((e) => e.offset > offset) : []),
} as unknown as FeedTailer;

const source: TableStreamSource = { view: 'test', requestSchema: {}, decode: (stored) => ({ n: Number(stored.toString()) }), compile: () => compiled };
const compiled: CompiledStream = { matches: () => true, render: async (rows) => rows as object[], serialize: (r) => JSON.stringify(r) };
const ctx = { log: { warn: () => undefined } } as unknown as EndpointContext;
const SETTINGS: RowStreamSettings = { heartbeatMs: 60_000, highWaterBytes: 4_096, stallMs: 300, catchUpCount: 100 };

function open(reads: boolean): { res: FakeResponse; ended: Promise<string> } {
  const res = new FakeResponse(reads);
  const ended = new Promise<string>((resolve) => {
    const s = new RowStream(res as unknown as Response, source, compiled, tailer, ctx, startPosition(), SETTINGS, resolve);
    void s.start('earliest');
  });
  return { res, ended };
}

const rowsIn = (text: string) => text.split('\n').filter((l) => l === 'event: row').length;

it('drops a client that accepts nothing for stallMs, with a final event saying why, after writing only up to the high-water mark', async () => {
  const { res, ended } = open(false);
  expect(await ended).toBe('slow-consumer');
  expect(res.ended).toBe(true);
  const last = res.text.trimEnd().split('\n\n').pop()!;
  expect(last).toMatch(/^event: end\ndata: \{"reason":"slow-consumer","detail":"the client read nothing/);
  // It stopped at the high-water mark: one bounded step past it at most, not the 5,000 rows waiting.
  const rows = rowsIn(res.text);
  expect(rows).toBeGreaterThan(0);
  expect(rows).toBeLessThanOrEqual(SETTINGS.catchUpCount * 2);
});

it('keeps a client that reads, and sends it every row once, in order', async () => {
  const { res } = open(true);
  await new Promise((r) => setTimeout(r, SETTINGS.stallMs * 3));
  expect(res.ended).toBe(false);
  const ns = res.text
    .split('\n')
    .filter((l) => l.startsWith('data: {"n"'))
    .map((l) => JSON.parse(l.slice(6)).n);
  expect(ns).toEqual(ENTRIES.map((e) => e.offset));
  res.emit('close');
});
