import type { RedisClient as Redis } from '../../services/redis/client';
import { LRUCache } from 'lru-cache';
import { pointerKey } from '../../services/views/keys';

/** How long a served version or a view's list is reused before it is read again. */
export const VIEW_POINTER_TTL_MS = 1_000;

/**
 * What every request of a view needs before it reads rows, cached briefly per API process:
 *  - which version of each view to read (the pointer), so a busy API does not read it on every
 *    request; the projector waits longer than this TTL before dropping a superseded version;
 *  - per-view lists such as the session dates a view holds (read from every partition), which
 *    requests without a sessionDate need, and small derived values such as a reference table.
 * Concurrent requests that miss share one Redis read (lru-cache's fetch); a failed read is not
 * cached. A value is at most `ttlMs` old: a new session shows up within that time.
 */
export class ViewPointers {
  private readonly versions: LRUCache<string, { v: number | null }>;
  private readonly lists: LRUCache<string, string[], () => Promise<string[]>>;
  private readonly values: LRUCache<string, { v: unknown }, () => Promise<unknown>>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    ttlMs = VIEW_POINTER_TTL_MS,
  ) {
    this.versions = new LRUCache({
      max: 1_000,
      ttl: ttlMs,
      fetchMethod: async (view) => {
        const v = await this.redis.get(pointerKey(this.prefix, view));
        return { v: v === null ? null : Number(v) };
      },
    });
    this.lists = new LRUCache({ max: 1_000, ttl: ttlMs, fetchMethod: (_key, _stale, { context }) => context() });
    this.values = new LRUCache({ max: 100, ttl: ttlMs, fetchMethod: async (_key, _stale, { context }) => ({ v: await context() }) });
  }

  /** The served version, or null when the view has never been built. */
  async version(view: string): Promise<number | null> {
    return (await this.versions.fetch(view))!.v;
  }

  /** A list derived from a view version (e.g. its sessions), read with `read` at most once per TTL. */
  async list(key: string, read: () => Promise<string[]>): Promise<string[]> {
    return (await this.lists.fetch(key, { context: read }))!;
  }

  /**
   * A value derived from a view version (e.g. its reference records, parsed), read with `read` at
   * most once per TTL. The caller must not modify it: concurrent requests share it.
   */
  async value<T>(key: string, read: () => Promise<T>): Promise<T> {
    return (await this.values.fetch(key, { context: read }))!.v as T;
  }
}
