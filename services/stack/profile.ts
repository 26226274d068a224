/**
 * Which local stack: `single` (one Kafka broker, the registry, two redis-servers; the default) or
 * `cluster` (three Kafka brokers, the registry, a Redis Cluster of three masters and three
 * replicas: components.ts). `npm run stack -- up --cluster` picks the cluster; so does
 * MDQ_STACK_PROFILE=cluster for `npm run stack`, `npm start` and the tests' private stack.
 */
export type StackProfile = 'single' | 'cluster';

export function stackProfile(env: NodeJS.ProcessEnv = process.env): StackProfile {
  const raw = env.MDQ_STACK_PROFILE?.trim() || 'single';
  if (raw !== 'single' && raw !== 'cluster') throw new Error(`MDQ_STACK_PROFILE must be single or cluster; got '${raw}'`);
  return raw;
}
