import { join } from 'node:path';
import type { Logger } from 'pino';
import { MongoStore } from './mongo/mongo-store.js';
import { makePrivateDir, makePrivateFile } from './private-files.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
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

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  if (opts.mongodbUri) return openMongoStore(opts.mongodbUri, { logger: opts.logger });
  makePrivateDir(opts.dataDir);
  return openSqliteStore(join(opts.dataDir, SQLITE_FILE), { logger: opts.logger });
}

/** A SQLite store in `path`, created with its schema if new; `':memory:'` for a throw-away one. */
export async function openSqliteStore(path: string, opts: { logger?: Logger } = {}): Promise<SqliteStore> {
  if (path !== ':memory:') makePrivateFile(path);
  const store = new SqliteStore(path);
  opts.logger?.info({ store: 'sqlite', path }, 'store opened');
  return store;
}

/** A MongoDB store in the URI's database (or `dbName`, or `mergeq`); indexes are created on open. */
export async function openMongoStore(uri: string, opts: { dbName?: string; logger?: Logger } = {}): Promise<MongoStore> {
  const dbName = opts.dbName ?? databaseInUri(uri) ?? DEFAULT_MONGO_DB;
  const store = await MongoStore.connect(uri, dbName);
  // The URI may carry credentials: log the database name only.
  opts.logger?.info({ store: 'mongo', db: dbName }, 'store opened');
  return store;
}

/** `mongodb://host/db?opts` → `db`. Hosts cannot contain `/` (socket paths are percent-encoded). */
export function databaseInUri(uri: string): string | null {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]+)/.exec(uri);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}
