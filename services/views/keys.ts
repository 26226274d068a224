/**
 * Redis key layout of every materialized view, shared by projectors (writers) and the API
 * (reader). A view family has numbered versions; a pointer names the version the API serves.
 *
 *   <prefix>:<view>:current                       -> the served version number
 *   <prefix>:<view>:v<N>:{pNN}:<suffix>           -> data of partition NN in version N
 *   <prefix>:<view>:v<N>:{pNN}:offsets            -> hash topic -> last applied Kafka offset
 *   <prefix>:<view>:v<N>:format                   -> the storage layout version N was written under
 *
 * The `{pNN}` hash tag puts every key of one partition in one Redis Cluster slot, so a batch's
 * writes and its offset commit are one atomic transaction even on a cluster.
 */

export function partitionTag(partition: number): string {
  return `{p${String(partition).padStart(2, '0')}}`;
}

export function pointerKey(prefix: string, view: string): string {
  return `${prefix}:${view}:current`;
}

/** The storage-layout format a view version was written under (Projection.format). */
export function formatKey(prefix: string, view: string, version: number): string {
  return `${prefix}:${view}:v${version}:format`;
}

export function versionPattern(prefix: string, view: string, version: number): string {
  return `${prefix}:${view}:v${version}:*`;
}

/** Keys of one partition of one version of a view. */
export class PartitionKeys {
  readonly base: string;
  constructor(
    readonly prefix: string,
    readonly view: string,
    readonly version: number,
    readonly partition: number,
  ) {
    this.base = `${prefix}:${view}:v${version}:${partitionTag(partition)}`;
  }

  key(...parts: string[]): string {
    return parts.length ? `${this.base}:${parts.join(':')}` : this.base;
  }

  get offsets(): string {
    return this.key('offsets');
  }
}
