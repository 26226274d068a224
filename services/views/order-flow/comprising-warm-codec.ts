import type { ComprisingTrade } from '../../domain/order-flow';
import type { CompanionCodec } from '../warm-tier';
import { decodeComprising, encodeComprising } from './row-codec';
import { centsOf, compactInts, dictColumn, intAt, norm, packDoubles, readDict, unpackDoubles, uuidAt, writeUuid, type IntColumn } from './warm-codec';

// ---------------------------------------------------------------------------------------------
// The warm tier's codec of the consolidated view's comprising trades (`<D>:ct`, one value per
// consolidated row: its prints). A warm block's companion holds the values of the block's rows;
// stored as they are, they were the largest part of a warm consolidated session's rows and blocks
// (under `npm start` 141 of 217 B a row): a UUID as 36 characters and six doubles per print.
// Here every print of the block goes into one set of columns (the layout of warm-codec.ts): ids
// as 16 bytes, times differenced, prices and premiums as cents, premium derived from price and
// size where it is exactly that, strings by dictionary. The ids, 16 random bytes a print, are
// then most of what is left.
//
// Exact by construction: pack rebuilds every value from its columns and compares the bytes; a
// block where any value does not come back byte for byte is stored as it is (FORM_AS_IS).
// ---------------------------------------------------------------------------------------------

const FORM_AS_IS = 0;
const FORM_COLUMNS = 1;

// Numeric columns: integers (cents where the unit is cents; times differenced from the previous
// value) when every value is exactly one, else the doubles (warm-codec.ts packDoubles).
const AS_DOUBLES = 0;
const AS_INTS = 1;
interface NumberKind {
  /** The unit is cents (prices, premiums): x * 100 must be an exact integer. */
  cents: boolean;
  /** Stored as the difference from the previous value (times). */
  delta: boolean;
}
const CENTS: NumberKind = { cents: true, delta: false };
const COUNT: NumberKind = { cents: false, delta: false };
const TIME: NumberKind = { cents: false, delta: true };

function numberColumn(xs: readonly number[], kind: NumberKind): unknown {
  const out: number[] = new Array(xs.length);
  let prev = 0;
  for (let i = 0; i < xs.length; i++) {
    const v = norm(xs[i]);
    const x = kind.cents ? centsOf(v) : Number.isSafeInteger(v) ? v : undefined;
    if (x === undefined) return [AS_DOUBLES, packDoubles(xs.map(norm))];
    out[i] = kind.delta ? x - prev : x;
    prev = x;
  }
  return [AS_INTS, compactInts(out)];
}
function readNumberColumn(stored: unknown, n: number, kind: NumberKind): number[] {
  const [as, body] = stored as [number, unknown];
  if (as === AS_DOUBLES) return unpackDoubles(body as Uint8Array);
  const out: number[] = new Array(n);
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const x = (kind.delta ? prev : 0) + intAt(body as IntColumn, i);
    prev = x;
    out[i] = kind.cents ? x / 100 : x;
  }
  return out;
}

const FROM_PRICE = 1;

/** The comprising trades' companion codec (layout.ts names it for `ct`). */
export const comprisingWarmCodec: CompanionCodec = { pack, unpack };

function pack(entries: readonly [string, Buffer][]): unknown {
  const asIs = [FORM_AS_IS, entries.map((e) => e[0]), entries.map((e) => e[1])];
  const lists = entries.map(([, v]) => decodeComprising(v));
  const trades: ComprisingTrade[] = lists.flat();
  const ids = Buffer.alloc(16 * trades.length);
  for (let i = 0; i < trades.length; i++) if (!writeUuid(trades[i].id, ids, 16 * i)) return asIs;
  const premiumMode = trades.map((t) => (Object.is(norm(t.optionPrice * t.size * 100), norm(t.premium)) ? FROM_PRICE : 0));
  const packed = [
    FORM_COLUMNS,
    entries.map((e) => e[0]),
    compactInts(lists.map((l) => l.length)),
    dictColumn(trades.map((t) => t.osi)),
    ids,
    numberColumn(
      trades.map((t) => t.tradeTime),
      TIME,
    ),
    dictColumn(trades.map((t) => t.exchange)),
    numberColumn(
      trades.map((t) => t.optionPrice),
      CENTS,
    ),
    numberColumn(
      trades.map((t) => t.size),
      COUNT,
    ),
    compactInts(premiumMode),
    numberColumn(
      trades.filter((_, i) => premiumMode[i] !== FROM_PRICE).map((t) => t.premium),
      CENTS,
    ),
    dictColumn(trades.map((t) => t.tradeSideCode)),
    numberColumn(
      trades.map((t) => t.bidPrice),
      CENTS,
    ),
    numberColumn(
      trades.map((t) => t.askPrice),
      CENTS,
    ),
  ];
  const back = unpack(packed);
  for (let i = 0; i < entries.length; i++) if (!back[i][1].equals(entries[i][1])) return asIs;
  return packed;
}

function unpack(packed: unknown): [string, Buffer][] {
  const p = packed as unknown[];
  // [rowKeys, values]: the form of blocks moved before this codec (the default codec's).
  if (Array.isArray(p[0])) return unpack([FORM_AS_IS, ...p]);
  if (p[0] === FORM_AS_IS) {
    const [, keys, values] = p as [number, string[], Uint8Array[]];
    return keys.map((k, i) => [k, Buffer.from(values[i].buffer, values[i].byteOffset, values[i].byteLength)]);
  }
  const [, keys, counts, osis, ids, times, exchanges, prices, sizes, premiumModes, premiums, sides, bids, asks] = p;
  const n = (ids as Uint8Array).length / 16;
  const hex = Buffer.from(ids as Uint8Array).toString('hex');
  const osi = readDict(osis);
  const exchange = readDict(exchanges);
  const side = readDict(sides);
  const t = readNumberColumn(times, n, TIME);
  const price = readNumberColumn(prices, n, CENTS);
  const size = readNumberColumn(sizes, n, COUNT);
  const derived = (i: number) => intAt(premiumModes as IntColumn, i) === FROM_PRICE;
  let explicit = 0;
  for (let i = 0; i < n; i++) if (!derived(i)) explicit++;
  const premium = readNumberColumn(premiums, explicit, CENTS);
  const bid = readNumberColumn(bids, n, CENTS);
  const ask = readNumberColumn(asks, n, CENTS);
  const out: [string, Buffer][] = [];
  let i = 0;
  let e = 0;
  for (let r = 0; r < (keys as string[]).length; r++) {
    const list: ComprisingTrade[] = [];
    for (let c = intAt(counts as IntColumn, r); c > 0; c--, i++) {
      list.push({
        id: uuidAt(hex, i),
        osi: osi.dict[intAt(osi.idx, i)] as string,
        tradeTime: t[i],
        exchange: exchange.dict[intAt(exchange.idx, i)] as string,
        optionPrice: price[i],
        size: size[i],
        premium: derived(i) ? price[i] * size[i] * 100 : premium[e++],
        tradeSideCode: side.dict[intAt(side.idx, i)] as ComprisingTrade['tradeSideCode'],
        bidPrice: bid[i],
        askPrice: ask[i],
      });
    }
    out.push([(keys as string[])[r], encodeComprising(list)]);
  }
  return out;
}
