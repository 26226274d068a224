import type { TestApi } from './http';

/**
 * The one cursor walk of the tests: pages are fetched until a page comes without a cursor. With
 * `size`, every page but the last must hold exactly `size` rows and none more (a short page never
 * ends a walk; only the absent cursor does).
 */
export async function walkPages<T, C>(
  page: (cursor: C | null) => Promise<{ rows: T[]; next: C | null | undefined }>,
  opts: { size?: number; maxPages?: number } = {},
): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let cursor: C | null = null;
  for (let pages = 1; ; pages++) {
    const res = await page(cursor);
    if (opts.size !== undefined) expect(res.rows.length).toBeLessThanOrEqual(opts.size);
    rows.push(...res.rows);
    if (res.next === undefined || res.next === null) return { rows, pages };
    if (opts.size !== undefined) expect(res.rows.length).toBe(opts.size);
    cursor = res.next;
    if (pages > (opts.maxPages ?? 5_000)) throw new Error('cursor walk does not end');
  }
}

/** A walk of a table endpoint over HTTP: each page must be a 200, each cursor two strings. */
export async function walkApi(api: TestApi, path: string, body: Record<string, unknown>): Promise<{ rows: any[]; pages: number }> {
  const size = typeof body.size === 'number' ? body.size : undefined;
  return walkPages<any, unknown>(
    async (searchAfter) => {
      const res = await api.post(path, { ...body, searchAfter });
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.json)} for ${JSON.stringify(body)}`);
      const next = res.json.nextSearchAfter;
      if (next !== undefined && next !== null) {
        expect(next).toHaveLength(2);
        expect(next.every((s: unknown) => typeof s === 'string')).toBe(true);
      }
      return { rows: res.json.data, next };
    },
    { size },
  );
}
