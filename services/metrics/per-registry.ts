import { Registry, register } from 'prom-client';

/**
 * One metrics object per prom-client registry: prom-client refuses a second metric of the same
 * name in a registry, and every runner or thread of a process must report into the same gauges.
 */
export function onePerRegistry<T>(make: (registry: Registry) => T): (registry?: Registry) => T {
  const byRegistry = new WeakMap<Registry, T>();
  return (registry = register) => {
    let m = byRegistry.get(registry);
    if (m === undefined) byRegistry.set(registry, (m = make(registry)));
    return m;
  };
}
