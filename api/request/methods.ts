import type { Router } from 'express';
import { methodNotAllowed } from './problem';

/**
 * A handler answering any method with a 405 problem and the Allow header, for a route after its
 * real handlers. OPTIONS is not special-cased: the API has no CORS pre-flight to serve.
 */
export function methodGuardFor(fullPath: string, methods: readonly string[]) {
  // Named, so route listings (the OpenAPI route-coverage test) can tell the guard from the handlers.
  return function methodGuard(): never {
    throw methodNotAllowed(fullPath, methods);
  };
}

/** Answers every other method on a path with a 405 problem; mounted after the path's real handlers. */
export function allowOnly(router: Pick<Router, 'all'>, path: string, methods: readonly string[], fullPath = path): void {
  router.all(path, methodGuardFor(fullPath, methods));
}
