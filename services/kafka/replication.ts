/**
 * How many copies of each partition the topics keep, and how many must have a write before it is
 * acknowledged (`min.insync.replicas`; producers use acks=all). One definition for the brokers the
 * local stack configures and for the topics provisioning creates, so both follow the broker count:
 * one broker, one copy; three or more, three copies of which two must have each write, so one
 * broker can be lost (or restarted) with no write refused and none lost.
 *
 * MDQ_TOPIC_REPLICATION_FACTOR and MDQ_TOPIC_MIN_INSYNC_REPLICAS override the defaults.
 */

export interface Replication {
  factor: number;
  minInsync: number;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a whole number of at least 1; got '${raw}'`);
  return Number(raw);
}

export function topicReplication(brokers: number, env: NodeJS.ProcessEnv = process.env): Replication {
  if (!Number.isInteger(brokers) || brokers < 1) throw new Error(`a Kafka cluster has at least one broker; got ${brokers}`);
  const factor = positiveInt(env, 'MDQ_TOPIC_REPLICATION_FACTOR') ?? Math.min(3, brokers);
  if (factor > brokers) throw new Error(`MDQ_TOPIC_REPLICATION_FACTOR=${factor} needs as many brokers; the cluster has ${brokers}`);
  const minInsync = positiveInt(env, 'MDQ_TOPIC_MIN_INSYNC_REPLICAS') ?? (factor >= 3 ? factor - 1 : 1);
  if (minInsync > factor)
    throw new Error(`MDQ_TOPIC_MIN_INSYNC_REPLICAS=${minInsync} exceeds the replication factor ${factor}: no write could be acknowledged`);
  return { factor, minInsync };
}
