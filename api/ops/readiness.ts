import type { RedisClient as Redis } from '../../services/redis/client';
import { pointerKey } from '../../services/views/keys';

export interface Readiness {
  ready: boolean;
  /** What is missing, for the 503 detail. */
  reason?: string;
  checks: { redis: 'ok' | 'unreachable'; views: Record<string, number | 'missing' | 'unknown'> };
}

/**
 * Readiness: every Redis the process uses answers and every view this process serves has a served version (its projector
 * has created it). Evaluated at most once per `cacheMs`, so probes or a flood of /readyz requests
 * cost Redis one round trip per second per process at most.
 */
export class ReadinessCheck {
  private last: { at: number; result: Promise<Readiness> } | null = null;

  constructor(
    /** every Redis connection the process uses (keys and quota, views): each must answer */
    private readonly stores: readonly Redis[],
    /** where the view pointers are */
    private readonly viewsRedis: Redis,
    private readonly keyPrefix: string,
    private readonly views: readonly string[],
    private readonly cacheMs = 1_000,
    private readonly timeoutMs = 1_000,
  ) {}

  check(): Promise<Readiness> {
    const now = Date.now();
    if (!this.last || now - this.last.at >= this.cacheMs) this.last = { at: now, result: this.evaluate() };
    return this.last.result;
  }

  private async evaluate(): Promise<Readiness> {
    const views: Readiness['checks']['views'] = Object.fromEntries(this.views.map((v) => [v, 'unknown' as const]));
    try {
      const pipe = this.viewsRedis.pipeline().ping();
      for (const v of this.views) pipe.get(pointerKey(this.keyPrefix, v));
      const others = this.stores.filter((r) => r !== this.viewsRedis).map((r) => r.ping());
      const [res] = await withTimeout(Promise.all([pipe.exec(), ...others]), this.timeoutMs);
      if (!res || res.some(([err]) => err)) throw new Error('redis error');
      const missing: string[] = [];
      this.views.forEach((v, i) => {
        const version = res[i + 1][1] as string | null;
        if (version === null) missing.push(v);
        views[v] = version === null ? 'missing' : Number(version);
      });
      if (missing.length) {
        return {
          ready: false,
          reason: `view${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not built yet (no served version; is the projector running?)`,
          checks: { redis: 'ok', views },
        };
      }
      return { ready: true, checks: { redis: 'ok', views } };
    } catch {
      return { ready: false, reason: 'Redis is unreachable', checks: { redis: 'unreachable', views } };
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
