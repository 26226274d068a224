import crypto from 'crypto';
import type { RedisClient as Redis } from '../redis/client';
import { LRUCache } from 'lru-cache';

/**
 * API keys: 35 characters, the vendor prefix `mdq_` and 31 base62 characters from a
 * cryptographic source. Only an HMAC-SHA-256 of the key (with a server secret) is stored, so a
 * Redis dump reveals no usable key. The full key is returned once, at creation.
 *
 *   <prefix>:apikeys:byhash   hash  hmac(hex) -> key id
 *   <prefix>:apikey:<id>      hash  workspace, user, label, createdTime, lastUsedTime, revoked, hash
 *   <prefix>:apikeys:revoked  channel: revoke() publishes the key id (see watchRevocations)
 */

export const KEY_PREFIX = 'mdq_';
/** How stale a key's stored lastUsedTime may get before a request refreshes it. */
export const LAST_USED_RESOLUTION_MS = 60_000;
export const KEY_LENGTH = 35;
/**
 * How long an API process trusts a key it verified without reading its record again. Revocations
 * arrive at once over the channel; this bounds only changes made behind the store's back (a
 * record deleted or edited in Redis by hand).
 */
export const VERIFIED_KEY_TTL_MS = 60_000;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[A-Za-z0-9]{${KEY_LENGTH - KEY_PREFIX.length}}$`);

export interface ApiKeyRecord {
  id: string;
  workspace: string;
  user: string;
  label: string;
  createdTime: number;
  lastUsedTime: number | null;
  revoked: boolean;
}

function randomBase62(n: number): string {
  // Rejection sampling keeps every character uniformly likely (256 is not a multiple of 62).
  let out = '';
  while (out.length < n) {
    for (const b of crypto.randomBytes(n * 2)) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}

export function isWellFormedKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

export class ApiKeyStore {
  /**
   * Key digest -> key id, for keys seen valid before. The pair is fixed at creation and never
   * changes, so remembering it drops one of verify's two Redis round trips when the verified
   * keys are not cached (watchRevocations). Unknown digests are not remembered: a key created a
   * moment later must work at once.
   */
  private readonly idByHash = new LRUCache<string, string>({ max: 10_000 });
  /**
   * Keys verified while the revocation channel is watched (watchRevocations), by digest; null when
   * not watched or while the subscription is down.
   */
  private verified: LRUCache<string, ApiKeyRecord> | null = null;
  /** Revocations heard; a record read while one arrived is not cached (it may predate it). */
  private revocations = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly secret: string,
  ) {
    if (secret.length < 16) throw new Error('the API key secret must be at least 16 characters');
  }

  private hash(key: string): string {
    return crypto.createHmac('sha256', this.secret).update(key).digest('hex');
  }

  private recordKey(id: string): string {
    return `${this.prefix}:apikey:${id}`;
  }

  private get indexKey(): string {
    return `${this.prefix}:apikeys:byhash`;
  }

  async create(owner: { workspace: string; user: string; label: string }): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = KEY_PREFIX + randomBase62(KEY_LENGTH - KEY_PREFIX.length);
    const id = `key_${randomBase62(12)}`;
    const hash = this.hash(key);
    const record: ApiKeyRecord = { id, ...owner, createdTime: Date.now(), lastUsedTime: null, revoked: false };
    // The record, then its index entry: two slots on a Redis Cluster, so not one transaction. A
    // failure between them leaves a record no key reaches, and the key is never handed out.
    await this.redis.hset(this.recordKey(id), {
      workspace: owner.workspace,
      user: owner.user,
      label: owner.label,
      createdTime: String(record.createdTime),
      revoked: '0',
      hash,
    });
    await this.redis.hset(this.indexKey, hash, id);
    return { key, record };
  }

  private async read(id: string): Promise<(ApiKeyRecord & { hash: string }) | null> {
    const h = await this.redis.hgetall(this.recordKey(id));
    if (!h.hash) return null;
    return {
      id,
      workspace: h.workspace,
      user: h.user,
      label: h.label,
      createdTime: Number(h.createdTime),
      lastUsedTime: h.lastUsedTime ? Number(h.lastUsedTime) : null,
      revoked: h.revoked === '1',
      hash: h.hash,
    };
  }

  /** The channel revoke() announces a key id on. */
  get revocationChannel(): string {
    return `${this.prefix}:apikeys:revoked`;
  }

  /**
   * Keeps verified keys in this process, so a request with a known key costs no Redis round trip,
   * and drops a key as soon as revoke() announces it on `subscriber` (a connection of its own:
   * a subscribed connection can do nothing else). The cache is trusted only while the
   * subscription is live: while it is down every verify reads Redis, and it starts empty again
   * when the subscription is back, since announcements may have been missed in between.
   * `live` resolves when the cache is first in use.
   */
  watchRevocations(subscriber: Redis, ttlMs = VERIFIED_KEY_TTL_MS): { live: Promise<void>; stop(): void } {
    const cache = new LRUCache<string, ApiKeyRecord>({ max: 10_000, ttl: ttlMs });
    const channel = this.revocationChannel;
    let wentLive: () => void = () => undefined;
    const live = new Promise<void>((resolve) => (wentLive = resolve));
    const subscribe = () => {
      cache.clear();
      subscriber.subscribe(channel).then(
        () => {
          this.verified = cache;
          wentLive();
        },
        () => undefined, // the connection dropped again; 'ready' calls this once it is back
      );
    };
    const down = () => {
      this.verified = null;
      cache.clear();
    };
    const onMessage = (ch: string, id: string) => {
      if (ch === channel) this.forget(id);
    };
    subscriber.on('ready', subscribe);
    subscriber.on('close', down);
    subscriber.on('message', onMessage);
    if (subscriber.status === 'ready') subscribe();
    return {
      live,
      stop: () => {
        down();
        subscriber.off('ready', subscribe);
        subscriber.off('close', down);
        subscriber.off('message', onMessage);
        void subscriber.unsubscribe(channel).catch(() => undefined);
      },
    };
  }

  /** Drops a revoked key from this process's cache. */
  private forget(id: string): void {
    this.revocations++;
    const cache = this.verified;
    if (cache) for (const [hash, rec] of cache.entries()) if (rec.id === id) cache.delete(hash);
  }

  /** The active key's record, or null for a malformed, unknown or revoked key. */
  async verify(key: string): Promise<ApiKeyRecord | null> {
    if (!isWellFormedKey(key)) return null;
    const hash = this.hash(key);
    const verified = this.verified;
    const known = verified?.get(hash);
    if (known) return this.used(known);
    const heard = this.revocations;
    const remembered = this.idByHash.get(hash);
    const id = remembered ?? (await this.redis.hget(this.indexKey, hash));
    if (!id) return null;
    const rec = await this.read(id);
    // Constant-time comparison of the stored and computed digests.
    if (!rec || !crypto.timingSafeEqual(Buffer.from(rec.hash, 'hex'), Buffer.from(hash, 'hex'))) {
      this.idByHash.delete(hash);
      return null;
    }
    if (!remembered) this.idByHash.set(hash, id);
    if (rec.revoked) return null;
    const { hash: _h, ...pub } = rec;
    // Only a record read while the subscription was live and no revocation arrived may be kept:
    // any other could predate a revocation this process did not apply to it.
    if (verified && this.verified === verified && this.revocations === heard) verified.set(hash, pub);
    return this.used(pub);
  }

  /**
   * lastUsedTime is kept to the minute: a busy key is not rewritten on every request. The write
   * is not awaited; the record returned (and cached) carries the time written.
   */
  private used(rec: ApiKeyRecord): ApiKeyRecord {
    const now = Date.now();
    if (rec.lastUsedTime === null || now - rec.lastUsedTime >= LAST_USED_RESOLUTION_MS) {
      rec.lastUsedTime = now;
      void this.redis.hset(this.recordKey(rec.id), 'lastUsedTime', String(now)).catch(() => {});
    }
    return rec;
  }

  /** A key's record by id (never the key itself), or null when no such key exists. */
  async get(id: string): Promise<ApiKeyRecord | null> {
    const rec = await this.read(id);
    if (!rec) return null;
    const { hash: _h, ...pub } = rec;
    return pub;
  }

  async revoke(id: string): Promise<boolean> {
    const rec = await this.read(id);
    if (!rec) return false;
    await this.redis.hset(this.recordKey(id), 'revoked', '1');
    // This process refuses the key from its next request, every other watching one when the
    // announcement reaches it (within milliseconds).
    this.forget(id);
    await this.redis.publish(this.revocationChannel, id);
    return true;
  }

  async list(): Promise<ApiKeyRecord[]> {
    const ids = Object.values(await this.redis.hgetall(this.indexKey));
    const out: ApiKeyRecord[] = [];
    for (const id of ids.sort()) {
      const rec = await this.read(id);
      if (rec) {
        const { hash: _h, ...pub } = rec;
        out.push(pub);
      }
    }
    return out;
  }
}
