import { createRedis, redisReady } from '../../services/redis/client';
import { pointerKey } from '../../services/views/keys';
import { testConfig, waitFor } from '../support/env';
import { TestApi, startApi } from '../support/http';
import { captureLogs } from '../support/log-capture';
import { privateRedis } from '../support/private-redis';
import { TestPipeline, openPipeline, snapshotView, syntheticArticles } from '../support/pipeline';

/**
 * The views' Redis at its memory ceiling (the stack runs it with `maxmemory` and `noeviction`,
 * services/stack/redis-memory.ts): Redis refuses the projector's writes with OOM errors instead of
 * being killed by the kernel. The projector retries each refused chunk without losing its place,
 * the API keeps answering from what is there, and once memory is available again the view catches
 * up exactly once: the same keys and values as a projection of the same messages that never met
 * the ceiling. A private redis-server started the way the stack starts the views' Redis.
 */

const CEILING = '256mb';
let views: Awaited<ReturnType<typeof privateRedis>>;
let pipe: TestPipeline;
let api: TestApi;
const config = testConfig('views-full');

beforeAll(async () => {
  views = await privateRedis('views-redis', CEILING);
  await views.up();
  config.viewsRedisUrl = views.redis.url;
  pipe = await openPipeline(config);
  api = await startApi(config, { responseCacheBytes: 0 });
});

afterAll(async () => {
  await api?.close();
  await pipe?.close();
  await views?.remove();
});

async function countArticles(): Promise<number> {
  let n = 0;
  let searchAfter: unknown = null;
  for (let pages = 0; pages < 100; pages++) {
    const res = await api.post('/v1/news/tool/news-articles', { size: 100, searchAfter });
    expect(res.status).toBe(200);
    n += res.json.data.length;
    if (!res.json.nextSearchAfter) return n;
    searchAfter = res.json.nextSearchAfter;
  }
  throw new Error('cursor walk does not end');
}

it('runs with the stack’s ceiling and policy', async () => {
  const client = createRedis(views.redis.url);
  try {
    await redisReady(client);
    expect(await client.config('GET', 'maxmemory')).toEqual(['maxmemory', String(256 * 2 ** 20)]);
    expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
  } finally {
    client.disconnect();
  }
});

it('at the ceiling the projector waits and the API still answers; once memory is free the view catches up exactly once', async () => {
  const admin = createRedis(views.redis.url);
  await redisReady(admin);
  const articles = syntheticArticles(300);
  const logs = captureLogs('error');
  try {
    // The first half projected normally.
    await pipe.producer.send(pipe.newsSpec, articles.slice(0, 150) as never);
    const projector = pipe.newProjector(config.keyPrefix, undefined, logs.log);
    await projector.start();
    await pipe.waitCaughtUp(1);
    expect(await admin.get(pointerKey(config.keyPrefix, 'news'))).toBe('1');
    expect(await countArticles()).toBe(150);

    // The ceiling reached: every write is refused from now on.
    await admin.config('SET', 'maxmemory', '1');
    await pipe.producer.send(pipe.newsSpec, articles.slice(150) as never);
    await waitFor('the projector to meet the refusal', async () => logs.lines().some((l) => l.msg === 'could not apply a batch; retrying'), 30_000, 200);
    const before = await snapshotView(admin, config.keyPrefix, 'news', 1);
    await new Promise((r) => setTimeout(r, 2_000));
    // Nothing half-applied, nothing lost from what was there, and reads still answered.
    expect(await snapshotView(admin, config.keyPrefix, 'news', 1)).toEqual(before);
    expect(await countArticles()).toBe(150);
    const refused = logs.lines().filter((l) => l.msg === 'could not apply a batch; retrying');
    expect(refused.length).toBeGreaterThan(0);
    // The reason, compactly: not the chunk's queued commands with their arguments.
    expect(refused[0].err).toMatchObject({
      type: 'ReplyError',
      name: 'ReplyError',
      command: 'exec',
      reasons: [expect.stringMatching(/^OOM command not allowed/)],
    });
    expect(JSON.stringify(refused[0]).length).toBeLessThan(1_000);

    // Memory available again: the retries go through without restarting anything.
    await admin.config('SET', 'maxmemory', CEILING);
    await pipe.waitCaughtUp(1);
    expect(await countArticles()).toBe(300);

    // Exactly once: a projection of the same 300 messages that never met the ceiling.
    const reference = pipe.newProjector(`${config.keyPrefix}-ref`);
    await reference.start();
    await pipe.waitCaughtUp(1, `${config.keyPrefix}-ref`);
    // (Without the offsets bookkeeping, whose `seen` marks depend on how the fetches fell.)
    const content = async (prefix: string) =>
      Object.fromEntries(Object.entries(await snapshotView(admin, prefix, 'news', 1)).filter(([k]) => !k.endsWith(':offsets')));
    const got = await content(config.keyPrefix);
    expect(Object.keys(got).length).toBeGreaterThan(10);
    expect(got).toEqual(await content(`${config.keyPrefix}-ref`));
  } finally {
    await admin.config('SET', 'maxmemory', CEILING).catch(() => {});
    admin.disconnect();
  }
}, 120_000);
