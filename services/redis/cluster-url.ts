/**
 * The one way to name a Redis Cluster in REDIS_URL or VIEWS_REDIS_URL:
 * `redis+cluster://host:port,host:port,...`, the seed nodes a cluster client starts from (any
 * reachable one is enough; the client learns the rest from CLUSTER SLOTS). A plain `redis://` URL
 * names a single server, as before. IPv6 hosts are written in brackets (`[::1]:7000`).
 */

export const REDIS_CLUSTER_SCHEME = 'redis+cluster:';

export interface RedisNodeAddress {
  host: string;
  port: number;
}

/** The seed nodes of a `redis+cluster://` URL; null for any other URL (a single server). Throws on a malformed cluster URL. */
export function parseRedisClusterUrl(url: string): RedisNodeAddress[] | null {
  const trimmed = url.trim();
  if (!trimmed.toLowerCase().startsWith(`${REDIS_CLUSTER_SCHEME}//`)) return null;
  const rest = trimmed.slice(REDIS_CLUSTER_SCHEME.length + 2).replace(/\/$/, '');
  if (rest === '') throw new Error(`${url}: a redis+cluster URL names at least one node (redis+cluster://host:port,host:port)`);
  return rest.split(',').map((part) => {
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:/@[\]]+)):(\d{1,5})$/.exec(part.trim());
    const port = m ? Number(m[3]) : NaN;
    if (!m || port < 1 || port > 65535) throw new Error(`${url}: '${part}' is not host:port (redis+cluster://host:port,host:port)`);
    return { host: m[1] ?? m[2], port };
  });
}

/** The URL of a cluster from its seed nodes (the inverse of parseRedisClusterUrl). */
export function formatRedisClusterUrl(nodes: readonly RedisNodeAddress[]): string {
  if (nodes.length === 0) throw new Error('a Redis Cluster URL needs at least one node');
  return `${REDIS_CLUSTER_SCHEME}//${nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',')}`;
}
