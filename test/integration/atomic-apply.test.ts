import type IORedis from 'ioredis';
import { applyAtomically, readAppliedOffset, readAppliedOffsets, type RedisOp } from '../../projections/runtime/atomic-apply';
import { createRedis } from '../../services/redis/client';
import { testConfig } from '../support/env';

/**
 * The compare-and-apply script on a real Redis: a chunk's writes land in order with the new
 * offset, or nothing lands at all when the partition's offset (or another topic's) moved.
 */

const config = testConfig('atomic-apply');
const redis = createRedis(config.viewsRedisUrl);
const k = (name: string) => `${config.keyPrefix}:${name}`;
const OFFSETS = k('offsets');

const other = createRedis(config.viewsRedisUrl);

afterAll(async () => {
  const keys = await redis.keys(`${config.keyPrefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  other.disconnect();
});

/** `target` with some properties replaced (methods of the rest bound to it). */
function withOverrides<T extends object>(target: T, override: (prop: string | symbol) => unknown): T {
  return new Proxy(target, {
    get(t, prop) {
      const o = override(prop);
      if (o !== undefined) return o;
      const v = Reflect.get(t, prop, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}

describe('applyAtomically', () => {
  it('applies every op in order, with the new offset, when the expected offset is stored', async () => {
    const ops: RedisOp[] = [
      ['HSET', k('rows'), 'r1', '{"a":1}', 'r2', 'with "quotes", \\ and \n newline'],
      ['ZADD', k('idx'), '3', 'c', '1', 'a'],
      ['ZADD', k('idx'), '2', 'b'], // merges with the ZADD above
      ['ZREM', k('idx'), 'a'], // after the additions: a goes again
      ['HINCRBY', k('stats'), 'n', '5'],
      ['HINCRBY', k('stats'), 'n', '-2'],
      ['SADD', k('set'), 'x', 'y'],
    ];
    expect(await applyAtomically(redis, OFFSETS, 'topic-a', -1, 9, ops)).toEqual({ applied: true, conflict: false, offset: 9 });
    expect(await redis.hgetall(k('rows'))).toEqual({ r1: '{"a":1}', r2: 'with "quotes", \\ and \n newline' });
    expect(await redis.zrange(k('idx'), 0, -1, 'WITHSCORES')).toEqual(['b', '2', 'c', '3']);
    expect(await redis.hget(k('stats'), 'n')).toBe('3');
    expect((await redis.smembers(k('set'))).sort()).toEqual(['x', 'y']);
    expect(await readAppliedOffset(redis, OFFSETS, 'topic-a')).toBe(9);
  });

  it('writes nothing and reports the stored offset when this topic moved', async () => {
    const res = await applyAtomically(redis, OFFSETS, 'topic-a', 4, 12, [['HSET', k('rows'), 'r3', 'late']]);
    expect(res).toEqual({ applied: false, conflict: false, offset: 9 });
    expect(await redis.hexists(k('rows'), 'r3')).toBe(0);
    expect(await readAppliedOffset(redis, OFFSETS, 'topic-a')).toBe(9);
  });

  it('writes nothing when another topic of the partition moved, and applies against its current offset', async () => {
    await applyAtomically(redis, OFFSETS, 'topic-b', -1, 3, [['HSET', k('oi'), 'c1', '10']]);
    const stale = await applyAtomically(redis, OFFSETS, 'topic-a', 9, 12, [['HSET', k('rows'), 'r3', 'x']], [['topic-b', -1]]);
    expect(stale).toEqual({ applied: false, conflict: true, offset: 9 });
    expect(await redis.hexists(k('rows'), 'r3')).toBe(0);
    const fresh = await applyAtomically(
      redis,
      OFFSETS,
      'topic-a',
      9,
      12,
      [['HSET', k('rows'), 'r3', 'x']],
      [
        ['topic-b', 3],
        ['topic-c', -1],
      ],
    );
    expect(fresh).toEqual({ applied: true, conflict: false, offset: 12 });
    expect(await readAppliedOffsets(redis, OFFSETS, ['topic-a', 'topic-b', 'topic-c'])).toEqual([
      ['topic-a', 12],
      ['topic-b', 3],
      ['topic-c', -1],
    ]);
  });

  it('applies a chunk of many keys and a call longer than one command sends', async () => {
    const members = Array.from({ length: 6_000 }, (_, i) => [String(i), `m${String(i).padStart(5, '0')}`]);
    const ops: RedisOp[] = [['ZADD', k('big'), ...members.flat()]];
    for (let i = 0; i < 300; i++) ops.push(['HSET', k(`row:${i}`), 'v', String(i)]);
    expect((await applyAtomically(redis, OFFSETS, 'topic-d', -1, 0, ops)).applied).toBe(true);
    expect(await redis.zcard(k('big'))).toBe(6_000);
    expect(await redis.zscore(k('big'), 'm05999')).toBe('5999');
    expect(await redis.hget(k('row:299'), 'v')).toBe('299');
  });

  it('writes nothing, and reports a conflict, when the offsets change between its compare and its writes (another apply landed then)', async () => {
    // Connections whose transaction is preceded, just before EXEC, by another client's apply of
    // topic-e to the same partition.
    const racing = withOverrides(redis, (prop) =>
      prop === 'duplicate'
        ? (...args: Parameters<IORedis['duplicate']>) => {
            const c = (redis as IORedis).duplicate(...args);
            return withOverrides(c, (p) =>
              p === 'multi'
                ? () => {
                    const tx = c.multi();
                    return withOverrides(tx, (q) =>
                      q === 'exec'
                        ? async () => {
                            expect((await applyAtomically(other, OFFSETS, 'topic-e', -1, 5, [['HSET', k('oi'), 'c9', '1']])).applied).toBe(true);
                            return tx.exec();
                          }
                        : undefined,
                    );
                  }
                : undefined,
            );
          }
        : undefined,
    );
    const res = await applyAtomically(racing, OFFSETS, 'topic-a', 12, 20, [['HSET', k('rows'), 'r4', 'raced']], [['topic-e', -1]]);
    expect(res).toEqual({ applied: false, conflict: true, offset: 12 });
    expect(await redis.hexists(k('rows'), 'r4')).toBe(0);
    expect(await readAppliedOffsets(redis, OFFSETS, ['topic-a', 'topic-e'])).toEqual([
      ['topic-a', 12],
      ['topic-e', 5],
    ]);
    // Computed again against the offsets now stored, it applies.
    expect(await applyAtomically(redis, OFFSETS, 'topic-a', 12, 20, [['HSET', k('rows'), 'r4', 'again']], [['topic-e', 5]])).toEqual({
      applied: true,
      conflict: false,
      offset: 20,
    });
    expect(await redis.hget(k('rows'), 'r4')).toBe('again');
  });
});
