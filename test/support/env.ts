import crypto from 'crypto';
import type { Config } from '../../services/config';
import { loadConfig } from '../../services/config';
import { phase } from './phase-profile';

/**
 * A configuration for one test file: the shared test stack, with a topic and key prefix of its
 * own so that test files running in parallel never see each other's topics, groups or keys.
 */
export function testConfig(name: string): Config {
  const ns = `t${crypto.randomBytes(3).toString('hex')}-${name}`;
  return { ...loadConfig(process.env), topicPrefix: `${ns}.`, keyPrefix: ns, logLevel: 'silent' };
}

export function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  return phase('wait', () => poll(what, fn, timeoutMs, everyMs));
}

async function poll<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
