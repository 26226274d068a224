import { encodeSortKey, isSortKeyOf } from '../../services/views/sort-keys';
import type { FieldDef } from '../request/fields';
import type { CursorCodec } from './table-endpoint';

/**
 * A cursor a person can read, as the vendor's are (`["1747137600000", "5e0f1a2b"]`): under a
 * numeric sort (a time, a size, a price) the sort value as JSON writes it and the rowKey; under
 * any other sort the stored sort key, opaque. It is still opaque to clients (spec rule 1); it only
 * reads better in logs. The rowKey is the row's id, so the view's rowKeys must be the ids.
 * A number's shortest round-trip form decodes to the same double, so the walk resumes exactly.
 */
export const READABLE_CURSOR: CursorCodec = {
  encode: (sortKey, rowKey, sortValue) => [typeof sortValue === 'number' ? String(sortValue) : sortValue === null ? 'null' : sortKey, rowKey],
  decode: ([sort, rowKey], field) => {
    if (isNumeric(field)) {
      if (sort === 'null') return { sortKey: encodeSortKey(null), rowKey };
      if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(sort) || !Number.isFinite(Number(sort))) return null;
      return { sortKey: encodeSortKey(Number(sort)), rowKey };
    }
    return isSortKeyOf(field.type === 'boolean' ? 'boolean' : 'string', sort) ? { sortKey: sort, rowKey } : null;
  },
};

function isNumeric(f: FieldDef<unknown>): boolean {
  return f.type === 'integer' || f.type === 'number' || f.type === 'time';
}
