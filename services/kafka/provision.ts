import type { Config } from '../config';
import type { Logger } from '../log';
import { createKafka, createRegistry } from './clients';
import { ensureSchemas, ensureTopics } from './topics';
import { sleep } from '../stack/process';

/** Creates the catalog's topics and registers its schemas; safe to run at every start. */
export async function provisionTopicsAndSchemas(config: Config, log?: Logger): Promise<void> {
  const admin = createKafka(config, 'mdq-provision', log).admin();
  await admin.connect();
  try {
    // Right after a create, a loaded broker can still answer the leader wait's metadata request
    // with UNKNOWN_TOPIC_OR_PARTITION, which kafkajs does not retry there. ensureTopics starts
    // from the topics that exist, so running it again is safe.
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureTopics(admin, config.topicPrefix);
        break;
      } catch (err) {
        if (attempt >= 5 || !(err as { retriable?: boolean }).retriable) throw err;
        log?.warn({ err, attempt }, 'topic provisioning hit a retriable error; trying again');
        await sleep(500 * attempt);
      }
    }
  } finally {
    await admin.disconnect();
  }
  await ensureSchemas(createRegistry(config), config.topicPrefix);
}
