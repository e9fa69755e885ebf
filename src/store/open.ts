import { join } from 'node:path';
import type { Logger } from 'pino';
import { connectMongo } from './mongo/open-mongo.js';

export { MongoUnreachableError } from './mongo/open-mongo.js';
import { makePrivateDir, makePrivateFile } from './private-files.js';
import { openSqlite } from './sqlite/open-sqlite.js';
import type { Store } from './store.js';

export interface OpenStoreOptions {
  /** MongoDB is used when given; otherwise SQLite in `dataDir`. */
  mongodbUri?: string;
  dataDir: string;
  logger?: Logger;
}

/** The database name when the MongoDB URI names none. */
export const DEFAULT_MONGO_DB = 'mergeq';
export const SQLITE_FILE = 'mergeq.sqlite';

/** The SQLite store's folder or file cannot be created or opened; `code` is the system's (EACCES, ENOENT, ...). */
export class DataDirError extends Error {
  readonly code: string | undefined;
  /** The system's message, e.g. `EACCES: permission denied, mkdir '/srv/data'`. */
  readonly reason: string;
  constructor(
    readonly dataDir: string,
    cause: unknown,
  ) {
    // Duck-typed: errors of node:fs need not be instances of this realm's Error (test runners).
    const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
    const reason = typeof message === 'string' ? message : String(cause);
    super(`cannot use the data folder ${dataDir}: ${reason}`, { cause });
    this.name = 'DataDirError';
    this.reason = reason;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  if (opts.mongodbUri) return openMongoStore(opts.mongodbUri, { logger: opts.logger });
  try {
    makePrivateDir(opts.dataDir);
    return await openSqliteStore(join(opts.dataDir, SQLITE_FILE), { logger: opts.logger });
  } catch (err) {
    throw new DataDirError(opts.dataDir, err);
  }
}

/** A SQLite store in `path`, created with its schema if new; `':memory:'` for a throw-away one. */
export async function openSqliteStore(path: string, opts: { logger?: Logger } = {}): Promise<Store> {
  if (path !== ':memory:') makePrivateFile(path);
  const store = openSqlite(path);
  opts.logger?.info({ store: 'sqlite', path }, 'store opened');
  return store;
}

/** A MongoDB store in the URI's database (or `dbName`, or `mergeq`); indexes are created on open. */
export async function openMongoStore(uri: string, opts: { dbName?: string; logger?: Logger } = {}): Promise<Store> {
  const dbName = opts.dbName ?? databaseInUri(uri) ?? DEFAULT_MONGO_DB;
  const store = await connectMongo(uri, dbName);
  // The URI may carry credentials: log the database name only.
  opts.logger?.info({ store: 'mongo', db: dbName }, 'store opened');
  return store;
}

/** `mongodb://host/db?opts` → `db`. Hosts cannot contain `/` (socket paths are percent-encoded). */
export function databaseInUri(uri: string): string | null {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]+)/.exec(uri);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}
