import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';
import { Packr } from 'msgpackr';
import type { PartitionKeys } from '../keys';
import { packAtm, unpackAtm, type AtmColumns } from './warm-atm';

/**
 * The warm tier of the flow-aggregates cube: a session of a partition older than its newest K
 * (projections/runtime/warm-tier.ts decides when) keeps its keys (keys.ts sessionDataKeys: cells,
 * last prices, bars, the OSI index, the at-the-money prints) collapsed into a few compressed groups
 * instead of thousands of hashes:
 *
 *   <D>:wc     hash  group id -> brotli(MessagePack([[suffix, fields, values] or [suffix, members]
 *                    or [suffix, 0, 0, at-the-money columns], ...])),
 *                    and GROUP_IDS -> a digest of the groups, then their ids in suffix order (encodeGroupList)
 *   tier       hash  w:<D> -> the number of groups (absent: hot; read by every chunk, so kept short)
 *
 * The levels derived.ts folds from finer ones (contract session cells, coarse and ticker-net
 * minute cells, the market's coarse, exchange and net session cells, ...) are not kept: readers
 * and a move back rebuild them. A key's suffix is its name after `<D>:` (`cm:AAPL`, `ms`); a group
 * holds keys of one kind (the suffix's first part) in suffix order, cut once it holds GROUP_BYTES,
 * and is named by its first suffix, so a reader finds a key's group from the ids alone (the
 * greatest id of its kind not after it). Values are the hot tier's bytes (packed.ts blocks, plain
 * strings; at-the-money prints as columns of numbers when that reads back exactly, warm-atm.ts),
 * fields in code-unit order, so the groups depend only on the session's content: a rebuild, or a
 * second move after a move back, writes the same bytes. `<D>:tk` (the underlyings) stays as it is.
 */

/** Raw bytes (fields and values) after which a group is cut: bounds what a read of one underlying's cells decodes. */
export const GROUP_BYTES = 128 * 1024;

/** A key of a session: a hash (fields and values) or a lex zset (members). */
export type SessionEntry = { suffix: string; fields: string[]; values: Buffer[] } | { suffix: string; members: string[] };

/** A decoded group: by suffix, a hash's field -> value, or a zset's members in order. */
export type DecodedGroup = Map<string, Map<string, Buffer> | string[]>;

export interface PackedGroup {
  id: string;
  body: Buffer;
}

const PACKR = new Packr({ useRecords: false });
const BROTLI = { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_LGWIN]: 22 } };

export const cubeGroupsKey = (k: PartitionKeys, d: string): string => k.key(d, 'wc');
/** The field of `<D>:wc` listing its groups (no suffix starts with '*'). */
export const GROUP_IDS = '*ids';

/** A key's suffix after its session's prefix. */
export function suffixOf(k: PartitionKeys, d: string, key: string): string {
  const head = `${k.key(d)}:`;
  if (!key.startsWith(head)) throw new Error(`${key} is not a key of session ${d}`);
  return key.slice(head.length);
}

const kindOf = (suffix: string): string => {
  const at = suffix.indexOf(':');
  return at < 0 ? suffix : suffix.slice(0, at);
};
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const sizeOf = (e: SessionEntry): number =>
  'members' in e ? e.members.reduce((n, m) => n + m.length, 0) : e.fields.reduce((n, f, i) => n + f.length + e.values[i].length, 0);

/** A session's keys (empty ones left out) as groups; deterministic in the entries' content. */
export function packSession(entries: readonly SessionEntry[]): PackedGroup[] {
  const sorted = entries.filter((e) => ('members' in e ? e.members.length : e.fields.length) > 0).sort((a, b) => byCodeUnits(a.suffix, b.suffix));
  const out: PackedGroup[] = [];
  let group: unknown[] = [];
  let id = '';
  let bytes = 0;
  const flush = () => {
    if (group.length) out.push({ id, body: brotliCompressSync(PACKR.pack(group), BROTLI) });
    group = [];
    bytes = 0;
  };
  for (const e of sorted) {
    if (group.length && (kindOf(e.suffix) !== kindOf(id) || bytes >= GROUP_BYTES)) flush();
    if (!group.length) id = e.suffix;
    if ('members' in e) group.push([e.suffix, [...e.members].sort(byCodeUnits)]);
    else {
      const order = e.fields.map((_, i) => i).sort((i, j) => byCodeUnits(e.fields[i], e.fields[j]));
      const fields = order.map((i) => e.fields[i]);
      const values = order.map((i) => e.values[i]);
      // At-the-money prints as columns of numbers when they read back exactly, else as they are.
      const atm = kindOf(e.suffix) === 'av' ? packAtm(fields, values) : null;
      group.push(atm ? [e.suffix, 0, 0, atm] : [e.suffix, fields, values]);
    }
    bytes += sizeOf(e);
  }
  flush();
  return out;
}

/** A stored group's keys. */
export function unpackGroup(body: Buffer): DecodedGroup {
  const out: DecodedGroup = new Map();
  for (const e of PACKR.unpack(brotliDecompressSync(body)) as unknown[][]) {
    const suffix = e[0] as string;
    if (e.length === 2) {
      out.set(suffix, e[1] as string[]);
      continue;
    }
    if (e.length === 4) {
      out.set(suffix, unpackAtm(e[3] as AtmColumns));
      continue;
    }
    const fields = e[1] as string[];
    const values = e[2] as Uint8Array[];
    out.set(suffix, new Map(fields.map((f, i) => [f, Buffer.from(values[i].buffer, values[i].byteOffset, values[i].byteLength)])));
  }
  return out;
}

/**
 * What GROUP_IDS keeps: a digest of the session's groups (their ids and bytes), then the ids, one
 * a line. Readers cache what they decode and derive by the digest, so a warm session read again
 * needs neither its groups' bytes nor any work; a session frozen again with other content has
 * another digest.
 */
export function encodeGroupList(groups: readonly PackedGroup[]): string {
  const h = createHash('sha1');
  for (const g of groups) h.update(`${g.id}\n${g.body.length}\n`).update(g.body);
  return [h.digest('base64'), ...groups.map((g) => g.id)].join('\n');
}
export function decodeGroupList(stored: string): { digest: string; ids: string[] } {
  const [digest, ...ids] = stored.split('\n');
  return { digest, ids };
}

/** The id of the group that holds `suffix` if the session has it (ids in stored order, which is suffix order), else null. */
export function groupOf(ids: readonly string[], suffix: string): string | null {
  const kind = kindOf(suffix);
  let found: string | null = null;
  for (const id of ids) if (kindOf(id) === kind && id <= suffix) found = id;
  return found;
}
