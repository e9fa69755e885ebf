import { ConflictError } from '../errors.js';

/** A ConflictError with `message` when `err` is SQLite refusing a duplicate key; else `err` itself. */
export function asConflict(err: unknown, message: string): unknown {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? new ConflictError(message) : err;
}
