import type { Config } from '../config';
import type { Logger } from '../log';
import { createKafka, createRegistry } from './clients';
import { ensureSchemas, ensureTopics } from './topics';

/** Creates the catalog's topics and registers its schemas; safe to run at every start. */
export async function provisionTopicsAndSchemas(config: Config, log?: Logger): Promise<void> {
  const admin = createKafka(config, 'mdq-provision', log).admin();
  await admin.connect();
  try {
    await ensureTopics(admin, config.topicPrefix);
  } finally {
    await admin.disconnect();
  }
  await ensureSchemas(createRegistry(config), config.topicPrefix);
}
