import { show } from './fields';
import { invalid } from './problem';

/**
 * Cursor paging (spec "Paging and projection"). A cursor is exactly two strings, the sort value
 * and the row id of the last row served; the client passes it back unchanged as searchAfter.
 * The end of a walk is signalled only by an absent nextSearchAfter.
 */

export type Cursor = [sortValue: string, id: string];

export function encodeCursor(sortValue: string | number, id: string | number): Cursor {
  return [String(sortValue), String(id)];
}

/**
 * Validates searchAfter: null/absent means the first page. Each part is checked by the
 * endpoint's parser, so an edited or foreign cursor is a 400, never a silent wrong page.
 */
export function decodeCursor<S, I>(raw: unknown, parseSort: (s: string) => S | null, parseId: (s: string) => I | null): { sort: S; id: I } | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || raw.length !== 2 || !raw.every((x) => typeof x === 'string')) {
    throw invalid('searchAfter', 'must be null or the two-string nextSearchAfter of a previous response');
  }
  const sort = parseSort(raw[0]);
  const id = parseId(raw[1]);
  if (sort === null || id === null) throw foreignCursor();
  return { sort, id };
}

/** The 400 for a cursor of the right shape that this endpoint did not issue (edited, or another sort's). */
export function foreignCursor() {
  return invalid('searchAfter', 'is not a cursor issued by this endpoint; pass nextSearchAfter back unchanged');
}

export function parseSize(raw: unknown, max: number, dflt = 50): number {
  if (raw === undefined || raw === null) return dflt;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > max) {
    throw invalid('size', `must be an integer from 1 to ${max}, got ${show(raw)}`);
  }
  return raw;
}
