import zlib from 'zlib';
import { Packr } from 'msgpackr';
import type { ComprisingTrade } from '../../services/domain/order-flow';
import { encodeComprising } from '../../services/views/order-flow';
import { comprisingWarmCodec } from '../../services/views/order-flow/comprising-warm-codec';
import { orderFlowSample } from '../support/order-flow-sample';

/**
 * The warm tier's codec of the comprising trades (services/views/order-flow/comprising-warm-codec.ts):
 * a block's values come back byte for byte whatever they hold, in columns when they fit them and
 * as they are when they do not; blocks moved before the codec still read; realistic blocks are
 * a third smaller than the values as they are.
 */

const packr = new Packr({ useRecords: false });
/** Through MessagePack, as a stored block goes. */
const roundTrip = (entries: [string, Buffer][]) => comprisingWarmCodec.unpack(packr.unpack(packr.pack(comprisingWarmCodec.pack(entries))));
const form = (entries: [string, Buffer][]) => (comprisingWarmCodec.pack(entries) as unknown[])[0];
const brotli = (v: unknown) => zlib.brotliCompressSync(packr.pack(v), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }).length;

const sample = orderFlowSample(4_000, '2024-05-01').consolidated;
/** One block's values: the consolidated trades of one ticker, 256 at most, as the projection stores them. */
const blocks: [string, Buffer][][] = (() => {
  const byTicker = new Map<string, Map<string, Buffer>>();
  for (const e of sample) {
    const m = byTicker.get(e.ticker) ?? new Map<string, Buffer>();
    m.set(e.rowKey, encodeComprising(e.comprisingTrades));
    byTicker.set(e.ticker, m);
  }
  return [...byTicker.values()].map((m) => [...m].slice(0, 256));
})();

const trade = (over: Partial<ComprisingTrade> = {}): ComprisingTrade => ({
  id: '0b5c6a2e-3f1d-4e8a-9c7b-2d4e6f8a0b1c',
  osi: 'AAPL  261218C00200000',
  tradeTime: 1_780_000_000_123,
  exchange: 'CBOE',
  optionPrice: 2.35,
  size: 7,
  premium: 1645,
  tradeSideCode: 'ASK',
  bidPrice: 2.3,
  askPrice: 2.35,
  ...over,
});
const entry = (rk: string, trades: ComprisingTrade[]): [string, Buffer] => [rk, encodeComprising(trades)];

describe('comprising trades warm codec', () => {
  it('the sample has blocks of several consolidated trades, some of several prints', () => {
    expect(blocks.length).toBeGreaterThan(5);
    expect(sample.some((e) => e.comprisingTrades.length > 3)).toBe(true);
  });

  it('every block of the sample comes back byte for byte, in columns', () => {
    for (const b of blocks) {
      expect(form(b)).toBe(1);
      const back = roundTrip(b);
      expect(back.map(([rk]) => rk)).toEqual(b.map(([rk]) => rk));
      back.forEach(([, v], i) => expect(v.equals(b[i][1])).toBe(true));
    }
  });

  it('is at least a third smaller than the values as they are, after brotli (the ids, 16 random bytes a print, are most of what is left)', () => {
    let columns = 0;
    let asIs = 0;
    for (const b of blocks) {
      columns += brotli(comprisingWarmCodec.pack(b));
      asIs += brotli([b.map((e) => e[0]), b.map((e) => e[1])]);
    }
    expect(columns * 1.4).toBeLessThan(asIs);
  });

  it('values that fit no column come back exactly: sub-cent prices, a premium not price × size × 100, -0, other contracts', () => {
    const b: [string, Buffer][] = [
      entry('01000000a1', [trade(), trade({ optionPrice: 2.3456, premium: 1641.92, bidPrice: 2.3, askPrice: 2.4 })]),
      entry('01000000a2', [trade({ premium: 1000 }), trade({ osi: 'AAPL  261218P00190000', tradeTime: 1_780_000_000_100.5 })]),
      entry('01000000a3', [trade({ bidPrice: -0, size: 0, premium: 0 })]),
      entry('01000000a4', []),
    ];
    const back = roundTrip(b);
    back.forEach(([rk, v], i) => {
      expect(rk).toBe(b[i][0]);
      expect(v.equals(b[i][1])).toBe(true);
    });
  });

  it('a block with an id that is no UUID is stored as it is, and comes back exactly', () => {
    const b = [entry('01000000b1', [trade()]), entry('01000000b2', [trade({ id: 'print-7' })])];
    expect(form(b)).toBe(0);
    roundTrip(b).forEach(([, v], i) => expect(v.equals(b[i][1])).toBe(true));
  });

  it('a block moved before the codec ([rowKeys, values]) still reads', () => {
    const b = blocks[0];
    const legacy = packr.unpack(packr.pack([b.map((e) => e[0]), b.map((e) => e[1])]));
    comprisingWarmCodec.unpack(legacy).forEach(([rk, v], i) => {
      expect(rk).toBe(b[i][0]);
      expect(v.equals(b[i][1])).toBe(true);
    });
  });
});
