/**
 * A Redis Cluster is named by its seed nodes in one URL: `redis+cluster://host:port,host:port`
 * (optionally `redis+cluster://:password@host:port,...`). Any node of the cluster will do as a
 * seed; the client learns the rest. Every variable that takes a Redis URL (REDIS_URL,
 * VIEWS_REDIS_URL) takes this form too.
 */

export interface ClusterSeeds {
  nodes: { host: string; port: number }[];
  password?: string;
}

const SCHEME = 'redis+cluster://';

/** The seeds of a cluster URL, or null when the URL names a single Redis (`redis://…`). */
export function parseRedisClusterUrl(url: string): ClusterSeeds | null {
  if (!url.startsWith(SCHEME)) return null;
  let rest = url.slice(SCHEME.length).replace(/\/.*$/, '');
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const auth = rest.slice(0, at);
    password = decodeURIComponent(auth.includes(':') ? auth.slice(auth.indexOf(':') + 1) : auth) || undefined;
    rest = rest.slice(at + 1);
  }
  const nodes = rest.split(',').map((part) => {
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(part.trim());
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65_535) throw new Error(`invalid Redis Cluster seed '${part}' in ${SCHEME}… (host:port expected)`);
    return { host: m[1]!, port: Number(m[2]) };
  });
  return { nodes, ...(password ? { password } : {}) };
}

export function isClusterUrl(url: string): boolean {
  return url.startsWith(SCHEME);
}
