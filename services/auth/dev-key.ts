import fs from 'fs';
import path from 'path';
import { loadConfig } from '../config';
import { createRedis } from '../redis/client';
import { ApiKeyStore } from './api-keys';
import { loadKeySecret } from './secret';

/**
 * The local development key: created once through the key store, printed once, and kept in
 * <dataDir>/dev-api-key with mode 0600. Later starts reuse it while it is still valid.
 */
export async function ensureDevKey(dataDir: string, env: NodeJS.ProcessEnv, say: (m: string) => void): Promise<void> {
  const config = loadConfig(env);
  const redis = createRedis(config.redisUrl);
  try {
    const store = new ApiKeyStore(redis, config.keyPrefix, loadKeySecret(dataDir, env));
    const file = path.join(dataDir, 'dev-api-key');
    const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
    if (existing && (await store.verify(existing))) {
      say(`local API key: in ${path.relative(process.cwd(), file)} (printed when it was created)`);
      return;
    }
    const { key } = await store.create({ workspace: 'local', user: 'developer', label: 'npm start' });
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    say(`local API key (shown once, also saved to ${path.relative(process.cwd(), file)}):\n\n    ${key}\n`);
  } finally {
    redis.disconnect();
  }
}
