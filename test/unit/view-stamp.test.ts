import type { RedisClient as Redis } from '../../services/redis/client';
import { viewStamp } from '../../api/tables/view-state';

/** A stand-in for the one call viewStamp makes: a pipeline of HGETALLs of the partitions' offsets. */
function fakeRedis(offsets: () => Record<string, string>) {
  let reads = 0;
  const gates: (() => void)[] = [];
  const gate = () => new Promise<void>((r) => gates.push(r));
  const redis = {
    pipeline() {
      const cmds: string[] = [];
      const pipe = {
        hgetall(key: string) {
          cmds.push(key);
          return pipe;
        },
        async exec() {
          reads++;
          await gate();
          return cmds.map(() => [null, offsets()]);
        },
      };
      return pipe;
    },
  } as unknown as Redis;
  const releaseAll = () => gates.splice(0).forEach((r) => r());
  return { redis, reads: () => reads, release: releaseAll, releaseAll };
}

describe('view stamps', () => {
  it('concurrent requests share one read; a request after it settles reads again and sees what changed', async () => {
    let offset = 5;
    const f = fakeRedis(() => ({ 'derived.order-flow.prints': String(offset), 'seen:x': '9' }));
    const a = viewStamp(f.redis, 'p', 'v', 3, 2);
    const b = viewStamp(f.redis, 'p', 'v', 3, 2);
    expect(f.reads()).toBe(1);
    f.release();
    expect(await a).toBe('3|derived.order-flow.prints=5|derived.order-flow.prints=5');
    expect(await b).toBe(await a);
    offset = 6;
    const c = viewStamp(f.redis, 'p', 'v', 3, 2);
    expect(f.reads()).toBe(2);
    f.release();
    expect(await c).toBe('3|derived.order-flow.prints=6|derived.order-flow.prints=6');
  });

  it('another view, version or prefix is read on its own', async () => {
    const f = fakeRedis(() => ({}));
    const all = [
      viewStamp(f.redis, 'p', 'v', 3, 1),
      viewStamp(f.redis, 'p', 'w', 3, 1),
      viewStamp(f.redis, 'p', 'v', 4, 1),
      viewStamp(f.redis, 'q', 'v', 3, 1),
    ];
    expect(f.reads()).toBe(4);
    f.releaseAll();
    expect(await Promise.all(all)).toEqual(['3|', '3|', '4|', '3|']);
  });
});
