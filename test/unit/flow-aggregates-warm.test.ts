import { packAtm } from '../../services/views/flow-aggregates/warm-atm';
import { GROUP_BYTES, decodeGroupList, encodeGroupList, groupOf, packSession, unpackGroup, type SessionEntry } from '../../services/views/flow-aggregates';

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
    const { ids: back, digest } = decodeGroupList(encodeGroupList(groups));
    expect(digest).not.toBe(decodeGroupList(encodeGroupList(groups.slice(1))).digest);
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
    expect(decodeGroupList(encodeGroupList([])).ids).toEqual([]);
  });
});

describe('warm at-the-money prints', () => {
  const atm = (m: number, text: string) => ({ field: String(m), value: Buffer.from(text) });
  const hash = [
    atm(28_573_470, '512.5|510.23|1714408200123|0300000abc|0.23456789012345'),
    atm(28_573_471, '510|510.2|1714408260000|0300000abd|0.2'),
    atm(28_573_475, '0.5|4503599627370496|1714408559999|11zzzzzzzz|1e-7'),
    atm(28_573_490, '505|509.9|1714409400000|0000000001|NaN'),
  ];

  it('come back as their exact text, as columns when every entry reads back exactly', () => {
    const entries: SessionEntry[] = [{ suffix: 'av:SPY:2024-05-17', fields: hash.map((e) => e.field), values: hash.map((e) => e.value) }];
    expect(
      packAtm(
        hash.map((e) => e.field),
        hash.map((e) => e.value),
      ),
    ).not.toBeNull();
    const [group] = packSession(entries);
    const got = unpackGroup(group.body).get('av:SPY:2024-05-17') as Map<string, Buffer>;
    expect([...got].map(([f, v]) => [f, v.toString()])).toEqual(hash.map((e) => [e.field, e.value.toString()]));
  });

  it('stay as they are when an entry would not read back exactly', () => {
    for (const odd of [
      '512.50|510|1714408200123|0300000abc|0.2',
      '9007199254740993|510|1714408200123|0300000abc|0.2',
      '512|510|1714408200123|0300000abc',
      '512|510|1714408200123|0300000ABC|0.2',
      '512|510|-0|0300000abc|0.2',
    ]) {
      const values = [...hash.map((e) => e.value), Buffer.from(odd)];
      const fields = [...hash.map((e) => e.field), '28573499'];
      expect(packAtm(fields, values)).toBeNull();
      const [group] = packSession([{ suffix: 'av:SPY:2024-05-17', fields, values }]);
      const got = unpackGroup(group.body).get('av:SPY:2024-05-17') as Map<string, Buffer>;
      expect(fields.map((f) => got.get(f)!.toString())).toEqual(values.map((v) => v.toString()));
    }
    // A field that is not a canonical minute.
    const [group] = packSession([{ suffix: 'av:SPY:2024-05-17', fields: ['028573470'], values: [hash[0].value] }]);
    expect((unpackGroup(group.body).get('av:SPY:2024-05-17') as Map<string, Buffer>).get('028573470')!.toString()).toBe(hash[0].value.toString());
  });
});
