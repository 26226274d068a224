import os from 'os';
import path from 'path';

export const repoRoot = path.resolve(__dirname, '..', '..');

/** Downloaded jars live outside the repo so a fresh clone reuses them and git never sees them. */
export function cacheDir(): string {
  return process.env.MDQ_CACHE_DIR || path.join(os.homedir(), '.cache', 'mdq');
}

/** Data of the `npm start` stack; tests pass a temporary folder instead. */
export function defaultDataDir(): string {
  return process.env.MDQ_DATA_DIR || path.join(repoRoot, '.data');
}
