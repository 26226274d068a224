import { scanKeys, type RedisClient } from '../../services/redis/client';

/**
 * Every key matching `pattern` on every data node. KEYS on a cluster client asks one node only,
 * so a test using it there sees a third of the keys, or none.
 */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  await scanKeys(redis, pattern, async (batch) => void keys.push(...batch));
  return keys;
}
