import type { FieldSet } from '../../api/request/fields';
import { walkApi } from './cursor-walk';
import type { TestApi } from './http';
import { expectEqual } from './expect-equal';
import { expectProblem } from './problem';

/**
 * The conformance suite of a table-shaped endpoint (spec "Paging and projection"), in the spirit
 * of a storage adapter's conformance suite: every table endpoint runs it against its own data, so
 * the rules every table must keep are written once. Given the path, the FieldSet and an oracle —
 * the whole answer to a body, in order, computed by brute force over the same events — it checks:
 *  - cursor walks at several sizes, and under every sort in both directions, return every row
 *    exactly once and in the oracle's order, every page but the last full;
 *  - includes and excludes of every projectable name give the oracle's projected rows, and the
 *    projection's 400s (both lists, an unknown name, a filterable but not projectable one);
 *  - size bounds, and a cursor used with another sort, edited or malformed: 400 problems naming
 *    the field.
 */

export interface TableConformance {
  path: string;
  api: () => TestApi;
  fields: FieldSet<any>;
  maxSize: number;
  /** A body selecting a closed window (a past session), without size, sort or projection. */
  base: Record<string, unknown>;
  /** Every row the walk of `body` returns, in order, as the API writes them (size and cursor ignored). */
  oracle: (body: Record<string, unknown>) => Record<string, unknown>[];
  /** False when the endpoint has a fixed order and no sort field (news). */
  sortable: boolean;
  /** Sort fields to walk (default: every filterable field that holds one value). */
  sorts?: readonly string[];
  /** Page sizes of the walks in the default order (default 7, 50 and the maximum). */
  walkSizes?: readonly number[];
  /** A narrower base for the walks under every sort (default `base`): a few hundred rows keep them quick. */
  sortBase?: Record<string, unknown>;
}

/** Walking every sort field both ways is many requests; on a loaded 2-core machine they take minutes. */
const SORT_WALK_TIMEOUT_MS = 600_000;

export function describeTableConformance(name: string, conf: () => TableConformance): void {
  describe(`table conformance: ${name}`, () => {
    const walk = (body: Record<string, unknown>) => walkApi(conf().api(), conf().path, body);
    const post = (body: Record<string, unknown>) => conf().api().post(conf().path, body);

    it('the data set is large enough to page', () => {
      expect(conf().oracle(conf().base).length).toBeGreaterThan(60);
    });

    it('cursor walks in the default order at several sizes return every row exactly once, in order', async () => {
      const c = conf();
      const want = c.oracle(c.base);
      for (const size of c.walkSizes ?? [7, 50, c.maxSize]) {
        const { rows, pages } = await walk({ ...c.base, size });
        expectEqual(rows, want);
        expect(pages).toBe(Math.max(1, Math.ceil(want.length / size)));
      }
    });

    it(
      'cursor walks under every sort, in both directions, return every row exactly once, in order',
      async () => {
        const c = conf();
        if (!c.sortable) {
          const res = await post({ ...c.base, sort: { field: 'ID', direction: 'ASCENDING' } });
          expectProblem(res, 400, 'sort');
          return;
        }
        const base = c.sortBase ?? c.base;
        const n = c.oracle(base).length;
        expect(n).toBeGreaterThan(20);
        const size = Math.min(c.maxSize, Math.max(10, Math.ceil(n / 4)));
        const sorts = c.sorts ?? c.fields.fields.filter((f) => f.filterable && !f.multi).map((f) => f.name);
        expect(sorts.length).toBeGreaterThan(0);
        for (const field of sorts) {
          for (const direction of ['ASCENDING', 'DESCENDING']) {
            const body = { ...base, size, sort: { field, direction } };
            const { rows } = await walk(body);
            expectEqual({ field, direction, rows }, { field, direction, rows: c.oracle(body) });
          }
        }
      },
      SORT_WALK_TIMEOUT_MS,
    );

    it('includes and excludes of every projectable name give the projected rows', async () => {
      const c = conf();
      const names = c.fields.fields.filter((f) => f.projectable).map((f) => f.name);
      expect(names.length).toBeGreaterThan(1);
      for (const name of names) {
        for (const list of ['includes', 'excludes']) {
          const body = { ...c.base, size: 20, [list]: [name] };
          const res = await post(body);
          expect(res.status).toBe(200);
          expectEqual({ name, list, data: res.json.data }, { name, list, data: c.oracle(body).slice(0, 20) });
        }
      }
      // Names are normalized like every other field name: case and separators are ignored.
      const camel = names[0].toLowerCase().replace(/_([a-z])/g, (_, x: string) => x.toUpperCase());
      const normalized = await post({ ...c.base, size: 5, includes: [camel] });
      expect(normalized.json.data).toEqual(c.oracle({ ...c.base, includes: [names[0]] }).slice(0, 5));
    });

    it('projection problems: both lists, an unknown name, a filterable name that is not projectable', async () => {
      const c = conf();
      const [a, b] = c.fields.fields.filter((f) => f.projectable).map((f) => f.name);
      expectProblem(await post({ ...c.base, includes: [a], excludes: [b] }), 400, 'includes', /mutually exclusive/);
      expectProblem(await post({ ...c.base, includes: ['NO_SUCH_FIELD'] }), 400, 'includes[0]', /not a projection name/);
      expectProblem(await post({ ...c.base, excludes: [a, 'NO_SUCH_FIELD'] }), 400, 'excludes[1]', /not a projection name/);
      const hidden = c.fields.fields.find((f) => f.filterable && !f.projectable && !f.responseKey);
      if (hidden) expectProblem(await post({ ...c.base, includes: [hidden.name] }), 400, 'includes[0]', /not projectable/);
    });

    it('size: 1 and the maximum are served; anything else is a 400 naming size', async () => {
      const c = conf();
      const one = await post({ ...c.base, size: 1 });
      expect(one.json.data).toEqual(c.oracle(c.base).slice(0, 1));
      const max = await post({ ...c.base, size: c.maxSize });
      expect(max.json.data).toEqual(c.oracle(c.base).slice(0, c.maxSize));
      for (const size of [0, -1, c.maxSize + 1, 2.5, '10', 'all']) expectProblem(await post({ ...c.base, size }), 400, 'size');
    });

    it('a cursor is bound to its sort; an edited or malformed cursor is a 400 naming searchAfter', async () => {
      const c = conf();
      const first = await post({ ...c.base, size: 3 });
      const cursor = first.json.nextSearchAfter as string[];
      expect(cursor).toHaveLength(2);
      const other = c.fields.fields.find((f) => f.filterable && !f.multi && (f.type === 'symbol' || f.type === 'enum' || f.type === 'date'));
      if (c.sortable && other) {
        expectProblem(await post({ ...c.base, size: 3, sort: { field: other.name }, searchAfter: cursor }), 400, 'searchAfter', /not a cursor/);
      }
      expectProblem(await post({ ...c.base, size: 3, searchAfter: ['not a sort key', cursor[1]] }), 400, 'searchAfter', /not a cursor/);
      expectProblem(await post({ ...c.base, size: 3, searchAfter: [cursor[0], 'no:such:row'] }), 400, 'searchAfter', /not a cursor/);
      expectProblem(await post({ ...c.base, size: 3, searchAfter: [cursor[0]] }), 400, 'searchAfter');
      expectProblem(await post({ ...c.base, size: 3, searchAfter: 'abc' }), 400, 'searchAfter');
      // The same cursor, unchanged, continues the walk.
      const second = await post({ ...c.base, size: 3, searchAfter: cursor });
      expect(second.json.data).toEqual(c.oracle(c.base).slice(3, 6));
    });
  });
}
