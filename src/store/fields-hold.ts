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
