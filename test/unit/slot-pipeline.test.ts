import calculateSlot from 'cluster-key-slot';
import type { ChainableCommander, Cluster } from 'ioredis';
import { slotPipeline } from '../../services/redis/slot-pipeline';

/**
 * The cluster pipeline that may span nodes (services/redis/slot-pipeline.ts): each command goes to
 * the node serving its key's slot, found from the command's key position, for `call` and
 * `callBuffer` too (their command is their first argument), and the replies come back in order.
 */

/** A cluster of two nodes, even slots on one and odd on the other, whose pipelines record what they are sent. */
function fakeCluster() {
  const sent: { node: string; commands: unknown[][] }[] = [];
  const slots: string[][] = Array.from({ length: 16384 }, (_, s) => [s % 2 ? 'odd' : 'even']);
  const native = (): ChainableCommander => {
    const commands: unknown[][] = [];
    const batch = { node: '', commands };
    sent.push(batch);
    return new Proxy({} as ChainableCommander, {
      get: (_, prop) =>
        prop === 'exec'
          ? async () => commands.map((c) => [null, c])
          : (...args: unknown[]) => {
              commands.push([prop, ...args]);
              return undefined;
            },
    });
  };
  return { cluster: { slots } as unknown as Cluster, native, sent };
}

const keyOn = (parity: number, n: number) => {
  for (let i = n; ; i++) if (calculateSlot(`{p${i}}:k`) % 2 === parity) return `{p${i}}:k`;
};

describe('a cluster pipeline over several nodes', () => {
  it('sends each command, call and callBuffer included, to the node of its key, and answers in order', async () => {
    const { cluster, native, sent } = fakeCluster();
    const [even, odd] = [keyOn(0, 0), keyOn(1, 0)];
    const pipe = slotPipeline(cluster, native, new Map());
    pipe.call('HGETALL', odd);
    pipe.hgetall(even);
    pipe.callBuffer('HGETALL', even);
    pipe.call('HGETALL', odd);
    const replies = (await pipe.exec())!.map(([, r]) => r);
    expect(replies).toEqual([
      ['call', 'HGETALL', odd],
      ['hgetall', even],
      ['callBuffer', 'HGETALL', even],
      ['call', 'HGETALL', odd],
    ]);
    // Two node pipelines, each holding only its node's keys.
    expect(sent).toHaveLength(2);
    for (const { commands } of sent) {
      const parities = new Set(commands.map((c) => calculateSlot(String(c[c.length - 1])) % 2));
      expect(parities.size).toBe(1);
    }
  });
});
