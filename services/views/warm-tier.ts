import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';
import { Packr } from 'msgpackr';
import type { RedisClient as Redis } from '../redis/client';
import type { PartitionKeys } from './keys';
import { compareKeys, encodeSortKey } from './sort-keys';
import type { TableKeys, TableLayout, TableSort } from './table';

/**
 * The warm tier of a segmented table view: a session (segment) older than the newest K of its
 * partition is kept as compact blocks instead of rows and indexes. Per partition and session:
 *
 *   <seg>:wb        hash  blockId -> brotli(MessagePack(codec.pack(rows))): up to rowsPerBlock rows
 *                         of one block key (a ticker), in default-sort order
 *   <seg>:wmp       string  every block's metadata, packed by column (packSessionMetas): its block
 *                         key, row count, and per indexed sort the least and greatest value of the
 *                         block (null when a value is not a number), so a query skips blocks it cannot
 *                         match and reads the others in sort order. One value, so that the first read
 *                         of a session decodes it at once (a `full` session has ~18,000 blocks).
 *                         A session frozen before it has `<seg>:wm` instead: a hash blockId ->
 *                         MessagePack [blockKey, count, mins, maxs] (decodeMeta), still read.
 *   <seg>:wx:<name> hash  blockId -> a companion's values of the block's rows, packed (WarmTier.companions)
 *   <seg>:wh:<name> string  the session's state hashes, packed as one value (WarmTier.stateHashes)
 *   tier            hash  w:<seg> -> block count, for each warm session (absent: hot; 0: its state alone)
 *   offsets         hash  (the applied offsets) also last:<seg> -> the rows topic's offset of the
 *                         session's last event (the quiet rule; bookkeeping, not content)
 *
 * The session stays in the view's segment set (`s`); its statistics stay as they are. Warm and hot
 * hold the same rows: moving a session between tiers changes no answer.
 */

export interface WarmCodec<Row> {
  /** The rows of one block (one block key, default-sort order) as one MessagePack-able value. */
  pack(rows: readonly Row[]): unknown;
  /** The rows `pack` was given, in the same order. */
  unpack(packed: unknown, segment: string): Row[];
}

export interface WarmTier<Row> {
  /** What a block holds rows of (a ticker): a query filtered on it reads only those blocks. */
  blockKey(row: Row): string;
  /**
   * A row's block key read straight from its stored bytes, or undefined when it cannot be (then
   * the row is decoded for it): lets the move group a session's rows before decoding any.
   */
  storedBlockKey?(stored: Buffer): string | undefined;
  /** The rows' packed form (default: each row's stored bytes with its rowKey). */
  codec?: WarmCodec<Row>;
  /** Rows per block (default WARM_BLOCK_ROWS). */
  rowsPerBlock?: number;
  /**
   * Hashes beside the rows, keyed by rowKey and read by key (comprising trades), that move with
   * them: a warm session keeps each packed per block in `<seg>:wx:<name>`.
   */
  companions?: readonly WarmCompanion[];
  /**
   * Hashes of a session that only the projection reads (the order-flow views' open-interest
   * join), found through a set that lists them: a warm session keeps them all as one packed
   * value (`<seg>:wh:<name>`), which a move back restores.
   */
  stateHashes?: readonly WarmStateHashes[];
}

export interface WarmStateHashes {
  name: string;
  /**
   * The zset of the sessions that have such hashes. A session may have them before it has rows
   * (the open interest of a session whose ticks come later): such a session, once older than the
   * hot ones, moves too, its state alone.
   */
  sessions(k: TableKeys): string;
  /** The set of the session's hashes (its members name them). */
  registry(k: TableKeys, seg: string): string;
  hash(k: TableKeys, seg: string, member: string): string;
}

export interface WarmCompanion {
  name: string;
  hash(k: TableKeys, seg: string): string;
  /** How a block's values are packed (default: as they are, beside their rowKeys). */
  codec?: CompanionCodec;
}

/** A block's companion values (rowKey -> stored value, in block order) as one MessagePack-able value, and back. */
export interface CompanionCodec {
  pack(entries: readonly [rowKey: string, value: Buffer][]): unknown;
  unpack(packed: unknown): [rowKey: string, value: Buffer][];
}

/** The default companion codec: [rowKeys, values]. */
const AS_STORED: CompanionCodec = {
  pack: (entries) => [entries.map((e) => e[0]), entries.map((e) => e[1])],
  unpack: (packed) => {
    const [keys, values] = packed as [string[], Uint8Array[]];
    return keys.map((k, i) => [k, Buffer.from(values[i].buffer, values[i].byteOffset, values[i].byteLength)]);
  },
};

export const WARM_BLOCK_ROWS = 256;

export interface BlockMeta {
  id: string;
  blockKey: string;
  count: number;
  /** Per layout sort (layout.sorts order): least and greatest numeric value, null when none. */
  min: (number | null)[];
  max: (number | null)[];
}

export interface PackedBlock {
  id: string;
  /** Its metadata (packSessionMetas packs a session's together). */
  meta: BlockMeta;
  /** The metadata as one MessagePack value (what the session's tier field digests). */
  metaBytes: Buffer;
  body: Buffer;
  /** The rowKeys of its rows, in block order. */
  rowKeys: string[];
}

/** Keys of the warm tier of one partition. */
export class WarmKeys {
  readonly tier: string;
  constructor(readonly p: PartitionKeys) {
    this.tier = p.key('tier');
  }
  blocks(seg: string): string {
    return this.p.key(seg, 'wb');
  }
  /** The session's packed block metadata (packSessionMetas). */
  metas(seg: string): string {
    return this.p.key(seg, 'wmp');
  }
  /** The block metadata of a session frozen before it was packed: a hash by block id (decodeMeta). */
  metaHash(seg: string): string {
    return this.p.key(seg, 'wm');
  }
  companion(seg: string, name: string): string {
    return this.p.key(seg, 'wx', name);
  }
  state(seg: string, name: string): string {
    return this.p.key(seg, 'wh', name);
  }
}

/**
 * How many sessions a view version keeps hot, fixed when the version is first projected (a
 * changed MDQ_HOT_SESSIONS applies to the next rebuild): the API relies on it to skip the tier
 * read for the newest sessions, which a smaller value could otherwise freeze under it.
 */
export function hotSessionsKey(prefix: string, view: string, version: number): string {
  return `${prefix}:${view}:v${version}:hot-sessions`;
}

export const warmField = (seg: string): string => `w:${seg}`;

/**
 * A warm session's tier field: its block count and a digest of its blocks (ids, metadata and
 * bodies), marked as covering the bodies (`:b`). Readers key their caches by it (decoded metadata
 * of the session, decoded rows of a block: api/tables/warm-reader.ts): a session moved back and
 * frozen again with other rows gets another value, and the same rows give the same value
 * (packBlocks is deterministic), so a rebuild writes what the projection wrote.
 */
export function warmTierValue(blocks: readonly Pick<PackedBlock, 'id' | 'metaBytes' | 'body'>[]): string {
  if (!blocks.length) return '0';
  const h = createHash('sha1');
  for (const b of blocks) h.update(b.id).update('\0').update(b.metaBytes).update(b.body);
  return `${blocks.length}:${h.digest('base64url').slice(0, 16)}:b`;
}

/** Whether a tier field names its blocks' metadata (warmTierValue), so that it may key a cache; not one written before the digest. */
export function isWarmMetaStamp(value: string): boolean {
  return value.includes(':');
}

/** Whether a tier field also digests its blocks' bodies, so that it may key a cache of their rows (not one written before it did). */
export function coversBlockBodies(value: string): boolean {
  return value.endsWith(':b');
}
export const lastEventField = (seg: string): string => `last:${seg}`;

const PACKR = new Packr({ useRecords: false });
/** Quality 5 of 11: most of the size of the best quality, at a fraction of its CPU (the move packs every row). */
const BROTLI_PARAMS = { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_LGWIN]: 20 };

/** The default codec: each row's stored form (the hot tier's bytes) beside its rowKey. */
function storedRowsCodec<Row>(layout: TableLayout<Row>): WarmCodec<Row> {
  return {
    pack: (rows) => [rows.map((r) => layout.rowKeyOf(r)), rows.map((r) => layout.encode(r))],
    unpack: (packed, segment) => {
      const [keys, stored] = packed as [string[], (Buffer | string | Uint8Array)[]];
      return keys.map((k, i) => layout.decode(toBuffer(stored[i]), k, segment));
    },
  };
}

function toBuffer(v: Buffer | string | Uint8Array): Buffer | string {
  return typeof v === 'string' || Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function codecOf<Row>(layout: TableLayout<Row>): WarmCodec<Row> {
  return layout.warm?.codec ?? storedRowsCodec(layout);
}

/** Rows in (default sort value, rowKey) order: the order of a block and of the hot tier's default index. */
export function sortRows<Row>(layout: TableLayout<Row>, rows: Row[]): Row[] {
  const by = layout.sorts[0].value;
  const keyed = rows.map((r) => ({ r, v: by(r), rk: layout.rowKeyOf(r) }));
  keyed.sort((a, b) => compareSortValues(a.v, a.rk, b.v, b.rk));
  return keyed.map((k) => k.r);
}

/**
 * compareKeys of the two values' sort keys, without encoding them when both are numbers: numeric
 * order is the encoded order for every number but NaN (encodeSortKey sorts -0 as 0).
 */
function compareSortValues(a: TableSortValue, aRow: string, b: TableSortValue, bRow: string): number {
  if (typeof a === 'number' && typeof b === 'number' && a === a && b === b) {
    if (a !== b) return a < b ? -1 : 1;
    return aRow < bRow ? -1 : aRow > bRow ? 1 : 0;
  }
  return compareKeys(encodeSortKey(a), aRow, encodeSortKey(b), bRow);
}
type TableSortValue = ReturnType<TableSort<unknown>['value']>;

/**
 * A session's rows of one partition as blocks: grouped by block key, each group in default-sort
 * order, cut every rowsPerBlock rows. Deterministic (the same rows give the same bytes), so a
 * replay or a second move writes the same blocks. Block ids: `<blockKey>:<n>`.
 */
export function packBlocks<Row>(layout: TableLayout<Row>, rows: readonly Row[]): PackedBlock[] {
  return [...eachPackedBlock(layout, rows)];
}

/** packBlocks one block at a time, so that a caller can give the event loop a turn between blocks. */
export function* eachPackedBlock<Row>(layout: TableLayout<Row>, rows: readonly Row[]): Generator<PackedBlock> {
  const warm = warmOf(layout);
  const groups = new Map<string, Row[]>();
  for (const r of rows) push(groups, warm.blockKey(r), r);
  for (const key of [...groups.keys()].sort()) yield* packGroup(layout, key, groups.get(key)!);
}

/**
 * eachPackedBlock over a session's stored rows (rowKey -> stored bytes), the same blocks, decoding
 * one block key's rows at a time (grouped by WarmTier.storedBlockKey): decoded all at once, the
 * rows of a `full` session's partition (~0.5 M objects) outlived the young generation, and their
 * collection was the move's longest pause (3.2 s; 1.5 s a ticker at a time). `decoded` sees each
 * group's rows (the move collects the hot keys to unlink from them). Yields null every
 * DECODE_STEP rows decoded, so that the caller may give the event loop a turn within a large group.
 */
export function* eachPackedBlockOfStored<Row>(
  layout: TableLayout<Row>,
  stored: ReadonlyMap<string, Buffer>,
  segment: string,
  decoded: (rows: readonly Row[]) => void,
): Generator<PackedBlock | null> {
  const warm = warmOf(layout);
  const undecoded = new Map<string, [rowKey: string, stored: Buffer][]>();
  const rows = new Map<string, Row[]>();
  let decodes = 0;
  for (const [rk, b] of stored) {
    const key = warm.storedBlockKey?.(b);
    if (key !== undefined) push(undecoded, key, [rk, b]);
    else {
      const r = layout.decode(b, rk, segment);
      push(rows, warm.blockKey(r), r);
      if (++decodes % DECODE_STEP === 0) yield null;
    }
  }
  for (const key of [...new Set([...undecoded.keys(), ...rows.keys()])].sort()) {
    const group = rows.get(key) ?? [];
    for (const [rk, b] of undecoded.get(key) ?? []) {
      group.push(layout.decode(b, rk, segment));
      if (++decodes % DECODE_STEP === 0) yield null;
    }
    decoded(group);
    yield* packGroup(layout, key, group);
  }
}
const DECODE_STEP = 2_000;

function warmOf<Row>(layout: TableLayout<Row>): WarmTier<Row> {
  if (!layout.warm) throw new Error(`${layout.view} has no warm tier`);
  return layout.warm;
}

function push<T>(groups: Map<string, T[]>, key: string, v: T): void {
  const g = groups.get(key);
  if (g) g.push(v);
  else groups.set(key, [v]);
}

/** The blocks of one block key's rows: in default-sort order, cut every rowsPerBlock rows, ids `<blockKey>:<n>`. */
function* packGroup<Row>(layout: TableLayout<Row>, key: string, rows: Row[]): Generator<PackedBlock> {
  const per = layout.warm!.rowsPerBlock ?? WARM_BLOCK_ROWS;
  const codec = codecOf(layout);
  const sorted = sortRows(layout, rows);
  for (let i = 0, n = 0; i < sorted.length; i += per, n++) {
    const part = sorted.slice(i, i + per);
    const id = `${key}:${n}`;
    const body = brotliCompressSync(PACKR.pack(codec.pack(part)), { params: BROTLI_PARAMS });
    const meta = metaOf(layout.sorts, key, part);
    yield {
      id,
      meta: { id, blockKey: key, count: part.length, min: meta[2], max: meta[3] },
      metaBytes: PACKR.pack(meta),
      body,
      rowKeys: part.map((r) => layout.rowKeyOf(r)),
    };
  }
}

function metaOf<Row>(sorts: readonly TableSort<Row>[], blockKey: string, rows: readonly Row[]): [string, number, (number | null)[], (number | null)[]] {
  const min: (number | null)[] = [];
  const max: (number | null)[] = [];
  for (const s of sorts) {
    let lo = Infinity;
    let hi = -Infinity;
    let numeric = true;
    for (const r of rows) {
      const v = s.value(r);
      if (typeof v !== 'number') {
        numeric = false;
        break;
      }
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    min.push(numeric ? lo : null);
    max.push(numeric ? hi : null);
  }
  return [blockKey, rows.length, min, max];
}

export function decodeMeta(id: string, stored: Buffer): BlockMeta {
  const [blockKey, count, min, max] = PACKR.unpack(stored) as [string, number, (number | null)[], (number | null)[]];
  return { id, blockKey, count, min, max };
}

const SESSION_METAS_FORMAT = 1;

/**
 * A session's block metadata (one partition) as one value, by column: [format, sorts, block keys,
 * blocks per key, counts (uint32), mins and maxs (float64, block by block, a sort after another;
 * NaN for null)], little-endian. Blocks come grouped by key in key order with ids `<key>:<n>`, n
 * from 0 (packBlocks' order), so their ids are not stored.
 */
export function packSessionMetas(metas: readonly BlockMeta[]): Buffer {
  const sorts = metas.length ? metas[0].min.length : 0;
  const keys: string[] = [];
  const perKey: number[] = [];
  const counts = new Uint32Array(metas.length);
  const mins = new Float64Array(metas.length * sorts);
  const maxs = new Float64Array(metas.length * sorts);
  metas.forEach((m, b) => {
    if (keys[keys.length - 1] !== m.blockKey) {
      if (keys.length && m.blockKey <= keys[keys.length - 1]) throw new Error(`block ${m.id} out of key order`);
      keys.push(m.blockKey);
      perKey.push(0);
    }
    if (m.id !== `${m.blockKey}:${perKey[perKey.length - 1]++}` || m.min.length !== sorts) throw new Error(`block ${m.id} out of order or of another layout`);
    counts[b] = m.count;
    for (let s = 0; s < sorts; s++) {
      mins[b * sorts + s] = m.min[s] ?? NaN;
      maxs[b * sorts + s] = m.max[s] ?? NaN;
    }
  });
  const bytes = (a: Uint32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  return PACKR.pack([SESSION_METAS_FORMAT, sorts, keys, perKey, bytes(counts), bytes(mins), bytes(maxs)]);
}

/** The block metadata packSessionMetas packed, in the same order. */
export function unpackSessionMetas(packed: Buffer): BlockMeta[] {
  const [format, sorts, keys, perKey, countBytes, minBytes, maxBytes] = PACKR.unpack(packed) as [
    number,
    number,
    string[],
    number[],
    Uint8Array,
    Uint8Array,
    Uint8Array,
  ];
  if (format !== SESSION_METAS_FORMAT) throw new Error(`packed block metadata of format ${format}, not ${SESSION_METAS_FORMAT}`);
  // Copied, so that the typed arrays are aligned whatever offset the values had in the reply.
  const counts = new Uint32Array(Uint8Array.from(countBytes).buffer);
  const mins = new Float64Array(Uint8Array.from(minBytes).buffer);
  const maxs = new Float64Array(Uint8Array.from(maxBytes).buffer);
  const out: BlockMeta[] = new Array(counts.length);
  let b = 0;
  keys.forEach((blockKey, k) => {
    for (let n = 0; n < perKey[k]; n++, b++) {
      const min: (number | null)[] = new Array(sorts);
      const max: (number | null)[] = new Array(sorts);
      for (let s = 0; s < sorts; s++) {
        const lo = mins[b * sorts + s];
        const hi = maxs[b * sorts + s];
        min[s] = lo === lo ? lo : null;
        max[s] = hi === hi ? hi : null;
      }
      out[b] = { id: `${blockKey}:${n}`, blockKey, count: counts[b], min, max };
    }
  });
  if (b !== counts.length) throw new Error(`packed block metadata lists ${b} blocks by key and ${counts.length} counts`);
  return out;
}

/**
 * The block metadata of warm sessions (each a partition's WarmKeys and a session), in one round
 * trip, or two where a session was frozen before its metadata was packed (the hash, read as a
 * flat list: ioredis would build an object of its thousands of fields).
 */
export async function readSessionMetas(redis: Redis, sessions: readonly { w: WarmKeys; seg: string }[]): Promise<BlockMeta[][]> {
  if (!sessions.length) return [];
  const pipe = redis.pipeline();
  for (const { w, seg } of sessions) pipe.getBuffer(w.metas(seg));
  const packed = (await pipe.exec())!.map(([err, v]) => {
    if (err) throw err;
    return v as Buffer | null;
  });
  const out = packed.map((v) => (v === null ? null : unpackSessionMetas(v)));
  const older = out.flatMap((m, i) => (m === null ? [i] : []));
  if (older.length) {
    const hashes = redis.pipeline();
    for (const i of older) hashes.callBuffer('HGETALL', sessions[i].w.metaHash(sessions[i].seg));
    (await hashes.exec())!.forEach(([err, flat], n) => {
      if (err) throw err;
      const f = flat as Buffer[];
      const metas: BlockMeta[] = new Array(f.length / 2);
      for (let j = 0; j < f.length; j += 2) metas[j / 2] = decodeMeta(f[j].toString(), f[j + 1]);
      // In the packed value's order (by key, then block number), which a hash does not keep.
      const no = (m: BlockMeta) => Number(m.id.slice(m.id.lastIndexOf(':') + 1));
      out[older[n]] = metas.sort((a, b) => (a.blockKey < b.blockKey ? -1 : a.blockKey > b.blockKey ? 1 : no(a) - no(b)));
    });
  }
  return out as BlockMeta[][];
}

/** The rows of a stored block, in default-sort order. */
export function unpackBlock<Row>(layout: TableLayout<Row>, body: Buffer, segment: string): Row[] {
  return codecOf(layout).unpack(PACKR.unpack(brotliDecompressSync(body)), segment);
}

/** A block's companion values (rowKey -> stored value, rows without one left out), packed. */
export function packCompanion(companion: WarmCompanion, entries: readonly [rowKey: string, value: Buffer][]): Buffer {
  return brotliCompressSync(PACKR.pack((companion.codec ?? AS_STORED).pack(entries)), { params: BROTLI_PARAMS });
}

export function unpackCompanion(companion: WarmCompanion, body: Buffer): Map<string, Buffer> {
  return new Map((companion.codec ?? AS_STORED).unpack(PACKR.unpack(brotliDecompressSync(body))));
}

/**
 * A session's state hashes (registry member -> its fields and values, flat), packed as one value:
 * [members, field counts, every field and value in one flat array] (flat arrays of strings are what
 * MessagePack and brotli do fastest).
 */
export function packStateHashes(hashes: ReadonlyMap<string, readonly string[]>): Buffer {
  const members = [...hashes.keys()].sort();
  const counts = members.map((m) => hashes.get(m)!.length / 2);
  // Fields in order (a hash gives them in insertion order): neighbouring strikes compress better.
  const flat = members.flatMap((m) => {
    const kv = hashes.get(m)!;
    const pairs: [string, string][] = [];
    for (let i = 0; i < kv.length; i += 2) pairs.push([kv[i], kv[i + 1]]);
    return pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).flat();
  });
  return brotliCompressSync(PACKR.pack([members, counts, flat]), { params: BROTLI_PARAMS });
}

export function unpackStateHashes(packed: Buffer): Map<string, string[]> {
  const [members, counts, flat] = PACKR.unpack(brotliDecompressSync(packed)) as [string[], number[], string[]];
  const out = new Map<string, string[]>();
  let at = 0;
  members.forEach((m, i) => {
    out.set(m, flat.slice(at, at + 2 * counts[i]));
    at += 2 * counts[i];
  });
  return out;
}

/** The ids of the blocks of `metas` that can hold a row (its block key, its default sort value within the block's range). */
export function blocksHolding<Row>(layout: TableLayout<Row>, metas: readonly BlockMeta[], row: Row): string[] {
  const key = layout.warm!.blockKey(row);
  const v = layout.sorts[0].value(row);
  return metas.filter((m) => m.blockKey === key && (typeof v !== 'number' || m.min[0] === null || (v >= m.min[0] && v <= m.max[0]!))).map((m) => m.id);
}
