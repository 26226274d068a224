import type { Router } from 'express';
import { methodNotAllowed } from './problem';

/**
 * Answers every other method on a path with a 405 problem and the Allow header. Mounted after the
 * path's real handlers. OPTIONS is not special-cased: the API has no CORS pre-flight to serve.
 */
export function allowOnly(router: Pick<Router, 'all'>, path: string, methods: readonly string[], fullPath = path): void {
  // Named, so route listings (the OpenAPI route-coverage test) can tell the guard from the handlers.
  router.all(path, function methodGuard() {
    throw methodNotAllowed(fullPath, methods);
  });
}
