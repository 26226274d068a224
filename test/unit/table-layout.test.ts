import { PartitionKeys } from '../../services/views/keys';
import { compareKeys, encodeSortKey, indexMember, parseIndexMember } from '../../services/views/sort-keys';
import { TableKeys, rowRemovals, rowWrites, type TableLayout } from '../../services/views/table';

interface Note {
  id: string;
  ticker: string;
  type: string;
  createdTime: number;
  sessionDate: string;
}

const layout: TableLayout<Note> = {
  view: 'notes',
  segmented: true,
  segmentOf: (r) => r.sessionDate,
  rowKeyOf: (r) => r.id,
  encode: (r) => JSON.stringify(r),
  decode: (s) => JSON.parse(String(s)) as Note,
  sorts: [
    { field: 'CREATED_TIME', suffix: 'time', value: (r) => r.createdTime },
    { field: 'TICKER', suffix: 'ticker', value: (r) => r.ticker },
  ],
  indexes: [
    { name: 'tk', values: (r) => [r.ticker] },
    { name: 'ty', values: (r) => [r.type] },
  ],
};

describe('table layout', () => {
  const k = new TableKeys(new PartitionKeys('mdq', 'notes', 3, 7));
  const row: Note = { id: 'n1', ticker: 'AAPL', type: 'T1', createdTime: 1714570200000, sessionDate: '2024-05-01' };

  it('writes the row, one member per sort and index, and the segment', () => {
    const t = indexMember(encodeSortKey(row.createdTime), 'n1');
    expect(rowWrites(layout, k, row)).toEqual([
      ['HSET', 'mdq:notes:v3:{p07}:2024-05-01:r', 'n1', JSON.stringify(row)],
      ['ZADD', 'mdq:notes:v3:{p07}:2024-05-01:x:time', '0', t],
      ['ZADD', 'mdq:notes:v3:{p07}:2024-05-01:x:ticker', '0', indexMember(encodeSortKey('AAPL'), 'n1')],
      ['ZADD', 'mdq:notes:v3:{p07}:2024-05-01:tk:AAPL', '0', t],
      ['ZADD', 'mdq:notes:v3:{p07}:2024-05-01:ty:T1', '0', t],
      ['ZADD', 'mdq:notes:v3:{p07}:s', '0', '2024-05-01'],
    ]);
  });

  it('removes exactly what it wrote', () => {
    const writes = rowWrites(layout, k, row).filter((w) => w[1] !== k.segments);
    const removals = rowRemovals(layout, k, row);
    expect(removals.map((r) => [r[1], r[r.length - 1]]).sort()).toEqual(writes.map((w) => [w[1], w[0] === 'HSET' ? 'n1' : w[3]]).sort());
  });

  it('keys of a view without segments have no segment part', () => {
    expect(k.rows('')).toBe('mdq:notes:v3:{p07}:r');
    expect(k.sorted('', 'time')).toBe('mdq:notes:v3:{p07}:x:time');
    expect(k.index('', 'tk', 'AAPL')).toBe('mdq:notes:v3:{p07}:tk:AAPL');
  });
});

describe('index members', () => {
  it('parse back, whatever the sort key holds', () => {
    for (const v of [0, -1.5, 1e12, 'A:B', true, null]) {
      const m = indexMember(encodeSortKey(v), '00abc');
      expect(parseIndexMember(m)).toEqual({ sortKey: encodeSortKey(v), rowKey: '00abc' });
    }
  });

  it('order as the values, then the rowKey', () => {
    const vals = [-3, -0.5, 0, 0.25, 7, 1e9];
    const keys = vals.map((v) => encodeSortKey(v));
    expect([...keys].sort()).toEqual(keys);
    expect(compareKeys(keys[1], 'b', keys[1], 'a')).toBe(1);
    expect(compareKeys(keys[0], 'z', keys[1], 'a')).toBe(-1);
  });
});
