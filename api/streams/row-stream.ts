import type { Response } from 'express';
import { MARKET_PARTITIONS } from '../../schemas/catalog';
import type { FeedEntry } from '../../services/views/feed';
import type { EndpointContext } from '../request/endpoint';
import type { CompiledStream, TableStreamSource } from '../tables/table-endpoint';
import { readFeed, type FeedTailer, type TailEntry } from './feed-tailer';
import { encodePosition, type Position } from './position';

export interface RowStreamSettings {
  /** A heartbeat event (with the current id) this often, so idle connections stay open and ids advance. */
  heartbeatMs: number;
  /** Bytes a stream may leave unsent in its socket's buffer before it waits for the client. */
  highWaterBytes: number;
  /** A client that accepts nothing for this long while events wait is dropped. */
  stallMs: number;
  /** Entries read from a feed at once by a stream that is behind the ring. */
  catchUpCount: number;
}

export type EndReason = 'slow-consumer' | 'error' | 'closed';

/** One Server-Sent Events message; data is one line of JSON. */
export function sseMessage(event: string, id: string | null, data: string): string {
  return `${id === null ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`;
}

/**
 * One client's push stream over one view's feed: from its position, every feed entry in offset
 * order per partition, each matching row sent as an event whose id is the position after it. It
 * writes only while the socket's buffer is below the high-water mark and otherwise waits for the
 * client (reading again from the tailer's ring, or from Redis when it has fallen behind the ring),
 * so a slow client costs no memory beyond its socket buffer; one that accepts nothing for
 * `stallMs` is ended with a final `end` event that says why.
 */
export class RowStream {
  private closed = false;
  private running = false;
  private again = false;
  private stalledSince: number | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | null = null;
  private fromEarliest = false;
  /** The id of the last event written. */
  private lastId = '';
  private turn = 0;

  constructor(
    private readonly res: Response,
    private readonly source: TableStreamSource,
    private readonly compiled: CompiledStream,
    private readonly tailer: FeedTailer,
    private readonly ctx: EndpointContext,
    private readonly position: Position,
    private readonly settings: RowStreamSettings,
    private readonly onEnd: (reason: EndReason) => void,
  ) {}

  async start(from: string): Promise<void> {
    this.fromEarliest = from === 'earliest';
    this.res.on('close', () => this.finish('closed'));
    this.res.on('drain', () => {
      this.stalledSince = null;
      this.pump();
    });
    this.unsubscribe = await this.tailer.subscribe(() => this.pump());
    if (this.closed) return this.unsubscribe();
    if (from === 'latest') for (let p = 0; p < MARKET_PARTITIONS; p++) this.position[p] = Math.max(this.position[p], this.tailer.head[p]);
    const id = encodePosition(this.position);
    this.write(`retry: 2000\n${sseMessage('ready', id, JSON.stringify({ view: this.source.view, from }))}`, id);
    this.timers.push(
      setInterval(() => {
        if (this.res.writableLength >= this.settings.highWaterBytes) return;
        const at = encodePosition(this.position);
        this.write(sseMessage('heartbeat', at, '{}'), at);
      }, this.settings.heartbeatMs),
      setInterval(() => this.checkStall(), Math.min(1_000, this.settings.stallMs)),
    );
    this.pump();
  }

  /**
   * Once caught up, a heartbeat carrying the position if entries the filter skipped moved it past
   * the last id sent: a client that resumes then skips them too.
   */
  private sendPosition(): void {
    const id = encodePosition(this.position);
    if (id !== this.lastId) this.write(sseMessage('heartbeat', id, '{}'), id);
  }

  /** Writes messages; `id` is the id of the last of them that has one. */
  private write(text: string, id: string | null): void {
    if (id !== null) this.lastId = id;
    this.res.write(text);
  }

  /** Ends the stream from the server side with a final event saying why. */
  end(reason: EndReason, detail: string): void {
    if (this.closed) return;
    this.res.write(sseMessage('end', null, JSON.stringify({ reason, detail })));
    this.res.end();
    // A client that reads nothing more would hold the socket open: closed after a grace period.
    setTimeout(() => this.res.destroy(), 5_000).unref();
    this.finish(reason);
  }

  private finish(reason: EndReason): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.unsubscribe?.();
    this.onEnd(reason);
  }

  private checkStall(): void {
    if (this.stalledSince !== null && Date.now() - this.stalledSince >= this.settings.stallMs)
      this.end(
        'slow-consumer',
        `the client read nothing for ${Math.round(this.settings.stallMs / 1000)} s while events waited; reconnect with Last-Event-ID to resume where it stopped`,
      );
  }

  /** Sends what is waiting until the socket is full or nothing is left; one run at a time. */
  private pump(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void (async () => {
      try {
        do {
          this.again = false;
          while (!this.closed && this.res.writableLength < this.settings.highWaterBytes && (await this.step()));
          if (!this.closed && this.res.writableLength >= this.settings.highWaterBytes) this.stalledSince ??= Date.now();
          else if (!this.closed) this.sendPosition();
        } while (this.again && !this.closed);
      } catch (err) {
        this.ctx.log.warn({ err: (err as Error).message, view: this.source.view }, 'stream ended by an error');
        this.end('error', 'the stream could not read its feed; reconnect with Last-Event-ID to resume');
      } finally {
        this.running = false;
      }
    })();
  }

  /** One round over the partitions: what each has after the position. False when nothing was waiting. */
  private async step(): Promise<boolean> {
    const version = this.tailer.version;
    if (version === null) return false;
    const out: string[] = [];
    let lastOut: string | null = null;
    let any = false;
    let bytes = 0;
    // Partitions take turns to go first, so that a large backlog in one does not hold up the others.
    this.turn = (this.turn + 1) % MARKET_PARTITIONS;
    for (let i = 0; i < MARKET_PARTITIONS && bytes < this.settings.highWaterBytes; i++) {
      const p = (this.turn + i) % MARKET_PARTITIONS;
      let entries: TailEntry[] | null = this.tailer.after(p, this.position[p]);
      if (entries === null) {
        const read = await readFeed(this.ctx.redis, this.ctx.keyPrefix, this.source.view, version, p, this.position[p], this.settings.catchUpCount);
        if (read.droppedThrough > this.position[p]) {
          // From 'earliest', the oldest entry kept is where the stream was asked to start.
          if (this.position[p] >= 0 || !this.fromEarliest)
            // Older than the feed keeps: say so, and go on from the oldest entry kept.
            out.push(sseMessage('gap', null, JSON.stringify({ partition: p, after: this.position[p], resumedAfter: read.droppedThrough })));
          this.position[p] = read.droppedThrough;
          any = true;
          entries = read.entries.filter((e) => e.offset > read.droppedThrough);
        } else entries = read.entries;
      }
      if (!entries.length) continue;
      any = true;
      // A bounded step: the socket's buffer is checked between steps.
      if (entries.length > this.settings.catchUpCount) entries = entries.slice(0, this.settings.catchUpCount);
      const matched: { row: unknown; id: string }[] = [];
      for (const e of entries) {
        const row = rowOf(this.source, e);
        this.position[p] = e.offset;
        // A copy: decoration sets fields on the rows it is given, and ring rows are shared.
        if (this.compiled.matches(row)) matched.push({ row: { ...(row as object) }, id: encodePosition(this.position) });
      }
      if (matched.length) {
        const rendered = await this.compiled.render(
          matched.map((m) => m.row),
          this.ctx,
          version,
        );
        rendered.forEach((r, j) => {
          const message = sseMessage('row', matched[j].id, this.compiled.serialize(r));
          bytes += message.length;
          out.push(message);
        });
        lastOut = matched[matched.length - 1].id;
      }
    }
    if (out.length && !this.closed) this.write(out.join(''), lastOut);
    return any;
  }
}

function rowOf(source: TableStreamSource, e: TailEntry | FeedEntry): unknown {
  const t = e as TailEntry;
  return (t.row ??= source.decode(e.stored, e.rowKey, e.segment));
}
