import Database from 'better-sqlite3';

/** How long a write waits for another process holding the database's write lock. */
const BUSY_TIMEOUT_MS = 5000;
const PAGE_SIZE = 1024;
const WAL_CHECKPOINT_PAGES = 16 * 1024;

/** Opens the SQLite file (or `:memory:`) with the settings the store relies on. */
export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (path !== ':memory:') {
    // A commit writes whole pages to the WAL (and again at checkpoints) for the few small rows it
    // changes: 1 KiB pages and a 16 MiB WAL between checkpoints halve the bytes written per merged
    // PR (docs/storage.md). The page size only applies to a new file, before it is in WAL mode.
    db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma('journal_mode = WAL');
    db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    // With WAL, NORMAL survives a crash of the process; only a power loss can drop the last commits.
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  return db;
}
