import os from 'os';
import path from 'path';
import { StackProfile, stackProfile } from './profile';

export const repoRoot = path.resolve(__dirname, '..', '..');

/** Downloaded jars live outside the repo so a fresh clone reuses them and git never sees them. */
export function cacheDir(): string {
  return process.env.MDQ_CACHE_DIR || path.join(os.homedir(), '.cache', 'mdq');
}

/** Data of the `npm start` stack (the cluster profile's in `.data/cluster/`); tests pass a temporary folder instead. */
export function defaultDataDir(profile: StackProfile = stackProfile()): string {
  return process.env.MDQ_DATA_DIR || path.join(repoRoot, '.data', ...(profile === 'cluster' ? ['cluster'] : []));
}
