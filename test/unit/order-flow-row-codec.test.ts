import { pack, unpack } from 'msgpackr';
import { moneynessOf, openInterestFlags } from '../../services/domain/order-flow';
import { bsmGreeks } from '../../services/domain/pricing';
import { RISK_FREE_RATE, dividendYield } from '../../services/domain/rates';
import {
  decodeComprising,
  decodeRow,
  encodeComprising,
  encodeRow,
  storedTicker,
  type OrderFlowConsolidatedRow,
  type OrderFlowPrintRow,
} from '../../services/views/order-flow';
import { expectedConsolidatedRows, expectedPrintRows, orderFlowFixture } from '../support/order-flow-data';

/**
 * The stored form of order-flow rows and comprising trades (services/views/order-flow/row-codec.ts):
 * MessagePack positional arrays, JSON text in earlier versions. What must hold: every row
 * decodes to itself exactly, whatever its values; rows and comprising trades stored as JSON by
 * earlier versions decode to the same rows; each encoding is a Buffer that later encodings leave
 * intact (msgpackr hands out slices of one output buffer).
 */

const fixture = orderFlowFixture({ sessions: ['2024-05-01'], printsPerSession: 300, seed: 5 });
const prints = expectedPrintRows(fixture);
const consolidated = expectedConsolidatedRows(fixture);
const roundTrip = <R extends OrderFlowPrintRow | OrderFlowConsolidatedRow>(r: R) => decodeRow<R>(encodeRow(r), r.rowKey, r.sessionDate);
/** The form rows had in earlier versions: the same positional array as JSON text. */
const legacyJson = (stored: Buffer) => JSON.stringify(unpack(stored));

/** A row as layout 1 stored it: no layout mark, seven greeks, moneyness as a fraction, old trade-type names. */
function layout1(r: OrderFlowPrintRow | OrderFlowConsolidatedRow): Buffer {
  const a = unpack(encodeRow(r)) as unknown[];
  a.pop(); // the layout mark
  const g = r.greeks;
  a[16] = g && [g.delta, g.gamma, g.theta, g.vega, g.rho, g.charm, g.vanna];
  const signed = (r.contractType === 'CALL' ? r.stockPrice - r.strikePrice : r.strikePrice - r.stockPrice) / r.strikePrice;
  a[17] = [signed, signed * 100, ['ATM', 'ITM', 'OTM'].indexOf(r.moneyness.moneyType)];
  a[20] = ['ELECTRONIC', 'AUCTION', 'INTERMARKET_SWEEP', 'CROSS', 'MULTI_LEG', 'OTHER'].indexOf(
    { AUTO: 'ELECTRONIC', ISO: 'INTERMARKET_SWEEP', AUCT: 'AUCTION', CROSS: 'CROSS', MULTI_AUTO: 'MULTI_LEG' }[r.tradeType as string]!,
  );
  return pack(a);
}

describe('stored order-flow rows', () => {
  it('the fixture has both tapes, null and non-null greeks and implied volatility', () => {
    expect(prints.length).toBeGreaterThan(100);
    expect(consolidated.length).toBeGreaterThan(50);
    expect(prints.some((r) => r.greeks === null) && prints.some((r) => r.greeks !== null)).toBe(true);
  });

  it('every print row and consolidated row decodes to itself, field for field', () => {
    for (const r of prints) expect(roundTrip(r)).toEqual(r);
    for (const r of consolidated) expect(roundTrip(r)).toEqual(r);
  });

  it('rows of layout 1 (read while a rebuild writes layout 2) decode upgraded: fifteen greeks, dollar moneyness, vendor trade types', () => {
    for (const r of [...prints.slice(0, 80), ...consolidated.slice(0, 80)]) {
      const greeks =
        r.impliedVolatility === null
          ? null
          : bsmGreeks({
              right: r.contractType,
              spot: r.stockPrice,
              strike: r.strikePrice,
              t: r.dte / 365,
              vol: r.impliedVolatility,
              rate: RISK_FREE_RATE,
              dividend: dividendYield(r.ticker),
            });
      const want = { ...r, greeks, moneyness: moneynessOf(r.contractType, r.stockPrice, r.strikePrice) };
      expect(decodeRow(layout1(r), r.rowKey, r.sessionDate)).toEqual(want);
    }
  });

  it('doubles keep every bit; nulls, values outside the codec lists and large integers survive', () => {
    const base = prints.find((r) => r.greeks !== null)!;
    const odd: OrderFlowPrintRow = {
      ...base,
      dte: 0.1 + 0.2,
      premium: 123456789.00000001,
      stockPrice: Number.MIN_VALUE,
      optionPrice: 1e-300,
      impliedVolatility: null,
      greeks: {
        ...base.greeks!,
        delta: -0.4999999999999999,
        gamma: 5e-324,
        theta: -1.7976931348623157e308,
        vega: 1 / 3,
        rho: -0,
        charm: 2 ** 53 - 1,
        vanna: -(2 ** 31),
        ultima: 1e-300,
        zomma: -Number.MAX_SAFE_INTEGER,
      },
      tradeType: 'SOMETHING_NEW' as OrderFlowPrintRow['tradeType'],
      sector: 'Ünïcode sector',
      tradeTime: 1_714_570_200_085,
    };
    // The open-interest flags are re-derived from the stored open interest on decode.
    Object.assign(odd, openInterestFlags(odd, 2 ** 40));
    const back = roundTrip(odd);
    expect(back).toEqual({ ...odd, greeks: { ...odd.greeks, rho: 0 } }); // -0 is stored as the integer 0, as JSON stored it
    expect(back.dte).toBe(0.30000000000000004);
    expect(back.greeks!.gamma).toBe(5e-324);
    expect(back.greeks!.theta).toBe(-1.7976931348623157e308);
    expect(back.greeks!.ultima).toBe(1e-300);
    expect(back.tradeType).toBe('SOMETHING_NEW');
    expect(back.sector).toBe('Ünïcode sector');
  });

  it('rows stored as JSON text (before 2026-11-25) decode to the same rows, from a string or from bytes', () => {
    for (const r of [...prints.slice(0, 50), ...consolidated.slice(0, 50)]) {
      const json = legacyJson(encodeRow(r));
      expect(json.startsWith('[')).toBe(true);
      expect(decodeRow(json, r.rowKey, r.sessionDate)).toEqual(r);
      expect(decodeRow(Buffer.from(json), r.rowKey, r.sessionDate)).toEqual(r);
    }
  });

  it('is MessagePack, smaller than the JSON text it replaced', () => {
    const stored = prints.map((r) => encodeRow(r));
    for (const s of stored) expect(s[0]).toBe(0xdc); // array16: a print row has 28 elements
    const packed = stored.reduce((n, s) => n + s.length, 0);
    const json = stored.reduce((n, s) => n + Buffer.byteLength(legacyJson(s)), 0);
    expect(packed).toBeLessThan(json * 0.8);
  });

  it('storedTicker reads the ticker from the stored bytes, or declines where the bytes are not the MessagePack layout', () => {
    for (const r of [...prints, ...consolidated]) expect(storedTicker(encodeRow(r))).toBe(r.ticker);
    const r = prints[0];
    // Strings of every MessagePack width: fixstr, str8 (a UUID id) and str16.
    for (const ticker of ['X', 'T'.repeat(31), 'L'.repeat(32), 'Ü'.repeat(200), 'W'.repeat(70_000)]) {
      expect(storedTicker(encodeRow({ ...r, ticker }))).toBe(ticker.length > 65_535 ? undefined : ticker);
    }
    expect(storedTicker(encodeRow({ ...r, id: 'x'.repeat(300) }))).toBe(r.ticker);
    // Not strings where the layout has them, JSON text, and bytes cut short: decoded instead.
    expect(storedTicker(encodeRow({ ...r, id: null as never }))).toBeUndefined();
    expect(storedTicker(encodeRow({ ...r, ticker: 7 as never }))).toBeUndefined();
    expect(storedTicker(legacyJson(encodeRow(r)))).toBeUndefined();
    expect(storedTicker(Buffer.from(legacyJson(encodeRow(r))))).toBeUndefined();
    const whole = encodeRow(r);
    // array16 header, the id as str8 (a UUID), the OSI and the ticker as fixstr.
    const tickerEnd = 3 + 2 + r.id.length + 1 + r.osi.length + 1 + r.ticker.length;
    expect(r.id.length).toBe(36);
    expect(storedTicker(whole.subarray(0, tickerEnd))).toBe(r.ticker);
    expect(storedTicker(whole.subarray(0, tickerEnd - 1))).toBeUndefined();
    expect(storedTicker(Buffer.alloc(0))).toBeUndefined();
  });

  it('an encoding stays intact while later rows are encoded', () => {
    const first = encodeRow(prints[0]);
    const copy = Buffer.from(first);
    for (let i = 0; i < 5_000; i++) encodeRow(prints[i % prints.length]);
    expect(first.equals(copy)).toBe(true);
    expect(decodeRow(first, prints[0].rowKey, prints[0].sessionDate)).toEqual(prints[0]);
  });
});

describe('stored comprising trades', () => {
  it('decode to themselves, and from the JSON text stored before 2026-11-25', () => {
    const withTrades = fixture.consolidated.filter((c) => c.comprisingTrades.length > 1);
    expect(withTrades.length).toBeGreaterThan(5);
    for (const c of withTrades) {
      const stored = encodeComprising(c.comprisingTrades);
      expect(decodeComprising(stored)).toEqual(c.comprisingTrades);
      expect(decodeComprising(legacyJson(stored))).toEqual(c.comprisingTrades);
      expect(decodeComprising(Buffer.from(legacyJson(stored)))).toEqual(c.comprisingTrades);
    }
  });
});
