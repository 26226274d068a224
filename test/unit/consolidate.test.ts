import { v5 as uuidV5 } from 'uuid';
import { enrichPrint, type RawPrint } from '../../projections/enrich/enrich-print';
import { CONSOLIDATED_ROW_NAMESPACE, Consolidator, groupKeyOf } from '../../projections/order-flow-processor/consolidate';
import { OrderFlowPartition, UNKNOWN_REFERENCE } from '../../projections/order-flow-processor/partition-state';
import { avroTypeOf, topicFor } from '../../schemas/catalog';
import {
  BLOCK_MIN_SIZE,
  CONSOLIDATION_GAP_MS,
  GOLDEN_SWEEP_PREMIUM,
  type ConsolidatedTradeEvent,
  type EnrichedPrintEvent,
} from '../../services/domain/order-flow';

// 2026-11-19 14:30 ET; the SPY 2026-12-18 600 call quoted 12.40 x 12.60.
const T0 = Date.UTC(2026, 10, 19, 19, 30);
const OSI = 'SPY   261218C00600000';
const ctx = { volumeBefore: 0, sector: 'NOT_APPLICABLE', industry: 'NOT_APPLICABLE', isETF: true, isIndex: false, rate: 0.045, dividend: 0.013 };
let seq = 0;

/** An enriched print; `volume` is the contract's cumulative volume the caller says it reached. */
function row(o: Partial<RawPrint> & { dt?: number; volume?: number } = {}): EnrichedPrintEvent {
  seq++;
  const { dt = 0, volume, ...p } = o;
  const raw: RawPrint = {
    id: `p${seq}`,
    osi: OSI,
    ticker: 'SPY',
    time: T0 + dt,
    price: 12.6,
    size: 10,
    exchange: 'CBOE',
    conditions: ['AUTO'],
    bidPrice: 12.4,
    askPrice: 12.6,
    underlyingPrice: 602,
    ...p,
  };
  const r = enrichPrint(raw, { partition: 3, offset: seq }, ctx);
  return volume === undefined ? r : { ...r, volume };
}

const ASK = 12.6;
const ABOVE = 12.65;
const MID = 12.5;
const BID = 12.4;

describe('grouping window (CONSOLIDATION_GAP_MS, edge inclusive)', () => {
  it('a print exactly 500 ms after the last one joins; 501 ms starts a new trade', () => {
    expect(CONSOLIDATION_GAP_MS).toBe(500);
    const c = new Consolidator();
    const a = c.add(row({ dt: 0 }));
    const b = c.add(row({ dt: 500 }));
    expect(b.id).toBe(a.id);
    expect(b.version).toBe(2);
    const d = c.add(row({ dt: 1001 })); // 501 ms after the last print
    expect(d.id).not.toBe(a.id);
    expect(d.version).toBe(1);
  });

  it('measures from the latest print, so a chain of prints each <= 500 ms apart stays one trade', () => {
    const c = new Consolidator();
    let v: ConsolidatedTradeEvent | undefined;
    for (let i = 0; i < 6; i++) v = c.add(row({ dt: i * 500 }));
    expect(v!.version).toBe(6);
    expect(v!.tradeTime).toBe(T0);
    expect(v!.lastTradeTime).toBe(T0 + 2_500);
  });

  it('a print slightly earlier than the last one joins without moving the window back', () => {
    const c = new Consolidator();
    c.add(row({ dt: 0 }));
    c.add(row({ dt: 400 }));
    const late = c.add(row({ dt: 100 }));
    expect(late.version).toBe(3);
    expect(late.lastTradeTime).toBe(T0 + 400);
    expect(c.add(row({ dt: 900 })).version).toBe(4); // 500 ms after 400
    expect(c.add(row({ dt: -101 })).version).toBe(1); // 1001 ms before the latest: a new trade
  });

  it('a new trade replaces the open one of its key (one trade per key in the state)', () => {
    const c = new Consolidator();
    c.add(row({ dt: 0 }));
    const second = c.add(row({ dt: 10_000 }));
    expect(c.size).toBe(1);
    expect(JSON.stringify(c.get(groupKeyOf(second)))).toBe(JSON.stringify(second));
    // The old trade cannot be joined any more, even by a print inside its old window.
    expect(c.add(row({ dt: 100 })).version).toBe(1);
  });
});

describe('direction grouping', () => {
  it('ASK and ABOVE_ASK prints join (both buying)', () => {
    const c = new Consolidator();
    const a = c.add(row({ price: ASK }));
    const b = c.add(row({ price: ABOVE, dt: 100 }));
    expect(a.comprisingTrades[0].tradeSideCode).toBe('ASK');
    expect(b.comprisingTrades.map((t) => t.tradeSideCode)).toEqual(['ASK', 'ABOVE_ASK']);
    expect(b.id).toBe(a.id);
  });

  it('BID and BELOW_BID join; a BID print never joins an ASK trade, nor closes it', () => {
    const c = new Consolidator();
    const ask = c.add(row({ price: ASK }));
    const bid = c.add(row({ price: BID, dt: 100 }));
    expect(bid.id).not.toBe(ask.id);
    expect(bid.version).toBe(1);
    expect(c.add(row({ price: 12.3, dt: 150 })).id).toBe(bid.id); // BELOW_BID
    const ask2 = c.add(row({ price: ASK, dt: 200 }));
    expect(ask2.id).toBe(ask.id);
    expect(ask2.version).toBe(2);
  });

  it('MID_MARKET prints group only with MID_MARKET prints', () => {
    const c = new Consolidator();
    const ask = c.add(row({ price: ASK }));
    const bid = c.add(row({ price: BID, dt: 50 }));
    const mid = c.add(row({ price: MID, dt: 100 }));
    expect([ask.id, bid.id]).not.toContain(mid.id);
    expect(mid.version).toBe(1);
    const mid2 = c.add(row({ price: 12.45, dt: 200 }));
    expect(mid2.id).toBe(mid.id);
    expect(mid2.sentimentType).toBe('NEUTRAL');
    expect(c.size).toBe(3);
  });
});

describe('sessions and contracts stay apart', () => {
  it('prints 300 ms apart across New York midnight belong to two sessions, so two trades', () => {
    const c = new Consolidator();
    const nyMidnight = Date.UTC(2026, 10, 20, 5, 0); // 00:00 EST on 2026-11-20
    const a = c.add(row({ time: nyMidnight - 150 }));
    const b = c.add(row({ time: nyMidnight + 150 }));
    expect(a.sessionDate).toBe('2026-11-19');
    expect(b.sessionDate).toBe('2026-11-20');
    expect(b.id).not.toBe(a.id);
    expect(b.version).toBe(1);
  });

  it('two contracts at the same instant are two trades', () => {
    const c = new Consolidator();
    const a = c.add(row({}));
    const b = c.add(row({ osi: 'SPY   261218P00600000' }));
    expect(b.id).not.toBe(a.id);
    expect(c.add(row({ dt: 10 })).id).toBe(a.id);
    expect(c.add(row({ osi: 'SPY   261218P00600000', dt: 10 })).id).toBe(b.id);
  });
});

describe('classification', () => {
  it('SWEEP when the prints span two or more exchanges', () => {
    const c = new Consolidator();
    expect(c.add(row({ exchange: 'CBOE' })).tradeConsolidationType).toBe('SINGLE');
    expect(c.add(row({ exchange: 'ISE', dt: 5 })).tradeConsolidationType).toBe('SWEEP');
    expect(c.add(row({ exchange: 'CBOE', dt: 8 })).tradeConsolidationType).toBe('SWEEP');
  });

  it('SPLIT with two or more prints on one exchange, whatever the size', () => {
    const c = new Consolidator();
    c.add(row({ size: 80 }));
    const v = c.add(row({ size: 80, dt: 300 }));
    expect(v.size).toBe(160);
    expect(v.tradeConsolidationType).toBe('SPLIT');
  });

  it(`BLOCK for one print of at least ${BLOCK_MIN_SIZE} contracts, SINGLE below`, () => {
    expect(BLOCK_MIN_SIZE).toBe(100);
    expect(new Consolidator().add(row({ size: 100 })).tradeConsolidationType).toBe('BLOCK');
    expect(new Consolidator().add(row({ size: 99 })).tradeConsolidationType).toBe('SINGLE');
    expect(new Consolidator().add(row({ size: 1 })).tradeConsolidationType).toBe('SINGLE');
  });
});

describe('golden sweeps', () => {
  // Quoted 12.40 x 12.50: two legs of 400 at 12.50 are exactly $1,000,000.
  const leg = (o: Partial<RawPrint> & { dt?: number }) => row({ bidPrice: 12.4, askPrice: 12.5, price: 12.5, size: 400, ...o });

  it(`a buying SWEEP of exactly $${GOLDEN_SWEEP_PREMIUM.toLocaleString('en-US')} is golden`, () => {
    const c = new Consolidator();
    c.add(leg({ exchange: 'CBOE' }));
    const v = c.add(leg({ exchange: 'ISE', dt: 3 }));
    expect(v.premium).toBe(1_000_000);
    expect(v.tradeSideCode).toBe('ASK');
    expect(v.isGoldenSweep).toBe(true);
  });

  it('$999,999.99 is not', () => {
    const c = new Consolidator();
    c.add(leg({ exchange: 'CBOE' }));
    // 1 contract at $4,999.9999 (its own NBBO, at the ask): premium $499,999.99.
    const v = c.add(row({ exchange: 'ISE', dt: 3, size: 1, price: 4999.9999, bidPrice: 4999.9, askPrice: 4999.9999 }));
    expect(v.comprisingTrades[1].tradeSideCode).toBe('ASK');
    expect(v.tradeConsolidationType).toBe('SWEEP');
    expect(v.premium).toBeCloseTo(999_999.99, 6);
    expect(v.premium).toBeLessThan(1_000_000);
    expect(v.tradeSideCode).toBe('ABOVE_ASK'); // the average against the first NBBO: still buying
    expect(v.isGoldenSweep).toBe(false);
  });

  it('ABOVE_ASK counts; BID, BELOW_BID or MID_MARKET sweeps and one-exchange SPLITs never do', () => {
    const sweep = (price: number, exchanges: [string, string]) => {
      const c = new Consolidator();
      c.add(leg({ price, exchange: exchanges[0], size: 1_000 }));
      return c.add(leg({ price, exchange: exchanges[1], size: 1_000, dt: 2 }));
    };
    expect(sweep(12.6, ['CBOE', 'ISE'])).toMatchObject({ tradeSideCode: 'ABOVE_ASK', isGoldenSweep: true });
    expect(sweep(12.4, ['CBOE', 'ISE'])).toMatchObject({ tradeSideCode: 'BID', tradeConsolidationType: 'SWEEP', isGoldenSweep: false });
    expect(sweep(12.3, ['CBOE', 'ISE'])).toMatchObject({ tradeSideCode: 'BELOW_BID', isGoldenSweep: false });
    expect(sweep(12.45, ['CBOE', 'ISE'])).toMatchObject({ tradeSideCode: 'MID_MARKET', isGoldenSweep: false });
    expect(sweep(12.5, ['CBOE', 'CBOE'])).toMatchObject({ tradeConsolidationType: 'SPLIT', isGoldenSweep: false });
  });
});

describe('aggregated values', () => {
  it('sums premium and size, weights the price by size, takes volume at the latest print and the rest from the first print', () => {
    const c = new Consolidator();
    const first = row({ price: 12.6, size: 10, exchange: 'CBOE', volume: 110 });
    const second = row({ price: 12.75, size: 30, exchange: 'ISE', dt: 120, bidPrice: 12.5, askPrice: 12.75, underlyingPrice: 603, volume: 140 });
    const third = row({ price: 12.65, size: 60, exchange: 'PHLX', dt: 200, volume: 200 });
    c.add(first);
    c.add(second);
    const v = c.add(third);
    const premium = 12.6 * 10 * 100 + 12.75 * 30 * 100 + 12.65 * 60 * 100;
    expect(v.premium).toBe(premium);
    expect(v.size).toBe(100);
    expect(v.optionPrice).toBe(premium / 100 / 100);
    expect(v.optionPrice).toBeCloseTo(12.675, 12);
    expect(v.volume).toBe(200);
    expect(v.version).toBe(3);
    expect(v.tradeSideCode).toBe('ABOVE_ASK'); // 12.675 against the first print's 12.40 x 12.60
    expect(v.sentimentType).toBe('BULLISH');
    expect(v).toMatchObject({
      rowKey: first.rowKey,
      id: uuidV5(first.printId, CONSOLIDATED_ROW_NAMESPACE),
      tradeTime: first.tradeTime,
      lastTradeTime: third.tradeTime,
      dte: first.dte,
      stockPrice: 602,
      bidPrice: 12.4,
      askPrice: 12.6,
      bidAskSpread: first.bidAskSpread,
      impliedVolatility: first.impliedVolatility,
      greeks: first.greeks,
      moneyness: first.moneyness,
      tradeType: first.tradeType,
      exchange: 'CBOE',
      sessionDate: '2026-11-19',
      osi: OSI,
      ticker: 'SPY',
      contractType: 'CALL',
      strikePrice: 600,
      expirationDate: '2026-12-18',
      tradeConsolidationType: 'SWEEP',
    });
    expect(v.comprisingTrades).toEqual(
      [first, second, third].map((r) => ({
        id: r.id,
        osi: r.osi,
        tradeTime: r.tradeTime,
        exchange: r.exchange,
        optionPrice: r.optionPrice,
        size: r.size,
        premium: r.premium,
        tradeSideCode: r.tradeSideCode,
        bidPrice: r.bidPrice,
        askPrice: r.askPrice,
      })),
    );
  });

  it('a one-print trade keeps the print price exactly (no division noise)', () => {
    const v = new Consolidator().add(row({ price: 0.07, size: 9, bidPrice: 0.05, askPrice: 0.07 }));
    expect((0.07 * 9 * 100) / 9 / 100).not.toBe(0.07); // what the division alone would give
    expect(v.optionPrice).toBe(0.07);
    expect(v.tradeSideCode).toBe('ASK');
  });

  it('earlier versions are not changed by later prints', () => {
    const c = new Consolidator();
    const v1 = c.add(row({}));
    const snapshot = JSON.stringify(v1);
    c.add(row({ dt: 10 }));
    expect(JSON.stringify(v1)).toBe(snapshot);
  });
});

/** A deterministic pseudo-random print stream over a few contracts, exchanges and sides. */
function stream(n: number, seed = 7): RawPrint[] {
  let s = seed >>> 0;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const osis = ['SPY   261218C00600000', 'SPY   261218P00590000', 'SPY   261120C00605000'];
  const exchanges = ['CBOE', 'ISE', 'PHLX', 'MIAX'];
  const out: RawPrint[] = [];
  let t = T0;
  for (let i = 0; i < n; i++) {
    t += Math.floor(rnd() * 700);
    const bid = 2 + Math.floor(rnd() * 100) / 100;
    const ask = bid + 0.05;
    const price = [bid - 0.01, bid, bid + 0.02, ask, ask + 0.01][Math.floor(rnd() * 5)];
    out.push({
      id: `s${i}`,
      osi: osis[Math.floor(rnd() * osis.length)],
      ticker: 'SPY',
      time: t,
      price,
      size: 1 + Math.floor(rnd() * 150),
      exchange: exchanges[Math.floor(rnd() * exchanges.length)],
      conditions: ['AUTO'],
      bidPrice: bid,
      askPrice: ask,
      underlyingPrice: 600 + rnd() * 4,
    });
  }
  return out;
}

describe('determinism and state', () => {
  const prints = stream(3_000);
  const run = (ps: RawPrint[], part = new OrderFlowPartition(5, 0.045)) => ps.map((p, i) => part.apply(p, i, UNKNOWN_REFERENCE));

  it('the same prints in the same order give byte-identical output', () => {
    const a = JSON.stringify(run(prints));
    const b = JSON.stringify(run(prints));
    expect(a).toBe(b);
    const out = run(prints);
    const types = new Set(out.map((o) => o.consolidated.tradeConsolidationType));
    expect([...types].sort()).toEqual(['BLOCK', 'SINGLE', 'SPLIT', 'SWEEP']); // the stream exercises every type
  });

  it('volume is cumulative per (session, contract) in partition order', () => {
    const out = run(prints);
    const total = new Map<string, number>();
    for (let i = 0; i < prints.length; i++) {
      const p = prints[i];
      total.set(p.osi, (total.get(p.osi) ?? 0) + p.size);
      expect(out[i].enriched.volume).toBe(total.get(p.osi));
      expect(out[i].consolidated.volume).toBe(total.get(p.osi));
    }
  });

  it('serialising the state mid-stream and restoring it continues identically', () => {
    const whole = run(prints);
    const cut = 1_234;
    const first = new OrderFlowPartition(5, 0.045);
    const head = prints.slice(0, cut).map((p, i) => first.apply(p, i, UNKNOWN_REFERENCE));
    // Through JSON, as a persister would store it.
    const saved = JSON.parse(JSON.stringify({ volumes: [...first.volumes], groups: first.consolidator.snapshot() }));
    const restored = new OrderFlowPartition(5, 0.045, { volumes: new Map(saved.volumes), consolidator: new Consolidator(saved.groups) });
    const tail = prints.slice(cut).map((p, i) => restored.apply(p, cut + i, UNKNOWN_REFERENCE));
    expect(JSON.stringify([...head, ...tail])).toBe(JSON.stringify(whole));
    const straight = new OrderFlowPartition(5, 0.045);
    run(prints, straight);
    expect(JSON.stringify(restored.consolidator.snapshot())).toBe(JSON.stringify(straight.consolidator.snapshot()));
  });

  it('takeTouched returns each changed entry once with its latest value, then nothing', () => {
    const part = new OrderFlowPartition(5, 0.045);
    const out = run(prints.slice(0, 50), part);
    const touched = part.takeTouched();
    expect(new Set(touched.volumes.map(([k]) => k)).size).toBe(touched.volumes.length);
    expect(new Set(touched.groups.map(([k]) => k)).size).toBe(touched.groups.length);
    for (const [k, v] of touched.volumes) expect(part.volumes.get(k)).toBe(v);
    const type = avroTypeOf(topicFor('consolidated-trade')!);
    for (const [k, body] of touched.groups) expect(JSON.stringify(type.fromBuffer(body))).toBe(JSON.stringify(part.consolidator.get(k)));
    expect(touched.groups.map(([, body]) => JSON.stringify(type.fromBuffer(body)))).toContain(JSON.stringify(out[49].consolidated));
    expect(part.takeTouched()).toEqual({ volumes: [], groups: [] });
    // Restoring from the encoded entries gives the same trades.
    const again = new Consolidator();
    for (const [k, body] of touched.groups) again.restoreEncoded(k, body);
    for (const [k] of touched.groups) expect(JSON.stringify(again.get(k))).toBe(JSON.stringify(part.consolidator.get(k)));
  });
});
