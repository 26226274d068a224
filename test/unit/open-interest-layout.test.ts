import { osiSymbol } from '../../services/domain/osi';
import {
  CHANGE_ROW_KEY,
  OI_CHANGE_LAYOUT,
  changeRow,
  compactOsi,
  decodeChain,
  decodeExpirationSummaries,
  decodeSessionSummary,
  encodeChain,
  encodeExpirationSummaries,
  encodeSessionSummary,
  expandOsi,
  expirationSummary,
} from '../../services/views/open-interest';

/** The open-interest view's codecs: what the projector stores is what the endpoints read back. */
describe('open-interest layout', () => {
  const osi = osiSymbol('SPY', '2026-01-16', 'CALL', 602.5);
  const row = changeRow({ osi, ticker: 'SPY', sessionDate: '2026-01-05', createdTime: 1_767_610_800_000 }, 18_250, 21_400);

  it('a change row carries the derived fields, and round-trips through its stored form', () => {
    expect(row).toEqual({
      id: 'SPY260116C00602500-20260105',
      ticker: 'SPY',
      contractType: 'CALL',
      strikePrice: 602.5,
      expirationDate: '2026-01-16',
      previousOpenInterest: 18_250,
      currentOpenInterest: 21_400,
      changeInOpenInterest: 3_150,
      percentChangeInOpenInterest: 3_150 / 18_250,
      sessionDate: '2026-01-05',
      createdTime: 1_767_610_800_000,
    });
    const rowKey = OI_CHANGE_LAYOUT.rowKeyOf(row);
    expect(rowKey).toBe('SPY260116C00602500');
    expect(CHANGE_ROW_KEY.test(rowKey)).toBe(true);
    expect(OI_CHANGE_LAYOUT.decode(OI_CHANGE_LAYOUT.encode(row), rowKey, '2026-01-05')).toEqual(row);
  });

  it('a new listing has no percent change; a closed-out one loses everything', () => {
    expect(changeRow({ osi, ticker: 'SPY', sessionDate: '2026-01-05', createdTime: 0 }, 0, 40)).toMatchObject({
      changeInOpenInterest: 40,
      percentChangeInOpenInterest: null,
    });
    expect(changeRow({ osi, ticker: 'SPY', sessionDate: '2026-01-05', createdTime: 0 }, 40, 0)).toMatchObject({
      changeInOpenInterest: -40,
      percentChangeInOpenInterest: -1,
    });
  });

  it('the ticker comes from the stored row, not the OSI root (SPXW options of SPX)', () => {
    const weekly = changeRow({ osi: osiSymbol('SPXW', '2026-01-16', 'PUT', 5900), ticker: 'SPX', sessionDate: '2026-01-05', createdTime: 0 }, 1, 2);
    const key = OI_CHANGE_LAYOUT.rowKeyOf(weekly);
    expect(OI_CHANGE_LAYOUT.decode(OI_CHANGE_LAYOUT.encode(weekly), key, '2026-01-05')).toEqual(weekly);
  });

  it('compact OSI symbols expand back to the padded form', () => {
    expect(expandOsi(compactOsi(osi))).toBe(osi);
    expect(expandOsi('not an osi')).toBeNull();
  });

  it('chains are stored by ascending strike and read back', () => {
    const chain = [
      { strike: 610, call: 5, put: 0 },
      { strike: 602.5, call: 0, put: 12 },
    ];
    const stored = encodeChain(chain);
    expect(stored).toBe('602.5,0,12;610,5,0');
    expect(decodeChain(stored)).toEqual([...chain].reverse());
    expect(decodeChain(null)).toEqual([]);
  });

  it('an expiration summary: its totals and the max-pain strike, worked by hand', () => {
    // Settlement at K: calls owe sum OI x max(0, K - strike) x 100, puts sum OI x max(0, strike - K) x 100.
    // K=100: 0 + (10x5 + 20x10) x 100 = 25,000; K=105: 4x5x100 + 20x5x100 = 12,000; K=110: (4x10 + 6x5) x 100 = 7,000.
    const chain = [
      { strike: 105, call: 6, put: 10 },
      { strike: 100, call: 4, put: 0 },
      { strike: 110, call: 0, put: 20 },
    ];
    expect(expirationSummary('2026-01-16', chain)).toEqual({ expiration: '2026-01-16', call: 10, put: 30, maxPain: 110 });
  });

  it('an expiration without open interest has totals 0 and no max pain', () => {
    expect(expirationSummary('2026-01-16', [{ strike: 100, call: 0, put: 0 }])).toEqual({ expiration: '2026-01-16', call: 0, put: 0, maxPain: null });
  });

  it('expiration summaries are stored by ascending expiration and read back, a missing max pain included', () => {
    const list = [
      { expiration: '2026-02-20', call: 7, put: 0, maxPain: 212.5 },
      { expiration: '2026-01-16', call: 0, put: 0, maxPain: null },
    ];
    const stored = encodeExpirationSummaries(list);
    expect(stored).toBe('2026-01-16,0,0,;2026-02-20,7,0,212.5');
    expect(decodeExpirationSummaries(stored)).toEqual([...list].reverse());
    expect(decodeExpirationSummaries(null)).toEqual([]);
  });

  it("a session's summary keeps both lists, either may be empty", () => {
    const expirations = [{ expiration: '2026-01-16', call: 7, put: 3, maxPain: 600 }];
    const strikes = [
      { strike: 597.5, call: 0, put: 3 },
      { strike: 600, call: 7, put: 0 },
    ];
    expect(encodeSessionSummary({ expirations, strikes })).toBe('2026-01-16,7,3,600|597.5,0,3;600,7,0');
    expect(decodeSessionSummary(encodeSessionSummary({ expirations, strikes }))).toEqual({ expirations, strikes });
    expect(decodeSessionSummary(encodeSessionSummary({ expirations: [], strikes: [] }))).toEqual({ expirations: [], strikes: [] });
    expect(decodeSessionSummary(null)).toEqual({ expirations: [], strikes: [] });
  });
});
