import crypto from 'crypto';
import type { RedisClient as Redis } from '../../services/redis/client';
import { schemaText, topicFor } from '../../schemas/catalog';
import { partitionTag } from '../../services/views/keys';
import { Consolidator } from './consolidate';
import type { TouchedState } from './partition-state';

/**
 * The processor's per-partition state in Redis, tagged with the input offset it corresponds to:
 *
 *   <prefix>:proc:order-flow:{pNN}:meta     hash: offset (last input offset folded in, -1: none), format
 *   <prefix>:proc:order-flow:{pNN}:volume   hash: "<sessionDate>|<osi>" -> cumulative contracts
 *   <prefix>:proc:order-flow:{pNN}:groups   hash: "<sessionDate>|<osi>|<BUY|SELL|MID>" -> the open
 *                                           trade's latest version, Avro (consolidated-trade schema)
 *
 * The {pNN} hash tag keeps one partition's keys in one Redis Cluster slot, so a save is one
 * atomic script there too. A save writes only the entries changed since the previous save, plus
 * the offset, and only if the stored offset is still the one this process last read or wrote
 * (compare-and-set): a zombie instance that lost the partition, or a write that arrives late,
 * can never overwrite a newer state or mix its entries into it.
 *
 * `format` names the state layout and the consolidated-trade schema the groups are encoded with.
 * State in another format is discarded at load: the processor then rebuilds it by replaying the
 * partition from its start (see processor.ts), so a schema change needs no migration.
 */

const consolidatedSpec = topicFor('consolidated-trade')!;
export const STATE_FORMAT = `v1:${crypto.createHash('sha256').update(schemaText(consolidatedSpec)).digest('hex').slice(0, 12)}`;

export function stateBase(keyPrefix: string, partition: number): string {
  return `${keyPrefix}:proc:order-flow:${partitionTag(partition)}`;
}

export interface StateKeys {
  meta: string;
  volume: string;
  groups: string;
}

export function stateKeys(keyPrefix: string, partition: number): StateKeys {
  const base = stateBase(keyPrefix, partition);
  return { meta: `${base}:meta`, volume: `${base}:volume`, groups: `${base}:groups` };
}

export interface LoadedState {
  /** last input offset folded into the state; -1 when there is none */
  offset: number;
  volumes: Map<string, number>;
  consolidator: Consolidator;
  /** the stored state was in another format and was discarded */
  discarded: boolean;
}

// KEYS: meta, volume, groups. ARGV: expected offset, new offset, format, count of volume
// arguments (2 per entry), then volume field/value pairs, then group field/value pairs.
// unpack() is bounded by Lua's C stack, so HSETs go in slices of 1000 arguments (500 pairs).
const SAVE = `
local cur = redis.call('HGET', KEYS[1], 'offset') or '-1'
if cur ~= ARGV[1] then return cur end
local nv = tonumber(ARGV[4])
local i = 5
local last = 4 + nv
while i <= last do
  local j = math.min(i + 999, last)
  redis.call('HSET', KEYS[2], unpack(ARGV, i, j))
  i = j + 1
end
last = #ARGV
while i <= last do
  local j = math.min(i + 999, last)
  redis.call('HSET', KEYS[3], unpack(ARGV, i, j))
  i = j + 1
end
redis.call('HSET', KEYS[1], 'offset', ARGV[2], 'format', ARGV[3])
return 'ok'
`;

interface WithSave {
  mdqSaveProcessorState(...args: (string | number | Buffer)[]): Promise<string>;
}

export class StateStore {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {
    if (!(redis as unknown as Partial<WithSave>).mdqSaveProcessorState) redis.defineCommand('mdqSaveProcessorState', { numberOfKeys: 3, lua: SAVE });
  }

  keys(partition: number): StateKeys {
    return stateKeys(this.keyPrefix, partition);
  }

  /** The partition's state, read in one transaction so it is one consistent version. */
  async load(partition: number): Promise<LoadedState> {
    const k = this.keys(partition);
    const res = await this.redis.multi().hmget(k.meta, 'offset', 'format').hgetall(k.volume).hgetallBuffer(k.groups).exec();
    if (!res) throw new Error('redis transaction aborted');
    for (const [err] of res) if (err) throw err;
    const [offset, format] = res[0][1] as (string | null)[];
    if (offset === null) return { offset: -1, volumes: new Map(), consolidator: new Consolidator(), discarded: false };
    if (format !== STATE_FORMAT) {
      await this.redis.del(k.meta, k.volume, k.groups);
      return { offset: -1, volumes: new Map(), consolidator: new Consolidator(), discarded: true };
    }
    const volumes = new Map<string, number>();
    for (const [key, v] of Object.entries(res[1][1] as Record<string, string>)) volumes.set(key, Number(v));
    const consolidator = new Consolidator();
    for (const [key, buf] of Object.entries(res[2][1] as Record<string, Buffer>)) consolidator.restoreEncoded(key, buf);
    return { offset: Number(offset), volumes, consolidator, discarded: false };
  }

  /**
   * Writes the changed entries and moves the offset from `expected` to `next`. Returns false,
   * writing nothing, when the stored offset is not `expected` (someone else wrote meanwhile).
   */
  async save(partition: number, expected: number, next: number, touched: TouchedState): Promise<boolean> {
    const k = this.keys(partition);
    const args: (string | Buffer)[] = [String(expected), String(next), STATE_FORMAT, String(touched.volumes.length * 2)];
    for (const [key, v] of touched.volumes) args.push(key, String(v));
    for (const [key, body] of touched.groups) args.push(key, body);
    const r = await (this.redis as unknown as WithSave).mdqSaveProcessorState(k.meta, k.volume, k.groups, ...args);
    return r === 'ok';
  }

  /** Drops the partition's state (operations, tests). */
  async clear(partition: number): Promise<void> {
    const k = this.keys(partition);
    await this.redis.del(k.meta, k.volume, k.groups);
  }
}
