import type { Config } from '../config/config.js';
import { createLogger } from '../server/logger.js';
import { DataDirError, MongoUnreachableError, openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import type { CliIo } from './cli-io.js';

/**
 * Opens the same store the server uses (MONGODB_URI, else SQLite under MERGEQ_DATA_DIR; SQLite's WAL
 * lets this run while the server is up), runs `fn`, and closes it. Store logs go to stderr, and the
 * default `info` is lowered to `warn` so an admin command prints only what it did.
 */
export async function withStore<T>(config: Config, io: CliIo, fn: (store: Store) => Promise<T>): Promise<T> {
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, io.stderr);
  let store: Store;
  try {
    store = await openStore({ mongodbUri: config.mongodbUri ?? undefined, dataDir: config.dataDir, logger });
  } catch (err) {
    if (err instanceof DataDirError || err instanceof MongoUnreachableError) throw err;
    const where = config.mongodbUri ? 'MongoDB (MONGODB_URI)' : `SQLite in ${config.dataDir}`;
    throw new Error(`cannot open the store, ${where}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
