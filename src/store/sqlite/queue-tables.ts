import type Database from 'better-sqlite3';
import type { Entry } from '../../domain/entry.js';
import type { QueueDoc, Unit } from '../../domain/queue.js';
import type { TestRun } from '../../domain/run.js';
import { asConflict } from './unique-conflict.js';
import { changeSnapshot, headOf, snapshotOf, type QueueChanges, type QueueHead, type QueueSnapshot, type RowChanges } from '../queue-rows.js';
import type { Archive, QueueStore, RunFilter } from '../store.js';
import { SqliteArchiveTables } from './archive-tables.js';
import type { SqliteOutboxTable } from './outbox-table.js';
import type { OutboxEvent } from '../../events/event-types.js';

type Statement = Database.Statement;

/**
 * Queues: a row per queue (head document and version) and a row per entry and per run, so that a
 * commit writes what changed (see queue-rows.ts). Reads answer from the document last read or
 * committed in this process when the stored version is still its version (one indexed read), and
 * load the rows otherwise. The outbound events of a change are stored in its transaction.
 */
export class SqliteQueueTables implements QueueStore {
  private readonly snapshots = new Map<string, QueueSnapshot>();
  private readonly archive: SqliteArchiveTables;
  private readonly stmt: Record<string, Statement>;
  private readonly rows: { entries: RowStatements; runs: RowStatements; units: RowStatements };
  private readonly commitTx;
  private readonly loadTx;
  private readonly insertTx;
  private readonly deleteTx;

  constructor(
    private readonly db: Database.Database,
    private readonly outbox: Pick<SqliteOutboxTable, 'insertEvents'>,
  ) {
    this.archive = new SqliteArchiveTables(db);
    this.rows = { entries: rowStatements(db, 'queue_entries'), runs: rowStatements(db, 'queue_runs'), units: rowStatements(db, 'queue_units') };
    this.stmt = {
      insertQueue: db.prepare(
        'INSERT INTO queues (id, repo_key, branch, org_id, version, doc) VALUES (@id, @repoKey, @branch, @orgId, @version, @doc)',
      ),
      versionById: db.prepare('SELECT id, version FROM queues WHERE id = ?'),
      versionByKey: db.prepare('SELECT id, version FROM queues WHERE repo_key = ? AND branch = ?'),
      versionsAll: db.prepare('SELECT id, version FROM queues ORDER BY repo_key, branch'),
      versionsByOrg: db.prepare('SELECT id, version FROM queues WHERE org_id = ? ORDER BY repo_key, branch'),
      versionsByRepo: db.prepare('SELECT id, version FROM queues WHERE repo_key = ? ORDER BY branch'),
      versionsByOrgAndRepo: db.prepare('SELECT id, version FROM queues WHERE org_id = ? AND repo_key = ? ORDER BY branch'),
      head: db.prepare('SELECT version, doc FROM queues WHERE id = ?'),
      casVersion: db.prepare('UPDATE queues SET version = ? WHERE id = ? AND version = ?'),
      casHead: db.prepare('UPDATE queues SET version = ?, doc = ? WHERE id = ? AND version = ?'),
      casDelete: db.prepare('DELETE FROM queues WHERE id = ? AND version = ?'),
    };

    this.loadTx = db.transaction((id: string): QueueSnapshot | null => this.loadNow(id));

    this.insertTx = db.transaction((queue: QueueDoc, events: OutboxEvent[] | undefined) => {
      this.stmt.insertQueue!.run({
        id: queue.id,
        repoKey: queue.repoKey,
        branch: queue.branch,
        orgId: queue.orgId,
        version: queue.version,
        doc: JSON.stringify(headOf(queue)),
      });
      for (const field of ROW_FIELDS) queue[field].forEach((item, ord) => this.rows[field].upsert.run(queue.id, item.id, ord, JSON.stringify(item)));
      this.outbox.insertEvents(events);
    });

    // The one transaction of a commit: archive, compare-and-set of the version, changed rows.
    this.commitTx = db.transaction((queue: QueueDoc, expectedVersion: number, archive: Archive | undefined): QueueSnapshot => {
      for (const entry of archive?.entries ?? []) this.archive.putEntry(entry);
      for (const run of archive?.runs ?? []) this.archive.putRun(run);
      this.outbox.insertEvents(archive?.events);
      const row = this.stmt.versionById!.get(queue.id) as { version: number } | undefined;
      // Throwing rolls back the archive writes too: a failed commit changes nothing.
      if (row?.version !== expectedVersion) throw new VersionConflict();
      let snapshot = this.snapshots.get(queue.id);
      // Another process committed this version, or nothing was read here yet: compare with the rows.
      if (snapshot?.doc.version !== expectedVersion) snapshot = this.loadNow(queue.id)!;
      // From here the snapshot changes with the write: it is kept again only once the transaction
      // has committed (a failed COMMIT must not leave it describing what was not stored).
      this.snapshots.delete(queue.id);
      this.write(queue, expectedVersion, changeSnapshot(snapshot, queue));
      return snapshot;
    });

    this.deleteTx = db.transaction((id: string, expectedVersion: number, events: OutboxEvent[] | undefined): boolean => {
      if (this.stmt.casDelete!.run(id, expectedVersion).changes !== 1) return false;
      this.outbox.insertEvents(events);
      for (const field of ROW_FIELDS) this.rows[field].deleteAll.run(id);
      return true;
    });
  }

  async insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    // A copy: the caller keeps its object, mutable.
    const copy = structuredClone(queue);
    try {
      this.insertTx.immediate(copy, events);
    } catch (err) {
      throw asConflict(err, `a queue exists for ${queue.repoKey} ${queue.branch}`);
    }
    this.snapshots.delete(queue.id);
  }

  async getQueue(repoKey: string, branch: string): Promise<QueueDoc | null> {
    return this.current(this.stmt.versionByKey!.get(repoKey, branch) as StoredVersion | undefined);
  }

  async getQueueById(id: string): Promise<QueueDoc | null> {
    return this.current(this.stmt.versionById!.get(id) as StoredVersion | undefined);
  }

  async listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]> {
    const { orgId, repoKey } = filter;
    const rows = (
      orgId !== undefined && repoKey !== undefined
        ? this.stmt.versionsByOrgAndRepo!.all(orgId, repoKey)
        : orgId !== undefined
          ? this.stmt.versionsByOrg!.all(orgId)
          : repoKey !== undefined
            ? this.stmt.versionsByRepo!.all(repoKey)
            : this.stmt.versionsAll!.all()
    ) as StoredVersion[];
    const queues: QueueDoc[] = [];
    for (const row of rows) {
      const queue = this.current(row);
      if (queue) queues.push(queue);
    }
    return queues;
  }

  async commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    if (queue.version !== expectedVersion + 1) {
      throw new Error(`commitQueue: queue.version must be ${expectedVersion + 1}, got ${queue.version}`);
    }
    try {
      this.snapshots.set(queue.id, this.commitTx.immediate(queue, expectedVersion, archive));
      return true;
    } catch (err) {
      if (err instanceof VersionConflict) return false;
      throw err;
    }
  }

  async deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    this.snapshots.delete(id);
    return this.deleteTx.immediate(id, expectedVersion, events);
  }

  latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    return this.archive.latestEntry(queueId, prNumber);
  }

  archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    return this.archive.entriesEndedSince(queueIds, since);
  }

  archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    return this.archive.runs(queueId, filter);
  }

  pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    return this.archive.prune(endedBefore);
  }

  /** The stored document of that version: the snapshot when it is of that version, else loaded. */
  private current(row: StoredVersion | undefined): QueueDoc | null {
    if (!row) return null;
    const kept = this.snapshots.get(row.id);
    if (kept?.doc.version === row.version) return kept.doc;
    return this.loadTx(row.id)?.doc ?? null;
  }

  /** Reads a queue's head and rows (inside a transaction, so they are of one version) and keeps them. */
  private loadNow(id: string): QueueSnapshot | null {
    const head = this.stmt.head!.get(id) as { version: number; doc: string } | undefined;
    if (!head) {
      this.snapshots.delete(id);
      return null;
    }
    const rows = <T>(all: unknown[]) => (all as { ord: number; doc: string }[]).map((r) => ({ ord: r.ord, item: JSON.parse(r.doc) as T }));
    const snapshot = snapshotOf(JSON.parse(head.doc) as QueueHead, head.version, {
      entries: rows<Entry>(this.rows.entries.all.all(id)),
      runs: rows<TestRun>(this.rows.runs.all.all(id)),
      units: rows<Unit>(this.rows.units.all.all(id)),
    });
    this.snapshots.set(id, snapshot);
    return snapshot;
  }

  private write(queue: QueueDoc, expectedVersion: number, changes: QueueChanges): void {
    const id = queue.id;
    const cas = changes.head
      ? this.stmt.casHead!.run(queue.version, JSON.stringify(changes.head), id, expectedVersion)
      : this.stmt.casVersion!.run(queue.version, id, expectedVersion);
    if (cas.changes !== 1) throw new VersionConflict();
    for (const field of ROW_FIELDS) this.writeRows(id, changes[field], this.rows[field]);
  }

  private writeRows(queueId: string, changes: RowChanges<{ id: string }>, table: RowStatements): void {
    for (const { item, ord } of changes.upserts) table.upsert.run(queueId, item.id, ord, JSON.stringify(item));
    for (const { id, ord } of changes.moves) table.move.run(ord, queueId, id);
    for (const id of changes.deletes) table.remove.run(queueId, id);
  }
}

const ROW_FIELDS = ['entries', 'runs', 'units'] as const;

/** The statements of one of the row tables (queue_entries, queue_runs, queue_units), all of one shape. */
interface RowStatements {
  all: Statement;
  upsert: Statement;
  move: Statement;
  remove: Statement;
  deleteAll: Statement;
}

function rowStatements(db: Database.Database, table: string): RowStatements {
  return {
    all: db.prepare(`SELECT ord, doc FROM ${table} WHERE queue_id = ? ORDER BY ord`),
    upsert: db.prepare(
      `INSERT INTO ${table} (queue_id, id, ord, doc) VALUES (?, ?, ?, ?)
       ON CONFLICT (queue_id, id) DO UPDATE SET ord = excluded.ord, doc = excluded.doc`,
    ),
    move: db.prepare(`UPDATE ${table} SET ord = ? WHERE queue_id = ? AND id = ?`),
    remove: db.prepare(`DELETE FROM ${table} WHERE queue_id = ? AND id = ?`),
    deleteAll: db.prepare(`DELETE FROM ${table} WHERE queue_id = ?`),
  };
}

interface StoredVersion {
  id: string;
  version: number;
}

class VersionConflict extends Error {}
