import { PACKING, type Packing } from './keys';
import { fieldOfKey, forEachSums, packBlock } from './packed';

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
 * underlying), summed over the partition, the market's coarse and exchange session cells. Kept
 * although derivable, for a fraction of a byte a print: the market's net minute and session cells
 * (`nm`, `ns`) and the ticker-net session cells (`ts`), which answer the commonest questions
 * (net-flow of the whole market, gainers-losers) and would otherwise fold every contract minute
 * or coarse session cell of the partition on a first read.
 */

/** The stored kind a derived kind is folded from, whether over the partition (every underlying) or one underlying. */
interface Derivation {
  source: 'cm' | 'ks';
  perTicker: boolean;
  packing: Packing;
  /** Whether the derived field starts with the source entry's minute (its block's name in `cm`). */
  minute: boolean;
  /** The derived field (after the minute) of a source field's nine dimensions (cells.ts cellFields). */
  field(t: readonly string[]): string;
}

const DROPPED = '*';
const coarse = (t: readonly string[]): string => `${t[0]}|${t[1]}|${DROPPED}|${DROPPED}|${t[4]}|${t[5]}|${t[6]}|${t[7]}|${t[8]}`;
const tickerNet = (t: readonly string[]): string => `${t[0]}|${t[1]}|${t[6]}|${t[7]}|${t[8]}`;

export const DERIVATIONS: Readonly<Record<string, Derivation>> = {
  cs: { source: 'cm', perTicker: true, packing: PACKING.expiration, minute: false, field: (t) => t.join('|') },
  km: { source: 'cm', perTicker: true, packing: PACKING.minute, minute: true, field: coarse },
  tm: { source: 'cm', perTicker: true, packing: PACKING.minute, minute: true, field: tickerNet },
  mm: { source: 'cm', perTicker: false, packing: PACKING.minute, minute: true, field: coarse },
  ms: { source: 'ks', perTicker: false, packing: PACKING.exchange, minute: false, field: (t) => t.join('|') },
  xs: { source: 'ks', perTicker: false, packing: PACKING.whole, minute: false, field: (t) => `${t[0]}|${t[1]}|${t[5]}|${t[8]}` },
};

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
 * The source of a derived suffix: `<source>:<TICKER>` for a per-underlying one, else null (every
 * underlying's key of the source kind: the caller lists them).
 */
export function sourceOf(suffix: string): { kind: 'cm' | 'ks'; suffix: string | null } | undefined {
  const d = derivationOf(suffix);
  if (!d) return undefined;
  return { kind: d.source, suffix: d.perTicker ? `${d.source}:${suffix.slice(suffix.indexOf(':') + 1)}` : null };
}

type Hash = ReadonlyMap<string, Buffer> | Readonly<Record<string, Buffer>>;

/**
 * The logical entries (field -> "cents,prints,contracts", cells.ts) of the derived key `suffix`
 * from its source hashes (block name -> packed block): one underlying's for a per-underlying key,
 * every underlying's of the partition for a partition key. Sums are added on the stored varints
 * and each distinct source field is decoded once, so the cost is a pass over the source's bytes.
 */
export function deriveEntries(suffix: string, sources: Iterable<Hash>): Map<string, string> {
  const d = derivationOf(suffix);
  if (!d) throw new Error(`${suffix} is not a derived key of the flow-aggregates cube`);
  // Each distinct source field once: its derived field's index; then per block (minute) or for
  // the whole key, the sums of each derived field by that index.
  const ids = new Map<string, number>();
  const fields: string[] = [];
  const fieldIds = new Map<string, number>();
  const byHead = new Map<string, number[][]>();
  for (const source of sources) {
    const blocks = (source instanceof Map ? source : Object.entries(source)) as Iterable<[string, Buffer]>;
    for (const [name, block] of blocks) {
      const head = d.minute ? name : '';
      let sums = byHead.get(head);
      if (!sums) byHead.set(head, (sums = []));
      const into = sums;
      forEachSums(block, (key, c, n, v) => {
        let id = ids.get(key);
        if (id === undefined) {
          const t = fieldOfKey(key).split('|');
          if (t.length !== 9) throw new Error(`${d.source} entry ${fieldOfKey(key)} is not a cell`);
          const f = d.field(t);
          id = fieldIds.get(f);
          if (id === undefined) fieldIds.set(f, (id = fields.push(f) - 1));
          ids.set(key, id);
        }
        const s = into[id];
        if (s) {
          s[0] += c;
          s[1] += n;
          s[2] += v;
        } else into[id] = [c, n, v];
      });
    }
  }
  const out = new Map<string, string>();
  for (const [head, sums] of byHead) {
    sums.forEach((s, id) => {
      if (s) out.set(head === '' ? fields[id] : `${head}|${fields[id]}`, `${s[0]},${s[1]},${s[2]}`);
    });
  }
  return out;
}

/** The derived key `suffix` as the hot tier stores it: block name -> packed block (what a move back writes). */
export function deriveKey(suffix: string, sources: Iterable<Hash>): Map<string, Buffer> {
  const d = derivationOf(suffix)!;
  const byBlock = new Map<string, Map<string, string>>();
  for (const [f, value] of deriveEntries(suffix, sources)) {
    const name = d.packing.blockOf(f);
    let entries = byBlock.get(name);
    if (!entries) byBlock.set(name, (entries = new Map()));
    entries.set(f, value);
  }
  const out = new Map<string, Buffer>();
  for (const [name, entries] of byBlock) out.set(name, packBlock(name, entries, d.packing));
  return out;
}
