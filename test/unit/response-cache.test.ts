import { ResponseCache, responseKey } from '../../api/views/response-cache';

/** The response cache's own rules; its use by the tapes (stamps, headers) is tested end to end. */

const bytes = (s: string) => Buffer.from(s, 'utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ResponseCache', () => {
  it('computes a missing answer once, then serves it as a hit', async () => {
    const cache = new ResponseCache(1 << 20, 60_000);
    let calls = 0;
    const compute = async () => bytes(`answer ${++calls}`);
    expect(await cache.get('k', compute)).toEqual({ bytes: bytes('answer 1'), hit: false });
    expect(await cache.get('k', compute)).toEqual({ bytes: bytes('answer 1'), hit: true });
    expect(await cache.get('other', compute)).toEqual({ bytes: bytes('answer 2'), hit: false });
    expect(calls).toBe(2);
  });

  it('concurrent misses of one key share one computation', async () => {
    const cache = new ResponseCache(1 << 20, 60_000);
    let calls = 0;
    const compute = async () => {
      calls++;
      await sleep(20);
      return bytes('slow');
    };
    const got = await Promise.all(Array.from({ length: 8 }, () => cache.get('k', compute)));
    expect(calls).toBe(1);
    expect(got.map((g) => g.bytes.toString())).toEqual(Array(8).fill('slow'));
    expect(got.filter((g) => !g.hit)).toHaveLength(1);
  });

  it('a failed computation (a problem) is not cached: the next request computes again', async () => {
    const cache = new ResponseCache(1 << 20, 60_000);
    await expect(cache.get('k', async () => Promise.reject(new Error('bad filter')))).rejects.toThrow('bad filter');
    expect(await cache.get('k', async () => bytes('ok'))).toEqual({ bytes: bytes('ok'), hit: false });
  });

  it('an entry lives no longer than the TTL', async () => {
    const cache = new ResponseCache(1 << 20, 40);
    let calls = 0;
    const compute = async () => bytes(String(++calls));
    await cache.get('k', compute);
    expect((await cache.get('k', compute)).hit).toBe(true);
    await sleep(80);
    expect(await cache.get('k', compute)).toEqual({ bytes: bytes('2'), hit: false });
  });

  it('holds at most its size in bytes, dropping the least recently used', async () => {
    const cache = new ResponseCache(10_000, 60_000);
    const page = (n: number) => async () => bytes(String(n).repeat(3_000));
    for (let n = 0; n < 5; n++) await cache.get(`k${n}`, page(n));
    // 3 entries of ~3 KB fit: k0 and k1 were evicted, k4 is still there.
    expect((await cache.get('k4', page(4))).hit).toBe(true);
    expect((await cache.get('k0', page(0))).hit).toBe(false);
  });
});

describe('responseKey', () => {
  it('differs when the path, the stamp or the body differs', () => {
    const k = responseKey('/a', 's1', { size: 3 });
    expect(responseKey('/a', 's1', { size: 3 })).toBe(k);
    expect(new Set([k, responseKey('/b', 's1', { size: 3 }), responseKey('/a', 's2', { size: 3 }), responseKey('/a', 's1', { size: 4 })]).size).toBe(4);
  });
});

describe('responseKey of a body too deep to write', () => {
  it('is null (the request is answered without the cache) instead of a stack overflow', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(responseKey('/a', 's1', { filterExpression: { field: 'ID', operation: '=', value: deep } })).toBeNull();
  });
});
