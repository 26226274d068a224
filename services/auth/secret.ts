import crypto from 'crypto';
import fs from 'fs';
import path from 'path';

/**
 * The server secret keys are hashed with: API_KEY_SECRET when set (operations), otherwise a
 * random secret created once in the data folder with mode 0600 (local development).
 */
export function loadKeySecret(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.API_KEY_SECRET) return env.API_KEY_SECRET;
  const file = path.join(dataDir, 'api-key-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = crypto.randomBytes(32).toString('hex');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}
