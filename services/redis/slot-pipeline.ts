import { exists as isBuiltin, getKeyIndexes } from '@ioredis/commands';
import calculateSlot from 'cluster-key-slot';
import type { ChainableCommander, Cluster, Command } from 'ioredis';

/**
 * ioredis sends a Redis Cluster pipeline to one node and refuses one whose keys lie on more than
 * one. The API's reads are scatter reads: one pipeline over the keys of every partition (each
 * partition is one hash tag, so one slot), which a cluster spreads over its masters. This pipeline
 * takes any commands, runs one ioredis pipeline per node side by side (ioredis follows MOVED/ASK
 * in each), and answers in the order the commands were given, as one pipeline would. A command's
 * own keys must still share a slot (CROSSSLOT otherwise), which the key layout guarantees for
 * every multi-key command the service issues.
 */

type Queued = { name: string; args: unknown[] } | { command: Command };

/** numberOfKeys of each script defined with defineCommand (null: the first argument says). */
export type ScriptKeys = Map<string, number | null>;

const BUFFER_SUFFIX = /Buffer$/;

function firstKey(q: Queued, scripts: ScriptKeys): string | Buffer | undefined {
  if ('command' in q) return q.command.getKeys()[0];
  let name = q.name.replace(BUFFER_SUFFIX, '').toLowerCase();
  let args = q.args.flat() as (string | Buffer | number)[];
  // call('HGETALL', key) / callBuffer(...): the command is the first argument.
  if (name === 'call') [name, args] = [String(args[0]).toLowerCase(), args.slice(1)];
  if (scripts.has(name)) {
    const n = scripts.get(name);
    return (n === null || n === undefined ? args[1] : args[0]) as string | Buffer | undefined;
  }
  if (!isBuiltin(name)) return undefined;
  const at = getKeyIndexes(name, args)[0];
  return at === undefined ? undefined : (args[at] as string | Buffer);
}

function replay(pipeline: ChainableCommander, q: Queued): void {
  if ('command' in q) {
    (pipeline as unknown as { sendCommand(c: Command): unknown }).sendCommand(q.command);
    return;
  }
  (pipeline as unknown as Record<string, (...a: unknown[]) => unknown>)[q.name]!(...q.args);
}

/** A pipeline over `cluster` that may span its nodes (see above). */
export function slotPipeline(cluster: Cluster, native: () => ChainableCommander, scripts: ScriptKeys): ChainableCommander {
  const queue: Queued[] = [];
  const exec = async (): Promise<[Error | null, unknown][]> => {
    // By the nodes serving the slot, as ioredis's own auto-pipelining groups (by slot until the
    // slot map is known); commands without a key go with the first group.
    const byNode = new Map<string, number[]>();
    queue.forEach((q, i) => {
      const key = firstKey(q, scripts);
      const slot = key === undefined ? -1 : calculateSlot(key);
      const group = slot < 0 ? '' : (cluster.slots[slot]?.join(',') ?? `slot ${slot}`);
      const list = byNode.get(group) ?? (group === '' ? byNode.values().next().value : undefined);
      if (list) list.push(i);
      else byNode.set(group, [i]);
    });
    const out: [Error | null, unknown][] = new Array(queue.length);
    await Promise.all(
      [...byNode.values()].map(async (indexes) => {
        const p = native();
        for (const i of indexes) replay(p, queue[i]!);
        const results = (await p.exec()) ?? [];
        indexes.forEach((i, j) => (out[i] = results[j] ?? [new Error('no reply'), null]));
      }),
    );
    return out;
  };
  // Properties assigned on the pipeline (a wrapper around one of its methods) win, as on ioredis's.
  const assigned = new Map<string | symbol, unknown>();
  const proxy: ChainableCommander = new Proxy({} as ChainableCommander, {
    set(_, prop, value) {
      assigned.set(prop, value);
      return true;
    },
    get(_, prop) {
      if (assigned.has(prop)) return assigned.get(prop);
      // ioredis's auto-pipelining builds its batches with client.pipeline() and a callback.
      if (prop === 'exec')
        return (callback?: (err: Error | null, results?: [Error | null, unknown][]) => void) => {
          const done = exec();
          if (callback) done.then((r) => callback(null, r), callback);
          return done;
        };
      if (prop === 'length') return queue.length;
      if (prop === 'then') return undefined; // not a promise: `await pipeline` must not call exec
      if (prop === 'sendCommand') {
        return (command: Command) => {
          queue.push({ command });
          return proxy;
        };
      }
      if (typeof prop !== 'string') return undefined;
      return (...args: unknown[]) => {
        queue.push({ name: prop, args });
        return proxy;
      };
    },
  });
  return proxy;
}
