import fc from 'fast-check';
import { decodePosition, encodePosition, startPosition } from '../../api/streams/position';
import { feedEntryId, feedTrim, offsetOfEntry } from '../../services/views/feed';
import { PartitionKeys } from '../../services/views/keys';

describe('stream positions (event ids)', () => {
  it('round-trip every position of twelve partitions, none seen (-1) included', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1, max: Number.MAX_SAFE_INTEGER }), { minLength: 12, maxLength: 12 }), (p) => {
        expect(decodePosition(encodePosition(p))).toEqual(p);
      }),
    );
    expect(encodePosition(startPosition())).toBe('...........');
  });

  it('refuse text that is no id of ours', () => {
    for (const bad of ['', 'abc', '1.2.3', '...........x.', 'A...........', '-1...........', `${'z'.repeat(13)}...........`])
      expect(decodePosition(bad)).toBeNull();
  });
});

describe('feed entries', () => {
  it('name their Kafka offset, and a trim keeps exactly the newest retention offsets', () => {
    expect(offsetOfEntry(feedEntryId(0))).toBe(0);
    expect(offsetOfEntry(feedEntryId(123456))).toBe(123456);
    const k = new PartitionKeys('mdq', 'equity-prints', 3, 7);
    expect(feedTrim(k, 99, 100)).toBeNull();
    expect(feedTrim(k, 150, 100)).toEqual(['XTRIM', 'mdq:equity-prints:v3:{p07}:feed', 'MINID', '=', '51-1']);
  });
});
