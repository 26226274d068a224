import fs from 'fs';
import type { RedisClient as Redis } from '../../services/redis/client';

/**
 * CPU accounting for the benchmarks: of a process (Linux /proc) and of Redis (INFO), so that a
 * result says where its time went.
 */

/** CPU seconds (user + system) a running process has used; null when /proc cannot tell (not Linux, gone). */
export function processCpuSeconds(pid: number | undefined): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "pid (comm) "
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return null;
  }
}

/** Redis's CPU seconds so far (main thread, all its threads, forked children) and AOF rewrites started. */
export async function redisCpu(redis: Redis): Promise<{ main: number; all: number; children: number; aofRewrites: number; snapshots: number }> {
  const info = await redis.info();
  const num = (field: string) => Number(new RegExp(`^${field}:([0-9.]+)`, 'm').exec(info)?.[1] ?? 0);
  return {
    main: num('used_cpu_sys_main_thread') + num('used_cpu_user_main_thread'),
    all: num('used_cpu_sys') + num('used_cpu_user'),
    children: num('used_cpu_sys_children') + num('used_cpu_user_children'),
    aofRewrites: num('aof_rewrites'),
    snapshots: num('rdb_saves'),
  };
}
