import type Database from 'better-sqlite3';
import type { InboxDelivery, InboxStore } from '../inbox-store.js';

/** The GitHub webhook inbox in SQLite; its table is created here (IF NOT EXISTS), like the outbox's. */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS github_inbox (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    payload         TEXT NOT NULL,
    received_at     TEXT NOT NULL,
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT
  );
  CREATE INDEX IF NOT EXISTS github_inbox_due ON github_inbox(status, next_attempt_at);
`;

const COLUMNS = 'id, name, payload, received_at AS receivedAt, status, attempts, next_attempt_at AS nextAttemptAt, last_error AS lastError';

export class SqliteInboxTable implements InboxStore {
  private readonly stmt;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.stmt = {
      insert: db.prepare(
        `INSERT INTO github_inbox (id, name, payload, received_at, status, attempts, next_attempt_at, last_error)
         VALUES (@id, @name, @payload, @receivedAt, @status, @attempts, @nextAttemptAt, @lastError)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, payload = excluded.payload, status = 'pending',
           attempts = 0, next_attempt_at = excluded.next_attempt_at, last_error = NULL
         WHERE github_inbox.status = 'failed'`,
      ),
      due: db.prepare(`SELECT ${COLUMNS} FROM github_inbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, received_at LIMIT ?`),
      claim: db.prepare("UPDATE github_inbox SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at = ?"),
      put: db.prepare(
        'UPDATE github_inbox SET payload = @payload, status = @status, attempts = @attempts, next_attempt_at = @nextAttemptAt, last_error = @lastError WHERE id = @id',
      ),
      prune: db.prepare("DELETE FROM github_inbox WHERE status != 'pending' AND received_at < ?"),
    };
  }

  async acceptInbound(delivery: InboxDelivery): Promise<boolean> {
    return this.stmt.insert.run(delivery).changes > 0;
  }

  async dueInbound(now: string, limit: number): Promise<InboxDelivery[]> {
    return this.stmt.due.all(now, limit) as InboxDelivery[];
  }

  async claimInbound(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean> {
    return this.stmt.claim.run(until, id, expectedNextAttemptAt).changes > 0;
  }

  async putInbound(delivery: InboxDelivery): Promise<void> {
    this.stmt.put.run(delivery);
  }

  async pruneInbound(before: string): Promise<number> {
    return this.stmt.prune.run(before).changes;
  }
}
