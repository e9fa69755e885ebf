import type { Store } from '../store.js';
import { SqliteFlakyTables } from './flaky-tables.js';
import { SqliteInboxTable } from './inbox-table.js';
import { openDatabase } from './open-database.js';
import { SqliteOutboxTable } from './outbox-table.js';
import { SqliteQueueTables } from './queue-tables.js';
import { migrate } from './schema.js';
import { SqliteLeases } from './sqlite-leases.js';
import { SqliteOrgs } from './sqlite-orgs.js';
import { SqliteServer } from './sqlite-server.js';
import { SqliteTargets } from './sqlite-targets.js';
import { SqliteTemplateTable } from './template-table.js';

/**
 * The embedded store: one SQLite file (or `:memory:`), its schema migrated. better-sqlite3 is
 * synchronous, so every method runs to completion before it returns its promise; no two of them ever
 * interleave within a process, and SQLite's locking serializes writers across processes.
 */
export function openSqlite(path: string): Store {
  const db = openDatabase(path);
  migrate(db);
  const outbox = new SqliteOutboxTable(db);
  const ping = db.prepare('SELECT 1').pluck();
  return {
    kind: 'sqlite',
    queues: new SqliteQueueTables(db, outbox),
    targets: new SqliteTargets(db),
    orgs: new SqliteOrgs(db),
    tests: new SqliteFlakyTables(db, outbox),
    server: new SqliteServer(db),
    leases: new SqliteLeases(db),
    outbox,
    inbox: new SqliteInboxTable(db),
    templates: new SqliteTemplateTable(db),
    async ping() {
      ping.get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
