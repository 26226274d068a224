import { osiSymbol } from '../../services/domain/osi';
import { CHANGE_ROW_KEY, OI_CHANGE_LAYOUT, changeRow, compactOsi, decodeChain, encodeChain, expandOsi } from '../../services/views/open-interest';

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
});
