import { withoutFloatNoise } from '../../api/request/float-noise';

/**
 * A value as the API writes it: JSON, with float noise removed (api/request/float-noise.ts).
 * Oracles that model the wire form pass their expected rows and answers through it.
 */
export function asServed<T>(value: T): T {
  return JSON.parse(withoutFloatNoise(JSON.stringify(value))) as T;
}
