import { GROUP_BYTES, decodeGroupIds, encodeGroupIds, groupOf, packSession, unpackGroup, type SessionEntry } from '../../services/views/flow-aggregates';

/**
 * The cube's warm groups (services/views/flow-aggregates/warm.ts): every key comes back exactly,
 * the groups do not depend on the order keys and fields were read in, a key is found in its
 * group from the ids alone across group cuts, and empty keys are left out.
 */

const rng = (seed: number) => () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

function session(seed: number, tickers: number): SessionEntry[] {
  const r = rng(seed);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));
  const out: SessionEntry[] = [];
  for (const kind of ['ms', 'mm', 'ns', 'ul', 'osi']) {
    const fields = Array.from({ length: 1 + Math.floor(r() * 30) }, (_, i) => `${kind}${i}`);
    out.push({ suffix: kind, fields, values: fields.map(() => bytes(1 + Math.floor(r() * 80))) });
  }
  for (let t = 0; t < tickers; t++) {
    const ticker = `T${t.toString(36).toUpperCase()}`;
    for (const kind of ['cm', 'cs', 'o', 'u']) {
      // Large enough that a kind's keys are cut into several groups.
      const fields = Array.from({ length: 5 + Math.floor(r() * 60) }, (_, i) => String(28_000_000 + i * 7));
      out.push({ suffix: `${kind}:${ticker}`, fields, values: fields.map(() => bytes(50 + Math.floor(r() * 400))) });
    }
    out.push({ suffix: `ae:${ticker}`, members: ['2024-06-21', '2024-05-17'] });
    out.push({ suffix: `av:${ticker}:2024-05-17`, fields: ['28000001'], values: [Buffer.from('100|99.5|1|00000000a1|0.3')] });
  }
  out.push({ suffix: 'xs', fields: [], values: [] });
  return out;
}

/** The same entries, in another order, fields shuffled too. */
function shuffled(entries: SessionEntry[], seed: number): SessionEntry[] {
  const r = rng(seed);
  const order = <T>(xs: T[]) =>
    xs
      .map((x) => [r(), x] as const)
      .sort((a, b) => a[0] - b[0])
      .map((p) => p[1]);
  return order(entries).map((e) => {
    if ('members' in e) return { suffix: e.suffix, members: order([...e.members]) };
    const idx = order(e.fields.map((_, i) => i));
    return { suffix: e.suffix, fields: idx.map((i) => e.fields[i]), values: idx.map((i) => e.values[i]) };
  });
}

describe('warm groups of the cube', () => {
  const entries = session(5, 120);
  const groups = packSession(entries);
  const ids = groups.map((g) => g.id);
  const decoded = new Map(groups.map((g) => [g.id, unpackGroup(g.body)]));

  it('cut a large kind into several groups, each of one kind', () => {
    const cm = ids.filter((id) => id.startsWith('cm:'));
    expect(cm.length).toBeGreaterThan(1);
    for (const [id, g] of decoded) for (const suffix of g.keys()) expect(suffix.split(':')[0]).toBe(id.split(':')[0]);
    // No group past its bound by more than one key.
    for (const g of decoded.values()) {
      let n = 0;
      for (const v of g.values()) if (v instanceof Map) for (const [f, b] of v) n += f.length + b.length;
      expect(n).toBeLessThan(GROUP_BYTES + 64 * 1024);
    }
  });

  it('give back every key, found in its group from the ids alone', () => {
    const back = decodeGroupIds(encodeGroupIds(ids));
    expect(back).toEqual(ids);
    for (const e of entries) {
      const id = groupOf(back, e.suffix);
      if (('members' in e ? e.members.length : e.fields.length) === 0) {
        expect(id === null || !decoded.get(id)!.has(e.suffix)).toBe(true);
        continue;
      }
      const got = decoded.get(id!)!.get(e.suffix);
      if ('members' in e) expect(got).toEqual([...e.members].sort());
      else {
        // Compared by hand: jest's deep equality over thousands of Buffers in Maps is slow.
        const hash = got as Map<string, Buffer>;
        expect(hash.size).toBe(e.fields.length);
        expect(e.fields.every((f, i) => hash.get(f)?.equals(e.values[i]))).toBe(true);
      }
    }
    expect(groupOf(back, 'cm:ZZZZZZ')).toBe(ids.filter((id) => id.startsWith('cm:')).pop());
    expect(groupOf(back, 'ts:T1')).toBeNull();
  });

  it('do not depend on the order keys and fields were read in', () => {
    for (const seed of [1, 2, 3]) {
      const again = packSession(shuffled(entries, seed));
      expect(again.map((g) => g.id)).toEqual(ids);
      again.forEach((g, i) => expect(g.body.equals(groups[i].body)).toBe(true));
    }
  });

  it('of a session without keys are none', () => {
    expect(packSession([])).toEqual([]);
    expect(decodeGroupIds(encodeGroupIds([]))).toEqual([]);
  });
});
