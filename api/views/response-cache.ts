import { LRUCache } from 'lru-cache';

/** Per API process (MDQ_API_CACHE_MB): ~1,000 pages of 50 consolidated rows. */
export const DEFAULT_RESPONSE_CACHE_MB = 64;

/**
 * Serialized answers, per API process, for endpoints that can name the state of the data they
 * read (EndpointDef.cacheStamp: for the order-flow tapes, the view version and every partition's
 * applied offsets, which move in the same atomic transaction as the rows). An answer is served again
 * only to an identical request (path and validated body) while the stamp read at the start of that
 * request is the one it was computed under, and for at most `ttlMs`: the stamp cannot see the
 * per-process caches a handler uses besides the view (the served version and the session list,
 * ViewPointers, up to their own TTL old), so an entry never outlives them.
 *
 * Why: many clients ask the same question (the first page of the flow, a ticker's flow) and a
 * past session never changes; an answer costs the API ~1.5 ms of CPU, a hit a fraction of that.
 * Concurrent misses of one key share one computation (lru-cache's fetch); a failed one (a problem)
 * is not cached. Bounded by bytes, least recently used first out.
 */
export class ResponseCache {
  private readonly entries: LRUCache<string, Buffer, () => Promise<Buffer>>;

  constructor(maxBytes: number, ttlMs: number) {
    this.entries = new LRUCache<string, Buffer, () => Promise<Buffer>>({
      maxSize: maxBytes,
      sizeCalculation: (bytes, key) => bytes.length + key.length * 2 + 64,
      ttl: ttlMs,
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  /** The cached bytes for `key`, or those `compute` gives (stored); `hit` says which. */
  async get(key: string, compute: () => Promise<Buffer>): Promise<{ bytes: Buffer; hit: boolean }> {
    const status: LRUCache.Status<string, Buffer> = {};
    const bytes = await this.entries.fetch(key, { context: compute, status });
    return { bytes: bytes!, hit: status.fetch === 'hit' || status.fetch === 'inflight' };
  }
}

/**
 * The cache key of a request: its path, the stamp of the data, and its validated body; null when
 * the body cannot be written as JSON (nested deeper than JSON.stringify's stack allows), which is
 * then answered without the cache (and refused by the endpoint's parsers).
 */
export function responseKey(path: string, stamp: string, body: unknown): string | null {
  try {
    return `${path}\n${stamp}\n${JSON.stringify(body)}`;
  } catch {
    return null;
  }
}
