import { viewStamp } from '../tables/view-state';
import type { EndpointContext } from '../request/endpoint';

/**
 * The response-cache stamp of an answer computed from several views: each one's served version
 * and applied offsets (view-state.ts), or null while one of them is not built (never cached then).
 */
export async function viewsStamp(ctx: EndpointContext, views: readonly { view: string; partitions: number }[]): Promise<string | null> {
  const parts: string[] = [];
  for (const { view, partitions } of views) {
    const version = await ctx.views.version(view);
    if (version === null) return null;
    parts.push(`${view}:${await viewStamp(ctx.redis, ctx.keyPrefix, view, version, partitions)}`);
  }
  return parts.join('/');
}
