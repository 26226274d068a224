import { Registry, collectDefaultMetrics, register } from 'prom-client';

let defaultsCollected = false;

/**
 * The metrics registry of this process (prom-client's global one), with Node's default process
 * metrics (CPU, resident memory, heap, event-loop lag, GC) registered once. What a process
 * exposes on /metrics. Tests that run several apps in one process give each its own Registry.
 */
export function processRegistry(): Registry {
  if (!defaultsCollected) {
    collectDefaultMetrics({ register });
    defaultsCollected = true;
  }
  return register;
}
