import { isDeepStrictEqual } from 'node:util';

/**
 * The condition of a compare-and-set on fields: each field of `expected` holds that value in
 * `record` (deep equality; absent and null are the same). The memory and SQLite stores check it on
 * the record they are about to change, inside their write; MongoDB filters on the same fields.
 */
export function fieldsHold(record: object, expected: object): boolean {
  const stored = record as Record<string, unknown>;
  return Object.entries(expected).every(([k, v]) => isDeepStrictEqual(stored[k] ?? null, v ?? null));
}

/** Whether each test case (or other keyed record) is still stored as read; `stored` answers the stored one. */
export function allStillAsRead<T extends object>(asRead: readonly T[] | undefined, stored: (record: T) => object | null | undefined): boolean {
  return (asRead ?? []).every((record) => {
    const now = stored(record);
    return now != null && fieldsHold(now, record);
  });
}
