import { viewStamp } from '../tables/view-state';
import type { EndpointContext } from '../request/endpoint';

/**
 * The response-cache stamp of an answer computed from several views: each one's served version
 * and applied offsets (view-state.ts), or null while one of them is not built (never cached then).
 * The views are read at once, so the stamp costs one round trip however many views it covers.
 */
export async function viewsStamp(ctx: EndpointContext, views: readonly { view: string; partitions: number }[]): Promise<string | null> {
  const versions = await Promise.all(views.map(({ view }) => ctx.views.version(view)));
  if (versions.some((v) => v === null)) return null;
  const stamps = await Promise.all(views.map(({ view, partitions }, i) => viewStamp(ctx.redis, ctx.keyPrefix, view, versions[i]!, partitions)));
  return views.map(({ view }, i) => `${view}:${stamps[i]}`).join('/');
}
