import fs from 'fs';
import path from 'path';
import { parseArgs } from 'util';
import { ApiKeyRecord, ApiKeyStore } from '../auth/api-keys';
import { loadKeySecret } from '../auth/secret';
import { createRedis, redisReady } from '../redis/client';
import { withConnectionFile } from '../stack/connection-file';
import { defaultDataDir } from '../stack/paths';
import { DEV_PORTS } from '../stack/stack';

/**
 * `npm run keys -- create --workspace W --user U --label L [--json]`  a new key, printed once
 * `npm run keys -- list [--workspace W] [--json]`                     every key's record, never a key
 * `npm run keys -- revoke <id>`                                       refuse the key from now on
 *
 * Talks to REDIS_URL, or to the `npm start` stack's Redis when it is unset, with the same key
 * prefix (MDQ_KEY_PREFIX) and secret (API_KEY_SECRET, or the one in the data folder) as the API.
 */

const USAGE = `usage:
  npm run keys -- create --workspace <id> --user <id> --label <text> [--json]
  npm run keys -- list [--workspace <id>] [--json]
  npm run keys -- revoke <key id>`;

/** Ids end up in Redis keys and log lines: keep them to a safe alphabet. */
const ID = /^[A-Za-z0-9._@:-]{1,64}$/;

class UsageError extends Error {}

function localRedisUrl(dataDir: string, env: NodeJS.ProcessEnv): string {
  if (env.REDIS_URL) return env.REDIS_URL;
  // The port `npm start` provisioned its Redis on (stack.json), else the development default.
  try {
    const ports = JSON.parse(fs.readFileSync(path.join(dataDir, 'stack.json'), 'utf8')).ports as { redis: number };
    return `redis://127.0.0.1:${ports.redis}`;
  } catch {
    return `redis://127.0.0.1:${DEV_PORTS.redis}`;
  }
}

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

function table(records: ApiKeyRecord[]): string {
  const rows = [['id', 'workspace', 'user', 'label', 'created', 'last used', 'status']];
  for (const r of records) rows.push([r.id, r.workspace, r.user, r.label, iso(r.createdTime), iso(r.lastUsedTime), r.revoked ? 'revoked' : 'active']);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function run(store: ApiKeyStore, argv: string[], out: (s: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { workspace: { type: 'string' }, user: { type: 'string' }, label: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const [cmd, ...rest] = positionals;
  switch (cmd) {
    case 'create': {
      const { workspace, user, label } = values;
      if (!workspace || !user || !label) throw new UsageError('create needs --workspace, --user and --label');
      if (!ID.test(workspace)) throw new UsageError(`--workspace must be 1-64 characters of A-Z a-z 0-9 . _ @ : -, got '${workspace}'`);
      if (!ID.test(user)) throw new UsageError(`--user must be 1-64 characters of A-Z a-z 0-9 . _ @ : -, got '${user}'`);
      if (label.length > 100) throw new UsageError('--label must be at most 100 characters');
      const { key, record } = await store.create({ workspace, user, label });
      if (values.json) out(JSON.stringify({ key, ...record }));
      else
        out(
          `created ${record.id} for user ${user} in workspace ${workspace} (${label})\n` +
            `the key is shown this once and cannot be recovered; store it now:\n\n    ${key}\n`,
        );
      return 0;
    }
    case 'list': {
      let records = await store.list();
      if (values.workspace) records = records.filter((r) => r.workspace === values.workspace);
      out(values.json ? JSON.stringify(records) : records.length ? table(records) : 'no keys');
      return 0;
    }
    case 'revoke': {
      const id = rest[0];
      if (!id || rest.length > 1) throw new UsageError('revoke needs exactly one key id (see `npm run keys -- list`)');
      const rec = await store.get(id);
      if (!rec) {
        out(`no key with id ${id}`);
        return 1;
      }
      if (rec.revoked) {
        out(`${id} was already revoked`);
        return 0;
      }
      await store.revoke(id);
      out(`revoked ${id} (user ${rec.user}, workspace ${rec.workspace}, ${rec.label}); requests with it get 401 from every API process within a second`);
      return 0;
    }
    default:
      throw new UsageError(cmd ? `unknown command '${cmd}'` : 'no command given');
  }
}

async function main(): Promise<void> {
  const dataDir = defaultDataDir();
  // The running `npm start` stack's connection and key prefix, unless the environment names one.
  const env = withConnectionFile(process.env, dataDir);
  const url = localRedisUrl(dataDir, env);
  const redis = createRedis(url, undefined, { failFast: true }); // a failure is reported below, once
  try {
    try {
      await redisReady(redis, 5_000);
    } catch (err) {
      throw new Error(`cannot reach Redis at ${url} (${(err as Error).message}); start the stack (npm start, or npm run stack -- up) or set REDIS_URL`, {
        cause: err,
      });
    }
    const store = new ApiKeyStore(redis, env.MDQ_KEY_PREFIX ?? 'mdq', loadKeySecret(dataDir));
    process.exitCode = await run(store, process.argv.slice(2), (s) => console.log(s));
  } finally {
    redis.disconnect();
  }
}

main().catch((err) => {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`[keys] ${(err as Error).message}\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(`[keys] ${(err as Error).message}`);
    process.exitCode = 1;
  }
});
