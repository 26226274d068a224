import type Redis from 'ioredis';
import { pointerKey } from '../../services/views/keys';

/**
 * Which version of each view to read. Cached briefly so a busy API does not read the pointer on
 * every request; the projector waits longer than this TTL before dropping a superseded version.
 */
export class ViewPointers {
  private readonly cache = new Map<string, { version: number | null; at: number }>();
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs = 1_000,
  ) {}

  /** The served version, or null when the view has never been built. */
  async version(view: string): Promise<number | null> {
    const hit = this.cache.get(view);
    const now = Date.now();
    if (hit && now - hit.at < this.ttlMs) return hit.version;
    const v = await this.redis.get(pointerKey(this.prefix, view));
    const version = v === null ? null : Number(v);
    this.cache.set(view, { version, at: now });
    return version;
  }
}
