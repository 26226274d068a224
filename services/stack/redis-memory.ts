import os from 'os';

/**
 * The memory ceiling of the views' Redis when the stack runs it: `maxmemory` with the
 * `noeviction` policy. Without one, a views' Redis that outgrows the machine is killed by the
 * kernel (it happened here: a 22.6 GB Redis on 24 GB), losing everything since its last snapshot
 * and taking a minute and a half per 8 GB to load it again. At the ceiling Redis instead refuses
 * writes with an OOM error and keeps serving reads: the projectors retry each refused chunk
 * (compare-and-apply, so nothing is applied twice) and their lag grows, visible in /metrics,
 * until memory is added. Eviction is never acceptable: a dropped index member or row would be a
 * silently wrong answer.
 *
 * MDQ_VIEWS_REDIS_MAXMEMORY: unset → 75 % of the machine's memory (what Kafka, the registry and
 * the processes need fits in the rest on this 24 GB machine); `0` → no ceiling; otherwise bytes,
 * optionally with Redis's units kb, mb or gb (`18gb`).
 */
export const VIEWS_REDIS_MEMORY_SHARE = 0.75;

export function viewsRedisMaxmemory(env: NodeJS.ProcessEnv = process.env, totalBytes: number = os.totalmem()): string | null {
  const raw = env.MDQ_VIEWS_REDIS_MAXMEMORY?.trim();
  if (raw === undefined || raw === '') return `${Math.floor((totalBytes * VIEWS_REDIS_MEMORY_SHARE) / 2 ** 20)}mb`;
  const m = /^(\d+)\s*(kb|mb|gb)?$/i.exec(raw);
  if (!m) throw new Error(`MDQ_VIEWS_REDIS_MAXMEMORY must be 0, a number of bytes or a number with kb, mb or gb (e.g. 18gb); got '${raw}'`);
  if (Number(m[1]) === 0) return null;
  return `${m[1]}${(m[2] ?? '').toLowerCase()}`;
}

/** redis-server arguments for a ceiling (none without one). */
export function maxmemoryArgs(maxmemory: string | null): string[] {
  return maxmemory === null ? [] : ['--maxmemory', maxmemory, '--maxmemory-policy', 'noeviction'];
}

const UNIT_BYTES: Record<string, number> = { '': 1, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30 };

/** Each node's share of a ceiling spread evenly over `nodes` redis-servers (a Redis Cluster's masters and replicas), in mb. */
export function perNodeMaxmemory(maxmemory: string | null, nodes: number): string | null {
  if (maxmemory === null) return null;
  const m = /^(\d+)(kb|mb|gb)?$/.exec(maxmemory);
  if (!m) throw new Error(`not a Redis memory size: '${maxmemory}'`);
  return `${Math.max(1, Math.floor((Number(m[1]) * UNIT_BYTES[m[2] ?? '']) / nodes / 2 ** 20))}mb`;
}
