import fs from 'fs';
import path from 'path';
import { readPid } from '../../services/stack/process';

/**
 * Pids of a stack's daemons, from the pid files in its component folders (`kafka-2`, `redis-4`):
 * for the fault suite, which kills them, and the benchmarks, which read their CPU.
 */
export function stackDaemonPids(dataDir: string, prefix: string): { component: string; pid: number }[] {
  return fs
    .readdirSync(dataDir)
    .filter((d) => d.startsWith(prefix) && fs.statSync(path.join(dataDir, d)).isDirectory())
    .flatMap((component) =>
      fs
        .readdirSync(path.join(dataDir, component))
        .filter((f) => f.endsWith('.pid'))
        .map((f) => ({ component, pid: readPid(path.join(dataDir, component, f)) })),
    )
    .filter((d): d is { component: string; pid: number } => d.pid !== null);
}
