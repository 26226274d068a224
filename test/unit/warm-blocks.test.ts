import { EQUITY_PRINTS_LAYOUT, type EquityPrintRow } from '../../services/views/equities/equity-prints';
import {
  decodeMeta,
  eachPackedBlockOfStored,
  packBlocks,
  packSessionMetas,
  packStateHashes,
  sortRows,
  unpackBlock,
  unpackSessionMetas,
  unpackStateHashes,
  type BlockMeta,
  type PackedBlock,
} from '../../services/views/warm-tier';
import { compareKeys, encodeSortKey } from '../../services/views/sort-keys';
import { TableKeys, hotKeysOf, rowWrites } from '../../services/views/table';
import { PartitionKeys } from '../../services/views/keys';
import { equityPrintRow } from '../../projections/equities/equity-prints';
import { equityPrintData } from '../support/equity-print-data';
import { sessionBounds } from '../../services/domain/calendar';

/** The warm tier's blocks (services/views/warm-tier.ts): exact round trip, order, metadata, determinism. */

const D = '2024-05-01';
const rows: EquityPrintRow[] = equityPrintData([{ date: D, open: sessionBounds(D)!.open }], 700, 3).map((e) => equityPrintRow(e as never));
const layout = { ...EQUITY_PRINTS_LAYOUT, warm: { blockKey: (r: EquityPrintRow) => r.ticker, rowsPerBlock: 50 } };

describe('warm blocks', () => {
  const blocks = packBlocks(layout, rows);

  it('hold every row exactly once, per ticker, in (tradeTime, id) order, at most rowsPerBlock each', () => {
    const back = blocks.flatMap((b) => unpackBlock(layout, b.body, D));
    expect(back.length).toBe(rows.length);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const r of back) expect(r).toEqual(byId.get(r.id));
    for (const b of blocks) {
      const got = unpackBlock(layout, b.body, D);
      const meta = decodeMeta(b.id, b.metaBytes);
      expect(b.meta).toEqual(meta);
      expect(got.length).toBe(meta.count);
      expect(got.length).toBeLessThanOrEqual(50);
      expect(new Set(got.map((r) => r.ticker))).toEqual(new Set([meta.blockKey]));
      expect(b.id.startsWith(`${meta.blockKey}:`)).toBe(true);
      for (let i = 1; i < got.length; i++) {
        const a = got[i - 1];
        const c = got[i];
        expect(a.tradeTime < c.tradeTime || (a.tradeTime === c.tradeTime && a.id < c.id)).toBe(true);
      }
      // The metadata bounds every sort field of the block, tightly.
      layout.sorts.forEach((s, i) => {
        const vs = got.map((r) => s.value(r) as number);
        expect(meta.min[i]).toBe(Math.min(...vs));
        expect(meta.max[i]).toBe(Math.max(...vs));
      });
    }
  });

  it('are deterministic: the same rows in any order give the same bytes', () => {
    const again = packBlocks(layout, [...rows].reverse());
    expect(again.map((b) => [b.id, b.body.toString('base64'), b.metaBytes.toString('base64')])).toEqual(
      blocks.map((b) => [b.id, b.body.toString('base64'), b.metaBytes.toString('base64')]),
    );
  });

  it('the hot keys a move unlinks are exactly the keys the rows were written to (the segment set aside)', () => {
    const k = new TableKeys(new PartitionKeys('t', layout.view, 1, 0));
    const written = new Set(rows.flatMap((r) => rowWrites(layout, k, r).map((w) => w[1])));
    written.delete(k.segments);
    expect(new Set(hotKeysOf(layout, k, D, rows))).toEqual(written);
    expect(hotKeysOf(layout, k, D, [])).toEqual([k.rows(D)]);
  });

  it('packed from stored rows, a group at a time, they are the same blocks, and every row is seen once', () => {
    const stored = new Map(rows.map((r) => [r.id, layout.encode(r) as Buffer]));
    const ids = (bs: (PackedBlock | null)[]) => bs.filter((b) => b !== null).map((b) => [b.id, b.body.toString('base64'), b.metaBytes.toString('base64')]);
    // Without storedBlockKey every row is decoded to group it; with one, only the rows it declines.
    const peeking = {
      ...layout,
      warm: { ...layout.warm, storedBlockKey: (b: Buffer) => (b[b.length - 1] % 2 ? undefined : layout.decode(b, '', D).ticker) },
    };
    for (const l of [layout, peeking]) {
      const seen: string[] = [];
      const out = [...eachPackedBlockOfStored(l, stored, D, (group) => seen.push(...group.map((r) => r.id)))];
      expect(ids(out)).toEqual(ids(blocks));
      expect(seen.sort()).toEqual(rows.map((r) => r.id).sort());
      // A turn is offered every 2,000 rows decoded.
      expect(out.filter((b) => b === null).length).toBe(Math.floor(rows.length / 2_000));
    }
    expect([...eachPackedBlockOfStored(layout, new Map(), D, () => undefined)]).toEqual([]);
  });

  it("a session's metadata packs to one value and comes back the same, block for block", () => {
    const metas = blocks.map((b) => b.meta);
    expect(unpackSessionMetas(packSessionMetas(metas))).toEqual(metas);
    // Nulls (a value that is not a number), infinities and -0 survive; no blocks, no metadata.
    const odd: BlockMeta[] = [
      { id: 'A:0', blockKey: 'A', count: 256, min: [null, -Infinity, -0], max: [null, Infinity, 0] },
      { id: 'A:1', blockKey: 'A', count: 1, min: [1.5, 2, 3], max: [1.5, 2, 3e300] },
      { id: 'B:0', blockKey: 'B', count: 7, min: [-1, 0, 0], max: [1, 0, null] },
    ];
    const back = unpackSessionMetas(packSessionMetas(odd));
    expect(back).toEqual(odd);
    expect(Object.is(back[0].min[2], -0)).toBe(true);
    expect(unpackSessionMetas(packSessionMetas([]))).toEqual([]);
    // Ids are derived from the order, so a block out of it is refused rather than renamed.
    expect(() => packSessionMetas([odd[1], odd[0]])).toThrow(/out of order/);
    expect(() => packSessionMetas([odd[2], odd[0]])).toThrow(/out of key order/);
  });

  it('sort rows in the order of their encoded sort keys, numbers compared as numbers', () => {
    const values = [3, -0, 0, -2.5, 1e300, -1e300, Infinity, -Infinity, NaN, 3, 0.1, 'a', null, true, 2];
    const mixed = values.map((v, i) => ({ v, rk: `r${(i * 7) % values.length}` }));
    const sortLayout = { ...layout, sorts: [{ field: 'V', suffix: 'v', value: (r: { v: unknown }) => r.v as number }], rowKeyOf: (r: { rk: string }) => r.rk };
    const got = sortRows(sortLayout as never, [...mixed]) as typeof mixed;
    const want = [...mixed].sort((a, b) => compareKeys(encodeSortKey(a.v as number), a.rk, encodeSortKey(b.v as number), b.rk));
    expect(got).toEqual(want);
  });

  it('a session with no rows packs to no blocks; a layout without a warm tier refuses', () => {
    expect(packBlocks(layout, [])).toEqual([]);
    expect(() => packBlocks({ ...EQUITY_PRINTS_LAYOUT, warm: undefined }, rows)).toThrow(/no warm tier/);
  });

  it('state hashes pack to one value and come back with every field and value, fields in order', () => {
    const hashes = new Map([
      ['SPY___261218', ['P00500000', '12', 'C00500000', '7', 'C00495000', '0']],
      ['AAPL__261120', ['C00200000', '31337']],
      ['EMPTY_000000', []],
    ]);
    const back = unpackStateHashes(packStateHashes(hashes));
    expect([...back.keys()]).toEqual(['AAPL__261120', 'EMPTY_000000', 'SPY___261218']);
    expect(back.get('SPY___261218')).toEqual(['C00495000', '0', 'C00500000', '7', 'P00500000', '12']);
    expect(back.get('AAPL__261120')).toEqual(['C00200000', '31337']);
    expect(back.get('EMPTY_000000')).toEqual([]);
    // The same hashes in another insertion order pack to the same bytes (a replay writes the same value).
    const reordered = new Map([...hashes].reverse().map(([m, kv]) => [m, [...kv.slice(2), ...kv.slice(0, 2)]]));
    expect(packStateHashes(reordered).equals(packStateHashes(hashes))).toBe(true);
  });
});
