import path from 'path';
import { Worker } from 'worker_threads';
import type { Kafka } from 'kafkajs';
import type { Config } from '../../services/config';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { LocalDate } from '../../services/domain/calendar';
import type { Logger } from '../../services/log';
import { profileNamed, type ProfileName } from '../simulator/profiles';
import { sessionChunkCount, SimulatedMarket, type Tier } from '../simulator/session';
import { TICK_SHARDS } from './shards';
import type { ShardMessage, ShardTask } from './tick-shard-thread';
import { ChunkWriter, fenceWriters, type ProgressRecord } from './chunk-writer';
import { commitChunks, type StreamPosition } from './commit-chunks';
import { ProgressTracker } from './progress';

export interface IngestDeps {
  config: Config;
  kafka: Kafka;
  registry: SchemaRegistry;
  topicPrefix: string;
  progress: ProgressTracker;
  log?: Logger;
}

export type Level = 'daily' | 'tick';

export interface SessionRequest {
  seed: number;
  profile: ProfileName;
  date: LocalDate;
  /** daily: history-level data only; tick: everything */
  level: Level;
  /**
   * A daily-level request for a session whose ticks come later (`history` produces the daily tier
   * of every session before the older sessions' ticks): its daily tier, like that of a tick-level
   * request, leaves out the off-exchange sample.
   */
  ticksLater?: boolean;
}

export interface Progress {
  /** chunks committed out of all chunks of the requested streams */
  done: number;
  total: number;
  events: number;
  /** of `done`, the chunks of the tick tier's streams (`ingest -- status` times the tiers apart) */
  tickDone?: number;
}

/** Whether a request's daily tier is that of a session with ticks (no off-exchange sample). */
export function withTicks(req: Pick<SessionRequest, 'level' | 'ticksLater'>): boolean {
  return req.level === 'tick' || req.ticksLater === true;
}

/** Stream name of one tier of one simulated session; also its progress key. */
export function streamName(r: { seed: number; profile: string; date: LocalDate }, tier: Tier): string {
  return `sim/${r.seed}/${r.profile}/${r.date}/${tier}`;
}

/** Stream of one shard of the tick tier. */
export function tickStream(r: { seed: number; profile: string; date: LocalDate }, shard: number): string {
  return `${streamName(r, 'tick')}/${shard}`;
}

/** Markets are costly to set up (history, chains); a worker keeps one per (seed, profile). */
const markets = new Map<string, SimulatedMarket>();
export function marketFor(seed: number, profile: ProfileName): SimulatedMarket {
  const key = `${seed}/${profile}`;
  let m = markets.get(key);
  if (!m) {
    m = new SimulatedMarket(seed, profileNamed(profile));
    markets.set(key, m);
  }
  return m;
}

/** Names the session's writers (transactional ids) independent of tier. */
export function sessionKey(r: { seed: number; profile: string; date: LocalDate }): string {
  return `sim/${r.seed}/${r.profile}/${r.date}`;
}

/** The transactional id of a backfill's writer: the daily tier's (shard -1) or a tick shard's. */
export function backfillWriterId(r: { seed: number; profile: string; date: LocalDate }, shard: number): string {
  return shard < 0 ? `ingest-${sessionKey(r)}-daily` : `ingest-${sessionKey(r)}-tick-${shard}`;
}

/** The transactional id of a live session's one writer (it writes the backfill's streams). */
export function liveWriterId(r: { seed: number; profile: string; date: LocalDate }): string {
  return `ingest-${sessionKey(r)}-live`;
}

/**
 * Every writer of a session's streams, backfill's and live's alike: a producer fences them all
 * before reading positions, so two jobs of one session can fail each other but never both commit.
 */
export function sessionWriterIds(r: { seed: number; profile: string; date: LocalDate }): string[] {
  return [backfillWriterId(r, -1), ...Array.from({ length: TICK_SHARDS }, (_, shard) => backfillWriterId(r, shard)), liveWriterId(r)];
}

/** Threads producing tick shards in parallel (a worker process uses at most this many). */
// One per shard by default: a thread spends part of its time waiting for the broker, so even on
// two cores four threads beat two (measured on the full profile with bench:ingest).
const SHARD_THREADS = Math.max(1, Number(process.env.MDQ_INGEST_THREADS ?? TICK_SHARDS));

/**
 * Backfills one session. The daily tier is one stream; the tick tier is TICK_SHARDS streams
 * produced by worker threads in parallel. Each stream resumes after its last committed chunk and
 * commits the rest in transactions of about TX_EVENTS events, so running it again once complete
 * produces nothing, and a repeated or retried backfill never duplicates an event.
 */
export async function produceSession(deps: IngestDeps, req: SessionRequest, onProgress?: (p: Progress) => void, signal?: AbortSignal): Promise<Progress> {
  const chunks = sessionChunkCount(req.date);
  const streams = [{ stream: streamName(req, 'daily'), shard: -1 }];
  if (req.level === 'tick') for (let shard = 0; shard < TICK_SHARDS; shard++) streams.push({ stream: tickStream(req, shard), shard });
  const progress: Progress & { tickDone: number } = { done: 0, total: chunks * streams.length, events: 0, tickDone: 0 };
  const pending: { stream: string; shard: number; start: number; events: number }[] = [];
  // Fenced first, so that no earlier writer of these streams (a killed run, a job handed on after
  // its lock expired, a commit that timed out) commits after the positions are read.
  await fenceWriters(deps.kafka, deps.topicPrefix, sessionWriterIds(req));
  await deps.progress.caughtUp(); // once: then every stream's progress is known
  for (const s of streams) {
    const last = deps.progress.peek(s.stream);
    progress.done += (last?.chunk ?? -1) + 1;
    if (s.shard >= 0) progress.tickDone += (last?.chunk ?? -1) + 1;
    progress.events += last?.events ?? 0;
    if ((last?.chunk ?? -1) + 1 < chunks) pending.push({ ...s, start: (last?.chunk ?? -1) + 1, events: last?.events ?? 0 });
  }
  onProgress?.({ ...progress });
  const committed = (record: ProgressRecord, chunkCount: number, events: number) => {
    deps.progress.note(record);
    progress.done += chunkCount;
    if (record.stream !== streams[0].stream) progress.tickDone += chunkCount;
    progress.events += events;
    onProgress?.({ ...progress });
  };
  // The daily tier is written by this thread while the tick shards are written by worker threads.
  const daily = pending.find((p) => p.shard < 0);
  const dailyDone = daily ? produceDaily(deps, req, { ...daily, chunks }, committed, signal) : Promise.resolve();
  const shards = pending.filter((p) => p.shard >= 0);
  // A small pool: at most SHARD_THREADS shards at once, each in its own thread.
  let next = 0;
  const runNext = async (): Promise<void> => {
    while (next < shards.length) {
      const p = shards[next++];
      await runShardThread({ config: deps.config, req, shard: p.shard, stream: p.stream, start: p.start, events: p.events, chunks }, committed, signal);
    }
  };
  await Promise.all([dailyDone, ...Array.from({ length: Math.min(SHARD_THREADS, shards.length) }, runNext)]);
  return progress;
}

async function produceDaily(
  deps: IngestDeps,
  req: SessionRequest,
  pos: StreamPosition,
  committed: (r: ProgressRecord, chunks: number, events: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  const gen = marketFor(req.seed, req.profile).session(req.date, 'daily', undefined, { withTicks: withTicks(req) });
  const writer = new ChunkWriter(deps.kafka, deps.registry, deps.topicPrefix, backfillWriterId(req, -1));
  await writer.connect();
  try {
    await commitChunks(writer, gen, pos, committed, signal);
  } finally {
    await writer.disconnect();
  }
}

function runShardThread(task: ShardTask, committed: (r: ProgressRecord, chunks: number, events: number) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // Loader hooks are per thread: the thread registers tsx itself before loading the TypeScript.
    const entry = path.join(__dirname, 'tick-shard-thread.ts');
    // A larger young generation: producing allocates fast and short-lived (kafkajs encoding), and
    // fewer, larger scavenges cost less.
    const thread = new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, {
      eval: true,
      workerData: task,
      resourceLimits: { maxYoungGenerationSizeMb: 96 },
    });
    const abort = () => void thread.terminate();
    signal?.addEventListener('abort', abort, { once: true });
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      if (err) reject(err);
      else resolve();
    };
    thread.on('message', (m: ShardMessage) => {
      if (m.kind === 'commit') committed(m.record, m.chunks, m.events);
      else if (m.kind === 'done') finish();
      else finish(new Error(`tick shard ${task.shard}: ${m.message}`));
    });
    thread.on('error', (err) => finish(err));
    thread.on('exit', (code) =>
      finish(code === 0 ? undefined : new Error(signal?.aborted ? 'backfill aborted' : `tick shard ${task.shard} thread exited with ${code}`)),
    );
  });
}
