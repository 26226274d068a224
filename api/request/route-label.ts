import type { Request } from 'express';

/**
 * A bounded name for what a request hit, for logs and metric labels: the route's path when it is
 * a known route (also for requests refused before routing, e.g. a 401 on an endpoint), the route
 * pattern for parameterised routes, and 'unmatched' for everything else, so a scan of random
 * paths cannot blow up the metrics' label sets.
 */
export function routeLabeler(knownPaths: Iterable<string>): (req: Request) => string {
  const known = new Set(knownPaths);
  return (req: Request) => {
    const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
    if (known.has(path)) return path;
    if (req.route?.path && typeof req.route.path === 'string') return `${req.baseUrl ?? ''}${req.route.path}`;
    return 'unmatched';
  };
}
