import type { RedisClient as Redis } from '../../services/redis/client';
import { ViewPointers } from '../../api/views/pointer';

describe('ViewPointers.value (a derived value cached for the pointer TTL)', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('concurrent and repeated requests within the TTL share one read; the next read comes after the TTL', async () => {
    const views = new ViewPointers({} as Redis, 'x', 100);
    let reads = 0;
    const read = async () => {
      reads++;
      await sleep(5);
      return new Map([['AAPL', reads]]);
    };
    const [a, b] = await Promise.all([views.value('k', read), views.value('k', read)]);
    expect(a).toBe(b);
    expect(await views.value('k', read)).toBe(a);
    expect(reads).toBe(1);
    // Another key is another value.
    expect((await views.value('other', read)).get('AAPL')).toBe(2);
    await sleep(150);
    expect((await views.value('k', read)).get('AAPL')).toBe(3);
  });

  it('a failed read is not cached', async () => {
    const views = new ViewPointers({} as Redis, 'x', 10_000);
    await expect(views.value('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await views.value('k', async () => 7)).toBe(7);
  });
});
