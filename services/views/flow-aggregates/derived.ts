import { PACKING, type Packing } from './keys';
import { packBlock, unpackBlock } from './packed';

/**
 * Levels of the cube a warm session does not store (warm.ts): each is a fold of a finer level
 * the session keeps, so it is rebuilt from that level when read (api/views/flow-aggregates/tiers.ts)
 * or moved back to the hot tier (projections/flow-aggregates/warm-tier.ts). Every print is added
 * to every level under fields that are projections of its contract field (cells.ts cellFields),
 * so summing the finer cells under the coarser field gives the coarser level's logical entries
 * exactly, and packing them gives the hot blocks' bytes (packed.ts packBlock is what updateBlock
 * converges to, in any arrival order).
 *
 * Sources: the contract minute cells `cm:<TICKER>` (`minute|C|side|exp|strike|money|exchange|sector|industry|flags`)
 * give the contract session cells, the coarse and ticker-net minute cells of their underlying and,
 * summed over the partition's underlyings, the market's coarse minute cells; the coarse session
 * cells `ks:<TICKER>` (`C|side|*|*|money|exchange|sector|industry|flags`, a few hundred per
 * underlying) give the ticker-net session cells and, over the partition, the market's coarse,
 * exchange and net session cells. The market's net minute cells (`nm`, net-flow of the whole
 * market by minute) stay stored: deriving them would decode every contract minute cell of the
 * partition for the most common whole-market question.
 */

/** The stored kind a derived kind is folded from, whether over the partition (every underlying) or one underlying. */
interface Derivation {
  source: 'cm' | 'ks';
  perTicker: boolean;
  packing: Packing;
  /** The derived field of a source field's tokens. */
  field(t: readonly string[]): string;
}

const DROPPED = '*';

export const DERIVATIONS: Readonly<Record<string, Derivation>> = {
  cs: { source: 'cm', perTicker: true, packing: PACKING.expiration, field: (t) => t.slice(1).join('|') },
  km: { source: 'cm', perTicker: true, packing: PACKING.minute, field: (t) => coarseMinute(t) },
  tm: { source: 'cm', perTicker: true, packing: PACKING.minute, field: (t) => `${t[0]}|${t[1]}|${t[2]}|${t[7]}|${t[8]}|${t[9]}` },
  mm: { source: 'cm', perTicker: false, packing: PACKING.minute, field: (t) => coarseMinute(t) },
  ts: { source: 'ks', perTicker: true, packing: PACKING.whole, field: (t) => `${t[0]}|${t[1]}|${t[6]}|${t[7]}|${t[8]}` },
  ms: { source: 'ks', perTicker: false, packing: PACKING.exchange, field: (t) => t.join('|') },
  xs: { source: 'ks', perTicker: false, packing: PACKING.whole, field: (t) => `${t[0]}|${t[1]}|${t[5]}|${t[8]}` },
  ns: { source: 'ks', perTicker: false, packing: PACKING.whole, field: (t) => `${t[0]}|${t[1]}` },
};

const coarseMinute = (t: readonly string[]): string => `${t[0]}|${t[1]}|${t[2]}|${DROPPED}|${DROPPED}|${t[5]}|${t[6]}|${t[7]}|${t[8]}|${t[9]}`;

/** Tokens a source field must have (cm: minute and nine dimensions; ks: nine). */
const TOKENS = { cm: 10, ks: 9 } as const;

const kindOf = (suffix: string): string => {
  const at = suffix.indexOf(':');
  return at < 0 ? suffix : suffix.slice(0, at);
};

/** The derivation of a key suffix (`cs:AAPL`, `mm`), or undefined for a stored key. */
export function derivationOf(suffix: string): Derivation | undefined {
  const d = DERIVATIONS[kindOf(suffix)];
  if (!d || d.perTicker !== suffix.includes(':')) return undefined;
  return d;
}

/**
 * The source suffixes of a derived suffix: `<source>:<TICKER>` for a per-underlying one, else
 * `<source>:` (every underlying's key of that kind: the caller lists them).
 */
export function sourceOf(suffix: string): { kind: 'cm' | 'ks'; suffix: string | null } | undefined {
  const d = derivationOf(suffix);
  if (!d) return undefined;
  return { kind: d.source, suffix: d.perTicker ? `${d.source}:${suffix.slice(suffix.indexOf(':') + 1)}` : null };
}

/**
 * The derived key `suffix` (block name -> packed block, as the hot tier stores it) from its
 * source hashes (block name -> packed block): one underlying's for a per-underlying key, every
 * underlying's of the partition for a partition key. Empty if the sources are.
 */
export function deriveKey(suffix: string, sources: Iterable<ReadonlyMap<string, Buffer> | Readonly<Record<string, Buffer>>>): Map<string, Buffer> {
  const d = derivationOf(suffix);
  if (!d) throw new Error(`${suffix} is not a derived key of the flow-aggregates cube`);
  const need = TOKENS[d.source];
  const sums = new Map<string, [number, number, number]>();
  for (const source of sources) {
    const blocks = source instanceof Map ? source : Object.entries(source);
    for (const [name, block] of blocks as Iterable<[string, Buffer]>) {
      unpackBlock(name, block, ',', (field, value) => {
        const t = field.split('|');
        const v = value.split(',');
        if (t.length !== need || v.length !== 3) throw new Error(`${d.source} entry ${field} -> ${value} is not a cell`);
        const f = d.field(t);
        const s = sums.get(f);
        if (s) {
          s[0] += Number(v[0]);
          s[1] += Number(v[1]);
          s[2] += Number(v[2]);
        } else sums.set(f, [Number(v[0]), Number(v[1]), Number(v[2])]);
      });
    }
  }
  const byBlock = new Map<string, Map<string, string>>();
  for (const [f, [c, n, v]] of sums) {
    const name = d.packing.blockOf(f);
    let entries = byBlock.get(name);
    if (!entries) byBlock.set(name, (entries = new Map()));
    entries.set(f, `${c},${n},${v}`);
  }
  const out = new Map<string, Buffer>();
  for (const [name, entries] of byBlock) out.set(name, packBlock(name, entries, d.packing));
  return out;
}

/** Kinds a warm session stores none of. */
export const DERIVED_KINDS: ReadonlySet<string> = new Set(Object.keys(DERIVATIONS));
