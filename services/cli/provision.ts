import { ensureDevKey } from '../auth/dev-key';
import { loadConfig } from '../config';
import { provisionTopicsAndSchemas } from '../kafka/provision';
import { defaultDataDir } from '../stack/paths';

// Topics, schemas and the local API key against already running services (docker-compose's
// `setup` step); `npm start` does the same after provisioning the stack itself.
async function main(): Promise<void> {
  const say = (m: string) => console.log(`[provision] ${m}`);
  await provisionTopicsAndSchemas(loadConfig());
  say('topics created and schemas registered');
  await ensureDevKey(defaultDataDir(), process.env, say);
}

main().catch((err) => {
  console.error(`[provision] ${(err as Error).message}`);
  process.exit(1);
});
